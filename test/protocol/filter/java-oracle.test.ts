/**
 * Differential test against RocketMQ's own SQL92 parser and evaluator: 4,000 expressions with
 * random properties, each answered by the Java classes (test/fixtures/sql92: SqlOracle.java,
 * manifest.json for provenance). Our compiler must give the same MATCH / NOMATCH / PARSE_ERROR.
 */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { compileSql92, lookupIn } from "../../../src/protocol/filter/index.ts";
import { decodeProperties } from "../../../src/protocol/message/index.ts";

const FIXTURE = join(import.meta.dir, "../../fixtures/sql92/java-oracle.tsv");

function ours(expression: string, properties: string): string {
  try {
    return compileSql92(expression).matches(lookupIn(decodeProperties(properties))) ? "MATCH" : "NOMATCH";
  } catch {
    return "PARSE_ERROR";
  }
}

test("every case of the Java oracle gets RocketMQ's answer", () => {
  const lines = readFileSync(FIXTURE, "utf8")
    .split("\n")
    .filter((l) => l.length > 0);
  expect(lines.length).toBe(4000);
  const differ: string[] = [];
  for (const line of lines) {
    const [e, p, java] = line.split("\t") as [string, string, string];
    const expression = Buffer.from(e, "base64").toString("utf8");
    const properties = Buffer.from(p, "base64").toString("utf8");
    const got = ours(expression, properties);
    if (got !== java)
      differ.push(`${JSON.stringify(expression)} ${JSON.stringify(properties)}: java ${java}, ours ${got}`);
  }
  expect(differ).toEqual([]);
});
