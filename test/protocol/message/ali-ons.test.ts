import { describe, expect, test } from "bun:test";
import { createRequire } from "node:module";
import { encodeRecord, hostAddress } from "../../../src/protocol/message/index.ts";

const require = createRequire(import.meta.url);
const ByteBuffer = require("byte");
const decoder = require("ali-ons/lib/message/message_decoder.js");

describe("ali-ons decodes our records", () => {
  test("two concatenated records (a pull body) decode field for field with ali-ons's own decoder", () => {
    const common = {
      queueId: 1,
      flag: 0,
      sysFlag: 0,
      bornTimestamp: 1700000000123,
      bornHost: hostAddress("::ffff:127.0.0.1", 50000),
      storeHost: hostAddress("10.0.0.9", 10911),
      reconsumeTimes: 0,
      preparedTransactionOffset: 0,
    };
    const a = encodeRecord(
      {
        ...common,
        topic: "orders",
        body: new TextEncoder().encode("hello"),
        properties: "TAGS\u0001TagA\u0002KEYS\u0001k1\u0002",
      },
      { queueOffset: 5, physicalOffset: 4096, storeTimestamp: 1700000000200 },
    );
    const b = encodeRecord(
      { ...common, topic: "orders", body: new TextEncoder().encode("world"), properties: "" },
      { queueOffset: 6, physicalOffset: 4096 + a.length, storeTimestamp: 1700000000201 },
    );
    const body = Buffer.concat([a, b]);
    const msgs = decoder.decodes(ByteBuffer.wrap(body));
    expect(
      msgs.map((m: Record<string, unknown>) => ({
        storeSize: m.storeSize,
        queueId: m.queueId,
        queueOffset: m.queueOffset,
        commitLogOffset: m.commitLogOffset,
        bornTimestamp: m.bornTimestamp,
        bornHost: m.bornHost,
        storeTimestamp: m.storeTimestamp,
        storeHost: m.storeHost,
        topic: m.topic,
        body: String(m.body),
        properties: m.properties,
        msgId: m.msgId,
      })),
    ).toEqual([
      {
        storeSize: a.length,
        queueId: 1,
        queueOffset: 5,
        commitLogOffset: 4096,
        bornTimestamp: 1700000000123,
        bornHost: "127.0.0.1:50000",
        storeTimestamp: 1700000000200,
        storeHost: "10.0.0.9:10911",
        topic: "orders",
        body: "hello",
        properties: { TAGS: "TagA", KEYS: "k1", "": "" },
        msgId: "0A00000900002A9F0000000000001000",
      },
      {
        storeSize: b.length,
        queueId: 1,
        queueOffset: 6,
        commitLogOffset: 4096 + a.length,
        bornTimestamp: 1700000000123,
        bornHost: "127.0.0.1:50000",
        storeTimestamp: 1700000000201,
        storeHost: "10.0.0.9:10911",
        topic: "orders",
        body: "world",
        properties: {},
        msgId: `0A00000900002A9F${(4096 + a.length).toString(16).toUpperCase().padStart(16, "0")}`,
      },
    ]);
  });
});
