import { describe, expect, test } from "bun:test";
import { encodeOpBody, parseOpBody } from "../../src/protocol/transaction.ts";

describe("op record bodies (spec broker §10.2)", () => {
  test("5.x lists are comma terminated and read back in order", () => {
    expect(encodeOpBody([12, 13, 0])).toBe("12,13,0,");
    expect(parseOpBody("12,13,0,")).toEqual([12, 13, 0]);
  });

  test("a 4.9 body is one offset without a comma", () => {
    expect(parseOpBody("42")).toEqual([42]);
  });

  test("pieces that are not offsets are skipped, as Java skips what it cannot parse", () => {
    expect(parseOpBody("7,,x,-3, 9 ,")).toEqual([7, 9]);
    expect(parseOpBody("")).toEqual([]);
  });
});
