/**
 * Raw frames against a real broker, in both serializations: SEND_MESSAGE (10, long names),
 * SEND_MESSAGE_V2 (310), SEND_BATCH_MESSAGE (320) and the `m=true` batch flag on 310, then pulls
 * with and without tag filters, the send response header, and topic auto-creation.
 */
import { describe, expect, test } from "bun:test";
import { encodeBatch, MessageConst } from "../../src/protocol/message/index.ts";
import { RequestCode, ResponseCode } from "../../src/remoting/index.ts";
import {
  createTopic,
  decodeRecords,
  messageProperties,
  pullRequest,
  SERIALIZE_TYPES,
  sendRequest,
  startBroker,
  summary,
} from "./harness.ts";

const utf8 = new TextEncoder();
const SEND_EXT = { MSG_REGION: "DefaultRegion", TRACE_ON: "true" };

describe.each(SERIALIZE_TYPES)("%s headers", (_name, st) => {
  test("sends with long (10) and short (310) header names are stored with body, tags and keys, and pulled back with the same ids", async () => {
    await using h = await startBroker();
    const c = h.client();
    await createTopic(c, h.addr, "TSend", 2);
    const sent = [];
    const answers = [];
    for (const [i, code] of [
      RequestCode.SEND_MESSAGE,
      RequestCode.SEND_MESSAGE_V2,
      RequestCode.SEND_MESSAGE,
    ].entries()) {
      const r = await c.invoke(
        h.addr,
        sendRequest(
          { topic: "TSend", body: `m${i} ✓`, tags: `Tag${i}`, keys: `k${i} kk${i}`, queueId: 1, code },
          st,
        ),
      );
      answers.push({ code: r.code, remark: r.remark, serializeType: r.serializeType, ext: r.extFields });
      sent.push({
        topic: "TSend",
        queueId: 1,
        queueOffset: i,
        body: `m${i} ✓`,
        tags: `Tag${i}`,
        keys: `k${i} kk${i}`,
        msgId: r.extFields?.msgId ?? "",
      });
    }
    expect(answers).toEqual(
      sent.map((s) => ({
        code: ResponseCode.SUCCESS,
        remark: null,
        serializeType: st,
        ext: { msgId: s.msgId, queueId: "1", queueOffset: String(s.queueOffset), ...SEND_EXT },
      })),
    );
    const pulled = await c.invoke(
      h.addr,
      pullRequest({ group: "G", topic: "TSend", queueId: 1, offset: 0 }, st),
    );
    expect({ code: pulled.code, ext: pulled.extFields }).toEqual({
      code: ResponseCode.SUCCESS,
      ext: { suggestWhichBrokerId: "0", nextBeginOffset: "3", minOffset: "0", maxOffset: "3" },
    });
    expect(decodeRecords(pulled.body).map(summary)).toEqual(sent);
  });

  test("a tag-filtered pull returns exactly the matching messages", async () => {
    await using h = await startBroker();
    const c = h.client();
    await createTopic(c, h.addr, "TTags", 1);
    const tags = ["A", "B", "C", "A", "B", "A"];
    for (const [i, tag] of tags.entries()) {
      await c.invoke(h.addr, sendRequest({ topic: "TTags", body: `b${i}`, tags: tag, queueId: 0 }, st));
    }
    const pulled = await c.invoke(
      h.addr,
      pullRequest({ group: "G", topic: "TTags", queueId: 0, offset: 0, subscription: "A || C" }, st),
    );
    expect({
      code: pulled.code,
      next: pulled.extFields?.nextBeginOffset,
      got: decodeRecords(pulled.body).map((r) => [r.queueOffset, summary(r).tags, summary(r).body]),
    }).toEqual({
      code: ResponseCode.SUCCESS,
      next: "6",
      got: [
        [0, "A", "b0"],
        [2, "C", "b2"],
        [3, "A", "b3"],
        [5, "A", "b5"],
      ],
    });
  });

  test.each([
    ["SEND_BATCH_MESSAGE (320)", RequestCode.SEND_BATCH_MESSAGE],
    ["SEND_MESSAGE_V2 with m=true", RequestCode.SEND_MESSAGE_V2],
  ])(
    "a batch sent as %s is stored as consecutive messages with per-item properties and comma-joined ids",
    async (_label, code) => {
      await using h = await startBroker();
      const c = h.client();
      await createTopic(c, h.addr, "TBatch", 1);
      // One single message first, so the batch starts at queue offset 1.
      await c.invoke(h.addr, sendRequest({ topic: "TBatch", body: "first", queueId: 0 }, st));
      const items = [
        { flag: 0, body: utf8.encode("i0"), properties: messageProperties({ tags: "X", keys: "bk0" }) },
        {
          flag: 7,
          body: utf8.encode("i1"),
          properties: messageProperties({ tags: "Y", properties: { p: "1" } }),
        },
        { flag: 0, body: utf8.encode("i2"), properties: messageProperties({ keys: "bk2" }) },
      ];
      const req = sendRequest(
        {
          topic: "TBatch",
          body: encodeBatch(items),
          queueId: 0,
          code,
          batch: true,
          properties: { WAIT: "true" },
        },
        st,
      );
      const r = await c.invoke(h.addr, req);
      const pulled = await c.invoke(
        h.addr,
        pullRequest({ group: "G", topic: "TBatch", queueId: 0, offset: 1 }, st),
      );
      const records = decodeRecords(pulled.body);
      expect({ code: r.code, ext: r.extFields }).toEqual({
        code: ResponseCode.SUCCESS,
        ext: { msgId: records.map((x) => x.msgId).join(","), queueId: "0", queueOffset: "1", ...SEND_EXT },
      });
      const stored = records.map((x) => ({
        queueOffset: x.queueOffset,
        flag: x.flag,
        body: new TextDecoder().decode(x.body),
        props: Object.fromEntries(x.properties),
      }));
      const broker = {
        CLUSTER: "DefaultCluster",
        MSG_REGION: "DefaultRegion",
        TRACE_ON: "true",
        WAIT: "true",
      };
      expect(stored).toEqual([
        { queueOffset: 1, flag: 0, body: "i0", props: { TAGS: "X", KEYS: "bk0", ...broker } },
        { queueOffset: 2, flag: 7, body: "i1", props: { TAGS: "Y", p: "1", ...broker } },
        { queueOffset: 3, flag: 0, body: "i2", props: { KEYS: "bk2", ...broker } },
      ]);
    },
  );

  test("an unknown topic with auto-create off answers TOPIC_NOT_EXIST, with MSG_REGION and TRACE_ON", async () => {
    await using h = await startBroker({ autoCreateTopicEnable: "false" });
    const c = h.client();
    const r = await c.invoke(h.addr, sendRequest({ topic: "NoSuchTopic", body: "x" }, st));
    expect({
      code: r.code,
      remark: r.remark?.replace(/producer .*\)$/, "producer …)"),
      ext: r.extFields,
    }).toEqual({
      code: ResponseCode.TOPIC_NOT_EXIST,
      remark: "topic[NoSuchTopic] not exist, apply first please! (producer …)",
      ext: SEND_EXT,
    });
  });

  test("an unknown topic with auto-create on is created from TBW102 with the requested queue count", async () => {
    await using h = await startBroker({ autoCreateTopicEnable: "true" });
    const c = h.client();
    const r = await c.invoke(h.addr, sendRequest({ topic: "AutoMade", body: "x", queueId: 2 }, st));
    expect({ code: r.code, queueId: r.extFields?.queueId, queueOffset: r.extFields?.queueOffset }).toEqual({
      code: ResponseCode.SUCCESS,
      queueId: "2",
      queueOffset: "0",
    });
    const tc = h.broker.context.topics.get("AutoMade");
    expect({ read: tc?.readQueueNums, write: tc?.writeQueueNums, perm: tc?.perm }).toEqual({
      read: 4,
      write: 4,
      perm: 6,
    });
  });
});

test("the stored properties of a single send carry the broker's CLUSTER, MSG_REGION and TRACE_ON after the client's", async () => {
  await using h = await startBroker();
  const c = h.client();
  await createTopic(c, h.addr, "TProps", 1);
  await c.invoke(
    h.addr,
    sendRequest({
      topic: "TProps",
      body: "x",
      tags: "T",
      properties: { [MessageConst.UNIQ_KEY]: "U1", a: "b" },
    }),
  );
  const pulled = await c.invoke(h.addr, pullRequest({ group: "G", topic: "TProps", queueId: 0, offset: 0 }));
  expect(decodeRecords(pulled.body).map((r) => r.propertiesString)).toEqual([
    "TAGS\u0001T\u0002UNIQ_KEY\u0001U1\u0002a\u0001b\u0002CLUSTER\u0001DefaultCluster\u0002MSG_REGION\u0001DefaultRegion\u0002TRACE_ON\u0001true\u0002",
  ]);
});
