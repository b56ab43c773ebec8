import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { JsonSyntaxError, parseJson, parseLenient, writeJson } from "../../../src/protocol/json/index.ts";

describe("parseJson reads what fastjson peers send", () => {
  test("bare numeric keys become string keys, and digit-colon runs inside strings stay untouched", () => {
    expect(parseJson('{"brokerAddrs":{0:"10.0.0.1:10911",1:"10.0.0.2:10911",-1:"x"}}')).toEqual({
      brokerAddrs: { "0": "10.0.0.1:10911", "1": "10.0.0.2:10911", "-1": "x" },
    });
  });

  test("integers beyond 2^53 stay exact as bigint; safe ones stay numbers", () => {
    expect(parseJson('{"a":9007199254740993,"b":9007199254740991,"c":-9223372036854775808,"d":1.5}')).toEqual(
      {
        a: 9007199254740993n,
        b: 9007199254740991,
        c: -9223372036854775808n,
        d: 1.5,
      },
    );
  });

  test("single quotes, bare identifier keys and stray commas are accepted as fastjson accepts them", () => {
    expect(parseJson("{,a:'x\\'y',,\"b\":[1,,2,],}")).toEqual({ a: "x'y", b: [1, 2] });
  });

  test("escapes, whitespace and a trailing newline decode as in JSON", () => {
    expect(parseJson(' {"s":"\\u00e9\\/\\n\\t"} \n')).toEqual({ s: "é/\n\t" });
  });

  test("a __proto__ key is kept as plain data on both paths", () => {
    for (const parsed of [parseJson('{"__proto__":{"x":1}}'), parseLenient('{"__proto__":{"x":1}}')]) {
      expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
      expect(Object.keys(parsed as object)).toEqual(["__proto__"]);
    }
  });

  test.each([
    ["", "unexpected end of input at offset 0"],
    ['{"a":1', "expected ',' or '}' at offset 6"],
    ['{"a" 1}', "expected ':' at offset 5"],
    ['{"a":"x}', "unterminated string at offset 8"],
    ["[1] x", "unexpected trailing text at offset 4"],
    ['{"a":tru}', 'unexpected character "t" at offset 5'],
    ["[".repeat(600), "nesting deeper than 512 at offset 512"],
  ])("malformed text %j is refused with a located error", (text, message) => {
    let caught: unknown;
    try {
      parseJson(text);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(JsonSyntaxError);
    expect((caught as Error).message).toBe(message);
  });

  test("the tolerant reader agrees with JSON.parse on every standard JSON document", () => {
    fc.assert(
      // Integers beyond 2^53 are bigint by design (JSON.parse would round them), so leave them out here.
      fc.property(
        fc.jsonValue({ maxDepth: 4 }).filter((v) => !/\d{16}/.test(JSON.stringify(v))),
        (value) => {
          const text = JSON.stringify(value);
          expect(parseLenient(text)).toEqual(JSON.parse(text));
        },
      ),
      { numRuns: 300 },
    );
  });

  test("whatever the writer emits in either style, the reader reads back", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.oneof(fc.string(), fc.integer(), fc.boolean())), (dict) => {
        const numeric = new Map(Object.values(dict).map((v, i) => [i, v]));
        for (const style of ["fastjson", "standard"] as const) {
          expect(parseJson(writeJson({ dict, numeric }, style))).toEqual({
            dict: Object.fromEntries(Object.entries(dict).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
            numeric: Object.fromEntries([...numeric].map(([k, v]) => [String(k), v])),
          });
        }
      }),
      { numRuns: 200 },
    );
  });
});

describe("writeJson writes fastjson's two styles", () => {
  const value = {
    zoneName: undefined,
    brokerName: "b",
    brokerAddrs: new Map([
      [1, "10.0.0.2:10911"],
      [0, "10.0.0.1:10911"],
    ]),
    names: new Set(["x"]),
    skipped: null,
  };

  test("fastjson style: sorted fields, bare numeric map keys, null fields left out", () => {
    expect(writeJson(value, "fastjson")).toBe(
      '{"brokerAddrs":{0:"10.0.0.1:10911",1:"10.0.0.2:10911"},"brokerName":"b","names":["x"]}',
    );
  });

  test("standard style: quoted keys", () => {
    expect(writeJson(value, "standard")).toBe(
      '{"brokerAddrs":{"0":"10.0.0.1:10911","1":"10.0.0.2:10911"},"brokerName":"b","names":["x"]}',
    );
  });

  test("standard style escapes like BrowserCompatible: non-ASCII as uppercase \\uXXXX, slash, controls", () => {
    expect(writeJson({ s: "é/\u0001\u007f\n" }, "standard")).toBe('{"s":"\\u00E9\\/\\u0001\\u007F\\n"}');
    expect(writeJson({ s: "é/" }, "fastjson")).toBe('{"s":"é/"}');
  });

  test("longs beyond 2^53 are strings in standard style and bare digits in fastjson style", () => {
    const big = { counter: 9007199254740993n, small: 5n };
    expect(writeJson(big, "standard")).toBe('{"counter":"9007199254740993","small":5}');
    expect(writeJson(big, "fastjson")).toBe('{"counter":9007199254740993,"small":5}');
  });
});
