import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import {
  bodyCrc,
  crc32,
  crc32Portable,
  createUniqueIdGenerator,
  decodeBatch,
  decodeOffsetMessageId,
  decodeProperties,
  encodeBatch,
  encodeOffsetMessageId,
  encodeProperties,
  formatHostAddress,
  hostAddress,
  javaStringHash,
  javaStringHashFrom,
  mergeBatchProperties,
  parseHostAddress,
  splitKeys,
  tagsCodeOf,
} from "../../../src/protocol/message/index.ts";

describe("java String.hashCode and tags code", () => {
  test("matches the spec §6.2 examples", () => {
    expect(["TagA", "TagB", "*", "", "中文", "polygenelubricants"].map(javaStringHash)).toEqual([
      2598919, 2598920, 42, 0, 646394, -2147483648,
    ]);
  });
  test("untagged messages have tags code 0; a character outside the BMP hashes as two units", () => {
    expect([tagsCodeOf(undefined), tagsCodeOf(""), tagsCodeOf("a")]).toEqual([0, 0, 97]);
    expect(javaStringHash("😀")).toBe(0xd83d * 31 + 0xde00);
  });
  test("hashing from a prefix's hash equals hashing the concatenation", () => {
    fc.assert(
      fc.property(
        fc.string(),
        fc.string(),
        (a, b) => javaStringHashFrom(javaStringHash(a), b) === javaStringHash(a + b),
      ),
    );
  });
  test("the tags code of a repeated tag is the same as of a fresh one", () => {
    expect([tagsCodeOf("TagA"), tagsCodeOf("TagA"), tagsCodeOf("TagB"), tagsCodeOf("TagA")]).toEqual([
      2598919, 2598919, 2598920, 2598919,
    ]);
  });
});

describe("crc32", () => {
  test("is CRC-32/ISO-HDLC (check value of '123456789' is CBF43926) and native equals portable", () => {
    const check = new TextEncoder().encode("123456789");
    expect([crc32(check), crc32Portable(check)]).toEqual([0xcbf43926, 0xcbf43926]);
    fc.assert(fc.property(fc.uint8Array({ maxLength: 500 }), (b) => crc32(b) === crc32Portable(b)));
  });
  test("BODYCRC clears the sign bit and is 0 for an empty body", () => {
    expect([bodyCrc(new Uint8Array(0)), bodyCrc(new TextEncoder().encode("123456789"))]).toEqual([
      0,
      0xcbf43926 & 0x7fffffff,
    ]);
  });
});

describe("properties", () => {
  test("decodes with or without the trailing separator and drops entries with an empty key or value", () => {
    const want = new Map([
      ["TAGS", "A"],
      ["KEYS", "k1 k2"],
    ]);
    expect(decodeProperties("TAGS\u0001A\u0002KEYS\u0001k1 k2")).toEqual(want);
    expect(decodeProperties("TAGS\u0001A\u0002KEYS\u0001k1 k2\u0002")).toEqual(want);
    expect(decodeProperties("\u0001x\u0002y\u0001\u0002TAGS\u0001A\u0002TAGS\u0001B")).toEqual(
      new Map([["TAGS", "B"]]),
    );
    expect(splitKeys(" k1  k2 ")).toEqual(["k1", "k2"]);
  });
  test("any map of non-empty names and values round-trips", () => {
    const part = fc
      .string({ minLength: 1, maxLength: 10 })
      .filter((s) => !s.includes("\u0001") && !s.includes("\u0002"));
    fc.assert(
      fc.property(fc.array(fc.tuple(part, part), { maxLength: 8 }), (entries) => {
        const m = new Map(entries);
        expect(decodeProperties(encodeProperties(m))).toEqual(m);
      }),
    );
  });
});

describe("message ids and host addresses", () => {
  test("an offset id carries any physical offset up to 2^53 as 16 upper-case hex digits", () => {
    const host = hostAddress("192.168.0.1", 10911);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), (n) => {
        const id = encodeOffsetMessageId(host, n);
        return id === `C0A8000100002A9F${n.toString(16).toUpperCase().padStart(16, "0")}`;
      }),
    );
  });
  test("offset id of 192.168.0.1:10911 at offset 0 is the spec §3.1 example and decodes back", () => {
    const id = encodeOffsetMessageId(hostAddress("192.168.0.1", 10911), 0);
    expect(id).toBe("C0A8000100002A9F0000000000000000");
    expect(encodeOffsetMessageId(hostAddress("10.0.0.2", 10911), 0x12_3456_789a)).toBe(
      "0A00000200002A9F000000123456789A",
    );
    expect(
      decodeOffsetMessageId(encodeOffsetMessageId(parseHostAddress("10.0.0.2:10911"), 2 ** 40 + 5)),
    ).toEqual({
      storeHost: { ip: new Uint8Array([10, 0, 0, 2]), port: 10911 },
      address: "10.0.0.2:10911",
      physicalOffset: 2 ** 40 + 5,
    });
    const v6 = encodeOffsetMessageId(parseHostAddress("[2001:db8::1]:10911"), 77);
    expect(v6.length).toBe(56);
    expect(decodeOffsetMessageId(v6).address).toBe("2001:db8:0:0:0:0:0:1:10911");
  });
  test("IPv4-mapped IPv6 addresses become IPv4; bad literals throw", () => {
    expect(formatHostAddress(hostAddress("::ffff:10.1.2.3", 1))).toBe("10.1.2.3:1");
    expect(() => hostAddress("1.2.3.256", 1)).toThrow();
    expect(() => hostAddress("1::2::3", 1)).toThrow();
  });
  test("unique ids are 32 hex chars with a fixed 20-char prefix and the month time at byte 10", () => {
    const t = new Date(2024, 4, 1, 0, 0, 1).getTime();
    const next = createUniqueIdGenerator({
      ip: new Uint8Array([10, 0, 0, 1]),
      pid: 0x12345,
      instanceHash: -1,
      now: () => t,
    });
    const a = next();
    const b = next();
    expect([a, b]).toEqual(["0A0000012345FFFFFFFF000003E80000", "0A0000012345FFFFFFFF000003E80001"]);
  });
});

describe("batch body", () => {
  test("encode/decode round-trips and a cut body throws", () => {
    const items = [
      { flag: 1, body: new Uint8Array([1, 2, 3]), properties: "UNIQ_KEY\u0001A\u0002" },
      { flag: 0, body: new Uint8Array(0), properties: "" },
    ];
    const bytes = encodeBatch(items);
    expect(bytes.length).toBe(22 + 3 + 11 + 22);
    expect(decodeBatch(bytes)).toEqual(items);
    expect(() => decodeBatch(bytes.subarray(0, bytes.length - 1))).toThrow(RangeError);
  });
  test("inner properties gain the container keys they lack, but never the container UNIQ_KEY", () => {
    expect(
      mergeBatchProperties(
        "UNIQ_KEY\u0001I\u0002TAGS\u0001t",
        "UNIQ_KEY\u0001C\u0002WAIT\u0001true\u0002TAGS\u0001x",
      ),
    ).toBe("UNIQ_KEY\u0001I\u0002TAGS\u0001t\u0002WAIT\u0001true\u0002");
  });
});
