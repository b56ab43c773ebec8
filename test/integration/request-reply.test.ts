/**
 * Request-reply (spec broker §1.10): SEND_REPLY_MESSAGE (324, long header names) and _V2 (325,
 * one-letter names) in both serializations, pushed to the requester's connection with
 * PUSH_REPLY_MESSAGE_TO_CLIENT (326) and stored in `<cluster>_REPLY_TOPIC`; Java's answers when
 * the requester is gone or refuses; and the native client's request() → consumer reply() → reply
 * against an in-process NameServer and broker.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  ClientErrorCode,
  createProducer,
  createPushConsumer,
  type MessageExt,
  MQClientError,
  type Producer,
  type PushConsumer,
} from "../../src/client/index.ts";
import { SendMessageRequestHeader, SendMessageRequestHeaderV2 } from "../../src/protocol/headers/send.ts";
import {
  type RemotingClient,
  RemotingCommand,
  RequestCode,
  ResponseCode,
  type SerializeType,
} from "../../src/remoting/index.ts";
import { refusal } from "../client/harness.ts";
import { type Harness as NamesrvHarness, startNameServer } from "../namesrv/harness.ts";
import {
  type BrokerHarness,
  createTopic,
  decodeRecords,
  heartbeatBody,
  messageProperties,
  pullRequest,
  request,
  SERIALIZE_TYPES,
  silent,
  startBroker,
  waitFor,
} from "./harness.ts";

const CLUSTER = "ReplyIt";
const REPLY_TOPIC = `${CLUSTER}_REPLY_TOPIC`;
const text = new TextDecoder();

/** A reply as a Java replier sends it: 324 with SendMessageRequestHeader, 325 with the V2 names. */
function replyRequest(
  code: number,
  properties: Record<string, string>,
  body: string,
  serializeType: SerializeType,
): RemotingCommand {
  const header = {
    producerGroup: "REPLIER_PG",
    topic: REPLY_TOPIC,
    defaultTopic: "TBW102",
    defaultTopicQueueNums: 4,
    queueId: 0,
    sysFlag: 0,
    bornTimestamp: 1_700_000_000_000,
    flag: 3,
    properties: messageProperties({ properties }),
    reconsumeTimes: 0,
    unitMode: false,
  };
  const ext =
    code === RequestCode.SEND_REPLY_MESSAGE
      ? SendMessageRequestHeader.encode(header)
      : SendMessageRequestHeaderV2.encode(header);
  return request(code, ext, new TextEncoder().encode(body), serializeType);
}

function replyProps(replyTo: string | undefined, correlationId: string): Record<string, string> {
  return {
    MSG_TYPE: "reply",
    CORRELATION_ID: correlationId,
    ...(replyTo !== undefined ? { REPLY_TO_CLIENT: replyTo } : {}),
    TTL: "3000",
  };
}

/** A raw client registered as producer `clientId`; its 326 handler answers `code` and records pushes. */
async function requester(h: BrokerHarness, clientId: string, code: number = ResponseCode.SUCCESS) {
  const c = h.client();
  const pushes: RemotingCommand[] = [];
  c.registry.register(RequestCode.PUSH_REPLY_MESSAGE_TO_CLIENT, (req) => {
    pushes.push(req);
    return RemotingCommand.response(code, code === ResponseCode.SUCCESS ? null : "refused by test");
  });
  const hb = await c.invoke(
    h.addr,
    request(RequestCode.HEART_BEAT, null, heartbeatBody(clientId, undefined, "REQ_PG")),
  );
  expect(hb.code).toBe(ResponseCode.SUCCESS);
  return { c, pushes };
}

/** The stored records of the reply topic from `offset` on. */
async function storedReplies(c: RemotingClient, addr: string, offset: number) {
  const r = await c.invoke(
    addr,
    pullRequest({ group: "REPLY_READER", topic: REPLY_TOPIC, queueId: 0, offset }),
  );
  return decodeRecords(r.body).map((rec) => ({
    queueOffset: rec.queueOffset,
    msgId: rec.msgId,
    body: text.decode(rec.body),
    correlationId: rec.properties.get("CORRELATION_ID"),
    replyTo: rec.properties.get("REPLY_TO_CLIENT"),
  }));
}

describe("SEND_REPLY_MESSAGE on the wire", () => {
  let h: BrokerHarness;
  beforeAll(async () => {
    h = await startBroker({ brokerClusterName: CLUSTER });
  });
  afterAll(async () => {
    await h?.[Symbol.asyncDispose]();
  });

  let n = 0;
  for (const [stName, st] of SERIALIZE_TYPES) {
    for (const code of [RequestCode.SEND_REPLY_MESSAGE, RequestCode.SEND_REPLY_MESSAGE_V2]) {
      test(`${code} in ${stName}: pushed to the requester with 326 (header, properties, body) and stored in the reply topic`, async () => {
        const clientId = `req-${code}-${stName}@1`;
        const { pushes } = await requester(h, clientId);
        const replier = h.client();
        const corr = `corr-${++n}`;
        const before = Date.now();
        const r = await replier.invoke(
          h.addr,
          replyRequest(code, replyProps(clientId, corr), `pong ${corr}`, st),
        );
        expect([r.code, r.remark]).toEqual([ResponseCode.SUCCESS, null]);
        expect(r.serializeType).toBe(st);
        expect(pushes.length).toBe(1);
        const push = pushes[0]!;
        const ext = push.extFields!;
        const props = new Map(
          ext
            .properties!.split("\u0002")
            .filter(Boolean)
            .map((kv) => kv.split("\u0001") as [string, string]),
        );
        expect({
          header: {
            producerGroup: ext.producerGroup,
            topic: ext.topic,
            defaultTopic: ext.defaultTopic,
            defaultTopicQueueNums: ext.defaultTopicQueueNums,
            queueId: ext.queueId,
            sysFlag: ext.sysFlag,
            bornTimestamp: ext.bornTimestamp,
            flag: ext.flag,
            reconsumeTimes: ext.reconsumeTimes,
            unitMode: ext.unitMode,
          },
          hosts: [/^127\.0\.0\.1:\d+$/.test(ext.bornHost!), /^127\.0\.0\.1:\d+$/.test(ext.storeHost!)],
          storedAfterSend: Number(ext.storeTimestamp) >= before,
          props: {
            MSG_TYPE: props.get("MSG_TYPE"),
            CORRELATION_ID: props.get("CORRELATION_ID"),
            REPLY_TO_CLIENT: props.get("REPLY_TO_CLIENT"),
            TTL: props.get("TTL"),
            pushedAfterSend: Number(props.get("PUSH_REPLY_TIME")) >= before,
          },
          body: text.decode(push.body!),
        }).toEqual({
          header: {
            producerGroup: "REPLIER_PG",
            topic: REPLY_TOPIC,
            defaultTopic: "TBW102",
            defaultTopicQueueNums: "4",
            queueId: "0",
            sysFlag: "0",
            bornTimestamp: "1700000000000",
            flag: "3",
            reconsumeTimes: "0",
            unitMode: "false",
          },
          hosts: [true, true],
          storedAfterSend: true,
          props: {
            MSG_TYPE: "reply",
            CORRELATION_ID: corr,
            REPLY_TO_CLIENT: clientId,
            TTL: "3000",
            pushedAfterSend: true,
          },
          body: `pong ${corr}`,
        });
        // The answer names the stored copy, which a reader of the reply topic finds there.
        const offset = Number(r.extFields!.queueOffset);
        const stored = await storedReplies(replier, h.addr, offset);
        expect(stored[0]).toEqual({
          queueOffset: offset,
          msgId: r.extFields!.msgId!,
          body: `pong ${corr}`,
          correlationId: corr,
          replyTo: clientId,
        });
        expect(r.extFields!.queueId).toBe("0");
      });
    }

    test(`requester not connected (${stName}): SYSTEM_ERROR naming the channel, and the reply is stored anyway`, async () => {
      const replier = h.client();
      const corr = `ghost-${stName}`;
      const r = await replier.invoke(
        h.addr,
        replyRequest(RequestCode.SEND_REPLY_MESSAGE_V2, replyProps("ghost@1", corr), "lost", st),
      );
      expect([r.code, r.remark]).toEqual([
        ResponseCode.SYSTEM_ERROR,
        "push reply message fail, channel of <ghost@1> not found.",
      ]);
      const all = await storedReplies(replier, h.addr, 0);
      expect(all.filter((s) => s.correlationId === corr).map((s) => s.body)).toEqual(["lost"]);
    });
  }

  test("a reply without REPLY_TO_CLIENT: SYSTEM_ERROR naming the property", async () => {
    const r = await h
      .client()
      .invoke(
        h.addr,
        replyRequest(
          RequestCode.SEND_REPLY_MESSAGE_V2,
          replyProps(undefined, "c0"),
          "x",
          SERIALIZE_TYPES[0][1],
        ),
      );
    expect([r.code, r.remark]).toEqual([
      ResponseCode.SYSTEM_ERROR,
      "reply message properties[REPLY_TO_CLIENT] is null",
    ]);
  });

  test("a requester that refuses the push: SYSTEM_ERROR with Java's remark", async () => {
    const { pushes } = await requester(h, "refuser@1", ResponseCode.SYSTEM_BUSY);
    const r = await h
      .client()
      .invoke(
        h.addr,
        replyRequest(
          RequestCode.SEND_REPLY_MESSAGE,
          replyProps("refuser@1", "c1"),
          "x",
          SERIALIZE_TYPES[1][1],
        ),
      );
    expect([r.code, r.remark, pushes.length]).toEqual([
      ResponseCode.SYSTEM_ERROR,
      "push reply message to refuser@1fail.",
      1,
    ]);
  });

  test("a requester whose connection closed is not found any more", async () => {
    const { c } = await requester(h, "gone@1");
    await c.shutdown();
    const replier = h.client();
    await waitFor("the broker sees the close", async () => {
      const r = await replier.invoke(
        h.addr,
        replyRequest(
          RequestCode.SEND_REPLY_MESSAGE_V2,
          replyProps("gone@1", "c2"),
          "x",
          SERIALIZE_TYPES[0][1],
        ),
      );
      return r.remark === "push reply message fail, channel of <gone@1> not found.";
    });
  });

  test("a reply to a topic that may not be sent to gets the send path's answer", async () => {
    const req = replyRequest(
      RequestCode.SEND_REPLY_MESSAGE_V2,
      replyProps("x@1", "c3"),
      "x",
      SERIALIZE_TYPES[0][1],
    );
    req.extFields!.b = "SCHEDULE_TOPIC_XXXX";
    const r = await h.client().invoke(h.addr, req);
    expect([r.code, r.remark]).toEqual([
      ResponseCode.NO_PERMISSION,
      "Sending message to topic[SCHEDULE_TOPIC_XXXX] is forbidden.",
    ]);
  });
});

test("storeReplyMessageEnable=false: pushed, not stored, answered with msgId 0 and offset 0", async () => {
  await using h = await startBroker({ brokerClusterName: CLUSTER, storeReplyMessageEnable: "false" });
  const { pushes } = await requester(h, "nostore@1");
  const replier = h.client();
  const r = await replier.invoke(
    h.addr,
    replyRequest(
      RequestCode.SEND_REPLY_MESSAGE_V2,
      replyProps("nostore@1", "c4"),
      "x",
      SERIALIZE_TYPES[0][1],
    ),
  );
  expect({
    code: r.code,
    msgId: r.extFields!.msgId,
    queueOffset: r.extFields!.queueOffset,
    pushes: pushes.length,
  }).toEqual({
    code: ResponseCode.SUCCESS,
    msgId: "0",
    queueOffset: "0",
    pushes: 1,
  });
  expect(await storedReplies(replier, h.addr, 0)).toEqual([]);
});

describe("native client request → consumer reply", () => {
  let ns: NamesrvHarness;
  let h: BrokerHarness;
  const closers: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    ns = await startNameServer();
    h = await startBroker({ brokerClusterName: CLUSTER, namesrvAddr: ns.addr });
  });
  afterAll(async () => {
    for (const close of closers.reverse()) await close().catch(() => {});
    await h?.[Symbol.asyncDispose]();
    await ns?.[Symbol.asyncDispose]();
  });

  async function routedTopic(topic: string): Promise<void> {
    const c = h.client();
    await createTopic(c, h.addr, topic, 2);
    await waitFor(`route of ${topic}`, async () => {
      const r = await c.invoke(ns.addr, request(RequestCode.GET_ROUTEINFO_BY_TOPIC, { topic }));
      return r.code === ResponseCode.SUCCESS;
    });
  }

  async function producer(group: string): Promise<Producer> {
    const p = await createProducer({ namesrvAddr: ns.addr, group, log: silent });
    closers.push(() => p.shutdown());
    return p;
  }

  /** A consumer of `topic` answering every request with `reply(body)`. */
  async function responder(
    topic: string,
    group: string,
    reply: (body: string) => string,
  ): Promise<PushConsumer> {
    const replier = await producer(`${group}_PG`);
    const consumer = await createPushConsumer({
      namesrvAddr: ns.addr,
      log: silent,
      group,
      subscriptions: { [topic]: "*" },
      consumeFromWhere: "CONSUME_FROM_FIRST_OFFSET",
      async onMessage(msgs: MessageExt[]) {
        for (const m of msgs) await replier.reply(m, reply(text.decode(m.body)));
      },
    });
    closers.push(() => consumer.shutdown());
    return consumer;
  }

  test("request() resolves with the consumer's reply, each concurrent request with its own", async () => {
    await routedTopic("RrCalc");
    await responder("RrCalc", "RrCalcG", (body) => `pong ${body}`);
    const requesterP = await producer("RrReqPG");
    const bodies = ["a", "b", "c", "d", "e"];
    const replies = await Promise.all(
      bodies.map((b) => requesterP.request({ topic: "RrCalc", body: b }, { timeoutMs: 15_000 })),
    );
    expect(
      replies.map((m) => ({
        topic: m.topic,
        body: text.decode(m.body),
        type: m.properties.MSG_TYPE,
        replyTo: m.properties.REPLY_TO_CLIENT,
        arrived: Number(m.properties.ARRIVE_TIME) > 0,
      })),
    ).toEqual(
      bodies.map((b) => ({
        topic: REPLY_TOPIC,
        body: `pong ${b}`,
        type: "reply",
        replyTo: requesterP.client.clientId,
        arrived: true,
      })),
    );
    expect(new Set(replies.map((m) => m.properties.CORRELATION_ID)).size).toBe(bodies.length);
    expect(requesterP.client.requests.size).toBe(0);
  });

  test("no reply within the timeout: rejects with REQUEST_TIMEOUT_EXCEPTION and Java's remark", async () => {
    await routedTopic("RrSilent");
    const requesterP = await producer("RrSilentPG");
    const err = await requesterP
      .request({ topic: "RrSilent", body: "hello?" }, { timeoutMs: 500 })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MQClientError);
    expect([(err as MQClientError).code, (err as MQClientError).remark]).toEqual([
      ClientErrorCode.REQUEST_TIMEOUT_EXCEPTION,
      "send request message to <RrSilent> OK, but wait reply message timeout, 500 ms.",
    ]);
    expect(requesterP.client.requests.size).toBe(0);
  });

  test("a request that cannot be sent rejects with the send's error and leaves nothing waiting", async () => {
    const p = await producer("RrBadPG");
    const reserved = await refusal(
      p.request({ topic: "RrCalc", body: "x", properties: { CORRELATION_ID: "mine" } }),
    );
    const illegal = await refusal(p.request({ topic: "bad topic!", body: "x" }));
    expect({ reserved, illegal, waiting: p.client.requests.size }).toEqual({
      reserved: [
        ResponseCode.INVALID_PARAMETER,
        "the property<CORRELATION_ID> is used by system, input another please",
      ],
      illegal: [
        ResponseCode.INVALID_PARAMETER,
        "The specified topic[bad topic!] contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$",
      ],
      waiting: 0,
    });
  });

  test("reply() to a message without CLUSTER is refused with CREATE_REPLY_MESSAGE_EXCEPTION", async () => {
    const p = await producer("RrNoClusterPG");
    const msg = { topic: "x", body: new Uint8Array(1), properties: {} } as unknown as MessageExt;
    const err = (await p.reply(msg, "x").catch((e: unknown) => e)) as MQClientError;
    expect([err.code, err.remark]).toEqual([
      ClientErrorCode.CREATE_REPLY_MESSAGE_EXCEPTION,
      "create reply message fail, requestMessage error, property[CLUSTER] is null.",
    ]);
  });
});
