import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import {
  checkRecord,
  decodeRecord,
  encodeRecord,
  hostAddress,
  MagicCode,
  MessageSysFlag,
  type RecordInput,
  recordLayout,
} from "../../../src/protocol/message/index.ts";

const base: RecordInput = {
  topic: "T",
  queueId: 3,
  flag: 7,
  sysFlag: 0,
  bornTimestamp: 0x0102030405,
  bornHost: hostAddress("10.0.0.1", 5555),
  storeHost: hostAddress("192.168.0.1", 10911),
  reconsumeTimes: 2,
  preparedTransactionOffset: 0,
  body: new Uint8Array([0x61, 0x62]),
  properties: "TAGS\u0001A\u0002",
};

/** Builds the expected bytes field by field, straight from the spec §4.1 table. */
function expectedV1(): Uint8Array {
  const parts: number[] = [];
  const i32 = (n: number) => parts.push((n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255);
  const i64 = (n: number) => {
    i32(Math.floor(n / 2 ** 32));
    i32(n % 2 ** 32);
  };
  i32(91 + 2 + 1 + 7); // TOTALSIZE = 91 + n + t + p
  i32(MagicCode.MESSAGE);
  i32(0x9e83486d & 0x7fffffff); // crc32("ab") = 0x9E83486D, sign bit cleared (spec §4.4)
  i32(3);
  i32(7);
  i64(42);
  i64(1000);
  i32(0);
  i64(0x0102030405);
  parts.push(10, 0, 0, 1);
  i32(5555);
  i64(1700000000000);
  parts.push(192, 168, 0, 1);
  i32(10911);
  i32(2);
  i64(0);
  i32(2);
  parts.push(0x61, 0x62);
  parts.push(1, 0x54);
  parts.push(0, 7, ...new TextEncoder().encode("TAGS\u0001A\u0002"));
  return new Uint8Array(parts);
}

describe("stored record", () => {
  test("a v1 record with IPv4 hosts is byte-identical to the spec's field table", () => {
    const got = encodeRecord(base, { queueOffset: 42, physicalOffset: 1000, storeTimestamp: 1700000000000 });
    expect(got).toEqual(expectedV1());
  });

  test("IPv6 hosts set both V6 flags and add 12 bytes each; IPv4-mapped peers stay 4 bytes", () => {
    const v6 = { ...base, bornHost: hostAddress("::1", 1), storeHost: hostAddress("fe80::2", 2) };
    const r = encodeRecord(v6, { queueOffset: 0, physicalOffset: 0, storeTimestamp: 5 });
    expect(r.length).toBe(101 + 24);
    const d = decodeRecord(r);
    expect(d.sysFlag & 0x30).toBe(MessageSysFlag.BORNHOST_V6_FLAG | MessageSysFlag.STOREHOSTADDRESS_V6_FLAG);
    expect(d.storeTimestamp).toBe(5);
    expect(d.msgId.length).toBe(56);
    const mapped = encodeRecord(
      { ...base, bornHost: hostAddress("::ffff:1.2.3.4", 9) },
      { queueOffset: 0, physicalOffset: 0, storeTimestamp: 5 },
    );
    expect(mapped.length).toBe(101);
    expect(decodeRecord(mapped).bornHost).toEqual({ ip: new Uint8Array([1, 2, 3, 4]), port: 9 });
  });

  test("topics over 127 bytes use magic v2 with an i16 topic length", () => {
    const topic = `%RETRY%${"g".repeat(130)}`;
    const r = encodeRecord({ ...base, topic }, { queueOffset: 0, physicalOffset: 0, storeTimestamp: 0 });
    expect(new DataView(r.buffer).getInt32(4)).toBe(MagicCode.MESSAGE_V2);
    expect(r.length).toBe(91 + 2 + topic.length + 7 + 1);
    expect(decodeRecord(r).topic).toBe(topic);
    expect(checkRecord(r, 0, r.length, { checkCrc: true })).toEqual({ kind: "message", size: r.length });
  });

  test("any record round-trips, passes the check, and fails it when cut short or its body changes", () => {
    const arb = fc.record({
      topic: fc.string({ minLength: 1, maxLength: 200 }),
      queueId: fc.integer({ min: 0, max: 1023 }),
      flag: fc.integer(),
      sysFlag: fc.constantFrom(0, 1, 2, 8, 0x101),
      bornTimestamp: fc.integer({ min: 0, max: 2 ** 45 }),
      reconsumeTimes: fc.integer({ min: 0, max: 16 }),
      preparedTransactionOffset: fc.integer({ min: 0, max: 2 ** 50 }),
      body: fc.uint8Array({ maxLength: 300 }),
      properties: fc.string({ maxLength: 100 }),
      queueOffset: fc.integer({ min: 0, max: 2 ** 50 }),
      physicalOffset: fc.integer({ min: 0, max: 2 ** 52 }),
      storeTimestamp: fc.integer({ min: 0, max: 2 ** 45 }),
      v6: fc.boolean(),
    });
    fc.assert(
      fc.property(arb, (a) => {
        const input: RecordInput = {
          ...a,
          bornHost: hostAddress(a.v6 ? "2001:db8::7" : "127.0.0.1", 1234),
          storeHost: hostAddress("10.1.2.3", 10911),
        };
        const bytes = encodeRecord(input, a);
        const d = decodeRecord(bytes);
        expect({
          topic: d.topic,
          queueId: d.queueId,
          flag: d.flag,
          queueOffset: d.queueOffset,
          physicalOffset: d.physicalOffset,
          storeTimestamp: d.storeTimestamp,
          bornTimestamp: d.bornTimestamp,
          preparedTransactionOffset: d.preparedTransactionOffset,
          reconsumeTimes: d.reconsumeTimes,
          body: Array.from(d.body),
          properties: d.propertiesString,
          storeSize: d.storeSize,
        }).toEqual({
          topic: a.topic,
          queueId: a.queueId,
          flag: a.flag,
          queueOffset: a.queueOffset,
          physicalOffset: a.physicalOffset,
          storeTimestamp: a.storeTimestamp,
          bornTimestamp: a.bornTimestamp,
          preparedTransactionOffset: a.preparedTransactionOffset,
          reconsumeTimes: a.reconsumeTimes,
          body: Array.from(a.body),
          properties: a.properties,
          storeSize: bytes.length,
        });
        const layout = recordLayout(d.sysFlag, d.magicCode, a.body.length, 0, 0);
        // Spec §4.1: BODY's length field at 84 with IPv4 hosts; +12 for an IPv6 born host.
        expect(layout.bodyLength).toBe(a.v6 ? 96 : 84);
        const opts = { checkCrc: true, physicalOffset: a.physicalOffset };
        expect(checkRecord(bytes, 0, bytes.length, opts)).toEqual({ kind: "message", size: bytes.length });
        expect(checkRecord(bytes, 0, bytes.length - 1, opts).kind).toBe("invalid");
        expect(
          checkRecord(bytes, 0, bytes.length, { checkCrc: true, physicalOffset: a.physicalOffset + 1 }).kind,
        ).toBe("invalid");
        if (a.body.length > 0) {
          const bad = bytes.slice();
          bad[layout.body + (a.queueId % a.body.length)]! ^= 0xff;
          expect(checkRecord(bad, 0, bad.length, opts)).toEqual({
            kind: "invalid",
            reason: "body CRC mismatch",
          });
        }
      }),
      { numRuns: 300 },
    );
  });

  test("zeros and a BLANK header are recognised as such", () => {
    const zeros = new Uint8Array(200);
    expect(checkRecord(zeros, 0, 200, { checkCrc: true })).toEqual({
      kind: "invalid",
      reason: "bad magic code",
    });
    const blank = new Uint8Array(64);
    new DataView(blank.buffer).setInt32(0, 64);
    new DataView(blank.buffer).setInt32(4, MagicCode.BLANK);
    expect(checkRecord(blank, 0, 64, { checkCrc: true })).toEqual({ kind: "blank", size: 64 });
  });
});

describe("stored record properties", () => {
  test("properties are stored as their UTF-8 bytes, ASCII or not, and the length field counts bytes", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 60 }), (properties) => {
        const bytes = encodeRecord(
          { ...base, properties },
          { queueOffset: 0, physicalOffset: 0, storeTimestamp: 0 },
        );
        const utf8 = new TextEncoder().encode(properties);
        const L = recordLayout(0, MagicCode.MESSAGE, 2, 1, utf8.length);
        const dv = new DataView(bytes.buffer);
        expect(bytes.length).toBe(L.totalSize);
        expect(dv.getInt16(L.propertiesLength)).toBe(utf8.length);
        expect(bytes.subarray(L.properties)).toEqual(utf8);
        expect(decodeRecord(bytes).propertiesString).toBe(properties);
      }),
    );
  });
});
