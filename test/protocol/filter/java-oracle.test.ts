/**
 * Differential test against RocketMQ's own SQL92 parser and evaluator: 4,000 expressions with
 * random properties, each answered by the Java classes (test/fixtures/sql92: SqlOracle.java, and
 * manifest.json for provenance). Ours must give the same MATCH / NOMATCH, and for a refused
 * expression the same kind of error at the same line and column where Java's message has one.
 */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { compileSql92, FilterParseError, lookupIn } from "../../../src/protocol/filter/index.ts";
import { decodeProperties } from "../../../src/protocol/message/index.ts";

const FIXTURE = join(import.meta.dir, "../../fixtures/sql92/java-oracle.tsv");

/** Java's cause class as ours names it; Java's checks throw several RuntimeException kinds. */
function errorKind(javaClass: string): string {
  return javaClass === "ClassCastException" ? "RuntimeException" : javaClass;
}

function ours(expression: string, properties: string): string {
  try {
    return compileSql92(expression).matches(lookupIn(decodeProperties(properties))) ? "MATCH" : "NOMATCH";
  } catch (err) {
    if (!(err instanceof FilterParseError)) throw err;
    const positioned = err.detail.includes(` at line ${err.line}, column ${err.column}`);
    return `PARSE_ERROR ${err.javaClass.split(".").pop()} ${positioned ? `${err.line}:${err.column}` : "-"}`;
  }
}

test("every case of the Java oracle gets RocketMQ's answer, and refusals its error position", () => {
  const lines = readFileSync(FIXTURE, "utf8")
    .split("\n")
    .filter((l) => l.length > 0);
  expect(lines.length).toBe(4000);
  const differ: string[] = [];
  for (const line of lines) {
    const [e, p, java] = line.split("\t") as [string, string, string];
    const [verdict, cls, where] = java.split(" ");
    const expected = verdict === "PARSE_ERROR" ? `PARSE_ERROR ${errorKind(cls!)} ${where}` : java;
    const expression = Buffer.from(e, "base64").toString("utf8");
    const properties = Buffer.from(p, "base64").toString("utf8");
    const got = ours(expression, properties);
    if (got !== expected) differ.push(`${JSON.stringify(expression)}: java ${java}, ours ${got}`);
  }
  expect(differ).toEqual([]);
});
