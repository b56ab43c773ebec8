import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { defineHeader, field, RemotingError, ResponseCode } from "../../src/remoting/index.ts";

const PullHeader = defineHeader({
  consumerGroup: field.string(),
  queueId: field.int(),
  queueOffset: field.long(),
  subscription: field.string().optional(),
  unitMode: field.bool().optional(),
});

const SendV2 = defineHeader({ producerGroup: field.string().as("a"), topic: field.string().as("b") });

describe("typed custom headers", () => {
  test("decode parses each field as Java does", () => {
    expect(
      PullHeader.decode({
        consumerGroup: "G",
        queueId: "3",
        queueOffset: "9007199254740991",
        unitMode: "TRUE",
        extra: "x",
      }),
    ).toEqual({ consumerGroup: "G", queueId: 3, queueOffset: 9007199254740991, unitMode: true });
  });

  test("Boolean.parseBoolean: only 'true' in any case is true", () => {
    expect(
      PullHeader.decode({ consumerGroup: "G", queueId: "0", queueOffset: "0", unitMode: "yes" }).unitMode,
    ).toBe(false);
  });

  test("a missing required field answers SYSTEM_ERROR naming it", () => {
    const err = (() => {
      try {
        PullHeader.decode({ consumerGroup: "G", queueOffset: "1" });
      } catch (e) {
        return e;
      }
    })() as RemotingError;
    expect(err).toBeInstanceOf(RemotingError);
    expect({ code: err.code, remark: err.remark }).toEqual({
      code: ResponseCode.SYSTEM_ERROR,
      remark: "the custom field <queueId> is null",
    });
  });

  test("a non-number or an int overflow answers SYSTEM_ERROR", () => {
    expect(() => PullHeader.decode({ consumerGroup: "G", queueId: "abc", queueOffset: "1" })).toThrow(
      "<queueId>",
    );
    expect(() => PullHeader.decode({ consumerGroup: "G", queueId: "2147483648", queueOffset: "1" })).toThrow(
      "<queueId>",
    );
    expect(() => PullHeader.decode({ consumerGroup: "G", queueId: "1", queueOffset: "1.5" })).toThrow(
      "<queueOffset>",
    );
  });

  test("an int field takes exactly an optional sign and ASCII digits, as Integer.parseInt", () => {
    const queueId = (text: string) => {
      try {
        return PullHeader.decode({ consumerGroup: "G", queueId: text, queueOffset: "0" }).queueId;
      } catch (e) {
        return (e as RemotingError).code;
      }
    };
    const bad = ResponseCode.SYSTEM_ERROR;
    const cases: [string, number][] = [
      ["0", 0],
      ["+5", 5],
      ["-7", -7],
      ["007", 7],
      ["-2147483648", -2147483648],
      ["2147483647", 2147483647],
      ["", bad],
      ["+", bad],
      ["-", bad],
      [" 1", bad],
      ["1 ", bad],
      ["0x10", bad],
      ["1e3", bad],
      ["1.0", bad],
      ["١", bad],
      ["--1", bad],
    ];
    expect(cases.map(([text]) => [text, queueId(text)])).toEqual(cases);
  });

  test("a long field takes Java's whole long range; beyond 2^53 it is held as ±MAX_SAFE_INTEGER", () => {
    const queueOffset = (text: string) => {
      try {
        return PullHeader.decode({ consumerGroup: "G", queueId: "0", queueOffset: text }).queueOffset;
      } catch (e) {
        return (e as RemotingError).remark;
      }
    };
    const bad = (text: string) => `the custom field <queueOffset> is not a number: "${text}"`;
    const cases: [string, number | string][] = [
      ["9007199254740991", Number.MAX_SAFE_INTEGER],
      ["-9007199254740991", -Number.MAX_SAFE_INTEGER],
      ["9007199254740993", Number.MAX_SAFE_INTEGER],
      // Long.MAX_VALUE / MIN_VALUE, as mqadmin's queryMsgByKey sends for "no end".
      ["9223372036854775807", Number.MAX_SAFE_INTEGER],
      ["+9223372036854775807", Number.MAX_SAFE_INTEGER],
      ["-9223372036854775808", -Number.MAX_SAFE_INTEGER],
      ["9223372036854775808", bad("9223372036854775808")],
      ["-9223372036854775809", bad("-9223372036854775809")],
      ["99999999999999999999999", bad("99999999999999999999999")],
      ["1e20", bad("1e20")],
    ];
    expect(cases.map(([text]) => [text, queueOffset(text)])).toEqual(cases);
  });

  test("encode writes strings and leaves absent fields out", () => {
    expect(
      PullHeader.encode({ consumerGroup: "G", queueId: 1, queueOffset: 2, subscription: undefined }),
    ).toEqual({
      consumerGroup: "G",
      queueId: "1",
      queueOffset: "2",
    });
  });

  test("wire names differ from property names where the protocol says so", () => {
    expect(SendV2.encode({ producerGroup: "P", topic: "T" })).toEqual({ a: "P", b: "T" });
    expect(SendV2.decode({ a: "P", b: "T" })).toEqual({ producerGroup: "P", topic: "T" });
  });
});

/** Every kind, required and optional, renamed on the wire or not. */
const MIXED = {
  group: field.string().as("a"),
  queueId: field.int(),
  offset: field.long().as("o"),
  ratio: field.double().optional(),
  flag: field.bool().optional(),
  note: field.string().optional().as("n"),
  count: field.int().optional(),
};
const MixedHeader = defineHeader(MIXED);

/** Decoding field by field, in table order, through one-field codecs: what one compiled decode must equal. */
function decodeFieldByField(ext: Record<string, string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(MIXED)) {
    const wire = spec.wire ?? name;
    const one = defineHeader({ [name]: spec }).decode(wire in ext ? { [wire]: ext[wire]! } : {});
    if (name in one) out[name] = (one as Record<string, unknown>)[name];
  }
  return out;
}

const outcome = (f: () => unknown) => {
  try {
    return { value: f() };
  } catch (e) {
    const err = e as RemotingError;
    return { code: err.code, remark: err.remark };
  }
};

describe("a header's compiled codec", () => {
  const texts = [
    "",
    "0",
    "12",
    "-3",
    "+4",
    "x",
    "true",
    "TRUE",
    "false",
    "1.5",
    "2147483648",
    "9007199254740993",
    " 7",
  ];
  const wires = Object.entries(MIXED).map(([name, spec]) => spec.wire ?? name);

  test("decodes as its fields one by one would, in table order: values, absences and the first error", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom(...wires, "extra"), fc.constantFrom(...texts)), (ext) => {
        expect(outcome(() => MixedHeader.decode(ext))).toEqual(outcome(() => decodeFieldByField(ext)));
      }),
      { numRuns: 500 },
    );
  });

  test("encodes every present value as a string under its wire name, absent and null values left out", () => {
    const value = fc.oneof(
      fc.constant(undefined),
      fc.constant(null),
      fc.integer(),
      fc.boolean(),
      fc.string(),
    );
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom(...Object.keys(MIXED)), value), (header) => {
        const expected: Record<string, string> = {};
        for (const [name, spec] of Object.entries(MIXED)) {
          const v = (header as Record<string, unknown>)[name];
          if (v !== undefined && v !== null) expected[spec.wire ?? name] = String(v);
        }
        expect(MixedHeader.encode(header as never)).toEqual(expected);
        expect(MixedHeader.encode(header as never, { kept: "k" })).toEqual({ kept: "k", ...expected });
      }),
      { numRuns: 500 },
    );
  });

  test("decodes a null or absent ext as every field absent", () => {
    expect(outcome(() => MixedHeader.decode(null))).toEqual({
      code: ResponseCode.SYSTEM_ERROR,
      remark: "the custom field <a> is null",
    });
    expect(defineHeader({ note: field.string().optional() }).decode(undefined)).toEqual({});
  });
});
