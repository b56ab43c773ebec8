import { describe, expect, test } from "bun:test";
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
