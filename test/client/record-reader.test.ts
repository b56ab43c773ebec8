import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { compressZlib, ZLIB_SYS_FLAG } from "../../src/client/compression.ts";
import { decodeMessages, type MessageExt, toMessageExt, userProperties } from "../../src/client/message.ts";
import { PulledMessage, putProperties } from "../../src/client/pulled-message.ts";
import { readRecords } from "../../src/client/record-reader.ts";
import {
  decodeRecord,
  encodeProperties,
  encodeRecord,
  parseHostAddress,
  type RecordInput,
} from "../../src/protocol/message/index.ts";

function record(over: Partial<RecordInput>, queueOffset: number): Uint8Array {
  return encodeRecord(
    {
      topic: "T",
      queueId: 3,
      flag: 7,
      sysFlag: 0,
      bornTimestamp: 1_700_000_000_123,
      bornHost: parseHostAddress("10.0.0.9:50123"),
      storeHost: parseHostAddress("127.0.0.1:10911"),
      reconsumeTimes: 2,
      preparedTransactionOffset: 0,
      body: new TextEncoder().encode(`body-${queueOffset}`),
      properties: encodeProperties(
        new Map([
          ["TAGS", "A"],
          ["KEYS", "k1  k2"],
          ["UNIQ_KEY", `U${queueOffset}`],
        ]),
      ),
      ...over,
    },
    { queueOffset, physicalOffset: 5_000_000_000 + queueOffset * 100, storeTimestamp: 1_700_000_000_456 },
  );
}

describe("pull body decoding", () => {
  test("every record decodes to the same MessageExt as decodeRecord + toMessageExt, whatever its shape", () => {
    const parts = [
      record({}, 0),
      record({}, 1),
      record({ topic: "t".repeat(200) }, 2),
      record(
        { bornHost: parseHostAddress("[2001:db8::1]:7"), storeHost: parseHostAddress("[::1]:10911") },
        3,
      ),
      record(
        { properties: "dup\u0001a\u0002dup\u0001b\u0002\u0001x\u0002y\u0001\u0002__proto__\u0001p\u0002" },
        4,
      ),
      record({ body: compressZlib(new TextEncoder().encode("inflated")), sysFlag: ZLIB_SYS_FLAG }, 5),
      record({ bornHost: parseHostAddress("10.0.0.10:50123") }, 6),
    ];
    const body = Buffer.concat([...parts, new Uint8Array(3)]);
    const expected = parts.map((p) => toMessageExt(decodeRecord(p), "broker-a"));
    const got = decodeMessages(body, "broker-a");
    expect(got.every((m) => m instanceof PulledMessage)).toBe(true);
    expect(got.map((m) => (m as PulledMessage).toJSON())).toEqual(expected);
    // Field by field through the getters, as a consumer reads them.
    const fields = Object.keys(expected[0]!) as (keyof MessageExt)[];
    const read = (m: MessageExt): unknown => Object.fromEntries(fields.map((k) => [k, m[k]]));
    expect(got.map(read)).toEqual(expected.map(read));
    expect(got.map((m) => Object.keys(m.properties))).toEqual(expected.map((m) => Object.keys(m.properties)));
    expect(Object.getPrototypeOf(got[4]!.properties)).toBe(Object.prototype);
  });

  test("message bodies are views of the pulled bytes, each exactly its record's body", () => {
    const body = Buffer.concat([record({}, 0), record({}, 1)]);
    const [a, b] = decodeMessages(body, "broker-a");
    expect([a!.body.buffer === body.buffer, b!.body.buffer === body.buffer]).toEqual([true, true]);
    expect([new TextDecoder().decode(a!.body), new TextDecoder().decode(b!.body)]).toEqual([
      "body-0",
      "body-1",
    ]);
  });

  test("lazy fields: spread shows the plain fields, JSON all of them; assignments win; early properties survive the parse", () => {
    const [m] = decodeMessages(record({}, 0), "broker-a") as PulledMessage[];
    const eager = toMessageExt(decodeRecord(record({}, 0)), "broker-a");
    const lazy = ["tags", "keys", "msgId", "offsetMsgId", "properties", "bornHost", "storeHost"];
    expect(Object.keys({ ...m! }).sort()).toEqual(
      Object.keys(eager)
        .filter((k) => !lazy.includes(k))
        .sort(),
    );
    const json = JSON.parse(JSON.stringify(m));
    expect(Object.keys(json)).toEqual(Object.keys(eager));
    expect([json.msgId, json.tags, json.keys, json.storeHost]).toEqual([
      "U0",
      "A",
      ["k1", "k2"],
      "127.0.0.1:10911",
    ]);

    // Set before anything parsed them, then read: both the stored and the added properties.
    putProperties(m!, { MIN_OFFSET: "0" });
    expect(m!.properties).toEqual({ TAGS: "A", KEYS: "k1  k2", UNIQ_KEY: "U0", MIN_OFFSET: "0" });
    putProperties(m!, { MAX_OFFSET: "9" });
    expect(m!.properties.MAX_OFFSET).toBe("9");
    // Several sets before the parse apply in order, the later winning.
    const [n] = decodeMessages(record({}, 1), "broker-a") as PulledMessage[];
    for (const v of ["1", "2", "3", "4"]) putProperties(n!, { X: v, [`K${v}`]: v });
    expect(n!.properties).toMatchObject({ X: "4", K1: "1", K2: "2", K3: "3", K4: "4", TAGS: "A" });

    m!.tags = "B";
    m!.msgId = "mine";
    m!.properties = { X: "1" };
    expect([m!.tags, m!.msgId, m!.properties]).toEqual(["B", "mine", { X: "1" }]);
    expect(({ ...m! } as Record<string, unknown>).tags).toBe("B"); // an assigned field is an own one
    // offsetMsgId is the offset id of the record, the same as the eager decoder's.
    expect(m!.offsetMsgId).toBe(eager.offsetMsgId);
  });

  test("a corrupt body never throws: the records wholly before the first bad byte decode as before, the rest is cut", () => {
    const parts = [record({}, 0), record({ topic: "t".repeat(150) }, 1), record({}, 2), record({}, 3)];
    const good = new Uint8Array(Buffer.concat(parts));
    const ends = parts.map((_, i) => parts.slice(0, i + 1).reduce((n, p) => n + p.length, 0));
    const original = readRecords(good, "b").messages.map((m) => (m as PulledMessage).toJSON());
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(good.length - 1), fc.nat(255)), { minLength: 1, maxLength: 4 }),
        (flips) => {
          const bytes = new Uint8Array(good);
          for (const [at, value] of flips) bytes[at] = value;
          const first = Math.min(...flips.filter(([at, v]) => good[at] !== v).map(([at]) => at));
          const read = readRecords(bytes, "b");
          // Lazy fields are read too: they must not throw either.
          const got = read.messages.map((m) => JSON.parse(JSON.stringify(m)));
          const intact = ends.filter((end) => end <= first).length;
          expect(got.slice(0, intact)).toEqual(JSON.parse(JSON.stringify(original.slice(0, intact))));
          // Each decoded record spans the size it declares (a corrupt size may swallow the next).
          expect(read.decodedBytes).toBe(read.messages.reduce((n, m) => n + m.storeSize, 0));
        },
      ),
      { numRuns: 2000 },
    );
    expect(readRecords(good, "b").decodedBytes).toBe(good.length);
  });
});

test("userProperties keeps a consumed message's own properties in order, drops the reserved ones, and keeps __proto__ as an own property", () => {
  const [m] = decodeMessages(
    record(
      {
        properties:
          "b\u00012\u0002TAGS\u0001t\u0002a\u00011\u0002UNIQ_KEY\u0001U\u0002__proto__\u0001p\u0002",
      },
      1,
    ),
    "broker-a",
  );
  const user = userProperties(m!);
  expect(Object.keys(user)).toEqual(["b", "a", "__proto__"]);
  expect(Object.getPrototypeOf(user)).toBe(Object.prototype);
  expect(Object.getOwnPropertyDescriptor(user, "__proto__")?.value).toBe("p");
  expect([user.b, user.a]).toEqual(["2", "1"]);
});
