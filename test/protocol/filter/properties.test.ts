/**
 * Properties of the SQL92 compiler for any input: it fails only with its own FilterParseError, a
 * compiled filter's `matches` never throws, and hostile input (deep nesting, long chains, huge
 * literals) is refused or accepted without exhausting the stack.
 */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import {
  compileSql92,
  FilterParseError,
  lookupIn,
  SQL92_EXPRESSION_CHARS_MAX,
  SQL92_NESTING_MAX,
} from "../../../src/protocol/filter/index.ts";

const WORDS = [
  "a",
  "b",
  "TAGS",
  "NOT",
  "AND",
  "OR",
  "BETWEEN",
  "IN",
  "IS",
  "NULL",
  "TRUE",
  "FALSE",
  "CONTAINS",
  "STARTSWITH",
  "ENDSWITH",
  "=",
  "<>",
  ">",
  ">=",
  "<",
  "<=",
  "(",
  ")",
  ",",
  "+",
  "-",
  "'x'",
  "'3'",
  "3",
  "3.5",
  "2147483648",
  "1e3",
  "0",
  "--",
  "/*",
  "*/",
  "\n",
  "'",
  '"',
  "*",
  "9223372036854775808",
];

/** Token soup: mostly valid words, so that deep parser states are reached. */
const soup = fc.array(fc.constantFrom(...WORDS), { maxLength: 30 }).map((ws) => ws.join(" "));
const props = fc.dictionary(
  fc.constantFrom("a", "b", "TAGS"),
  fc.constantFrom("3", "x", "", "3.5", "true", "NaN"),
);

function compileOrParseError(text: string) {
  try {
    return compileSql92(text);
  } catch (err) {
    expect(err).toBeInstanceOf(FilterParseError);
    return undefined;
  }
}

describe("SQL92 compiler on arbitrary input", () => {
  test("the parser throws nothing but FilterParseError on random text", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (text) => void compileOrParseError(text)),
      { numRuns: 2000 },
    );
  });

  test("the parser throws nothing but FilterParseError on token soup, and matches never throws", () => {
    fc.assert(
      fc.property(soup, props, (text, p) => {
        const f = compileOrParseError(text);
        if (f) expect(typeof f.matches(lookupIn(p))).toBe("boolean");
      }),
      { numRuns: 5000 },
    );
  });

  test("nesting beyond the limit is a parse error, not a stack overflow", () => {
    const deep = `${"(".repeat(SQL92_NESTING_MAX + 1)}a = 1${")".repeat(SQL92_NESTING_MAX + 1)}`;
    expect(() => compileSql92(deep)).toThrow(FilterParseError);
    expect(() => compileSql92(`${"NOT ".repeat(10_000)}a`)).toThrow(FilterParseError);
    const ok = `${"(".repeat(SQL92_NESTING_MAX - 1)}a = 1${")".repeat(SQL92_NESTING_MAX - 1)}`;
    expect(compileSql92(ok).matches(lookupIn({ a: "1" }))).toBe(true);
  });

  test("a chain of thousands of AND terms compiles and evaluates", () => {
    const chain = Array.from({ length: 4000 }, (_, i) => `a <> ${i + 1}`).join(" AND ");
    expect(compileSql92(chain).matches(lookupIn({ a: "0" }))).toBe(true);
  });

  test("a long `=` chain is refused by the depth limit", () => {
    expect(() => compileSql92(`a${" = TRUE".repeat(5000)}`)).toThrow(FilterParseError);
  });

  test("an expression over the length limit is refused", () => {
    expect(() => compileSql92(`a = '${"x".repeat(SQL92_EXPRESSION_CHARS_MAX)}'`)).toThrow(FilterParseError);
  });

  test("a huge integer literal is refused without converting it", () => {
    expect(() => compileSql92(`a = ${"9".repeat(60_000)}`)).toThrow(FilterParseError);
  });
});
