/**
 * The requester's side of request-reply: waiting requests settle once, by CORRELATION_ID, or time
 * out with Java's REQUEST_TIMEOUT_EXCEPTION; a PUSH_REPLY_MESSAGE_TO_CLIENT (326) becomes the
 * MessageExt a caller gets (body inflated, ARRIVE_TIME added) and is answered as Java answers it.
 */
import { expect, test } from "bun:test";
import { compressZlib, ZLIB_SYS_FLAG } from "../../src/client/compression.ts";
import { MQClientError } from "../../src/client/errors.ts";
import type { MessageExt } from "../../src/client/message.ts";
import {
  ClientErrorCode,
  RequestFutures,
  receiveReply,
  replyMessageOf,
} from "../../src/client/request-futures.ts";
import { ReplyMessageRequestHeader } from "../../src/protocol/headers/reply.ts";
import { encodeProperties } from "../../src/protocol/message/index.ts";
import { RemotingCommand, RequestCode, ResponseCode } from "../../src/remoting/index.ts";
import { silent } from "../support/silent.ts";

const text = new TextDecoder();

function push(props: Record<string, string>, body: Uint8Array, sysFlag = 0): RemotingCommand {
  const ext = ReplyMessageRequestHeader.encode({
    producerGroup: "PG",
    topic: "C_REPLY_TOPIC",
    defaultTopic: "TBW102",
    defaultTopicQueueNums: 4,
    queueId: 0,
    sysFlag,
    bornTimestamp: 111,
    flag: 7,
    properties: encodeProperties(new Map(Object.entries(props))),
    reconsumeTimes: 2,
    unitMode: false,
    bornHost: "10.0.0.2:5000",
    storeHost: "10.0.0.1:10911",
    storeTimestamp: 222,
  });
  return RemotingCommand.request(RequestCode.PUSH_REPLY_MESSAGE_TO_CLIENT, ext, body);
}

test("a reply settles its own request once; a second reply for it finds nothing", async () => {
  const f = new RequestFutures();
  const a = f.wait("a", "T", 60_000);
  const b = f.wait("b", "T", 60_000);
  const reply = { topic: "R" } as MessageExt;
  expect([f.resolve("b", reply), f.resolve("b", reply), f.size]).toEqual([true, false, 1]);
  expect(await b).toBe(reply);
  f.fail("a", new Error("send failed"));
  expect(await a.catch((e: Error) => e.message)).toBe("send failed");
  expect(f.size).toBe(0);
});

test("no reply in time: REQUEST_TIMEOUT_EXCEPTION naming the topic and the whole timeout", async () => {
  const f = new RequestFutures();
  const err = await f.wait("c", "Orders", 3000, 5).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(MQClientError);
  expect([(err as MQClientError).code, (err as MQClientError).remark, f.size]).toEqual([
    ClientErrorCode.REQUEST_TIMEOUT_EXCEPTION,
    "send request message to <Orders> OK, but wait reply message timeout, 3000 ms.",
    0,
  ]);
  expect(f.resolve("c", {} as MessageExt)).toBe(false);
});

test("failAll rejects every waiting request", async () => {
  const f = new RequestFutures();
  const waits = [f.wait("x", "T", 60_000), f.wait("y", "T", 60_000)];
  f.failAll(new Error("shut down"));
  expect(await Promise.all(waits.map((w) => w.catch((e: Error) => e.message)))).toEqual([
    "shut down",
    "shut down",
  ]);
});

test("a pushed reply reads as a MessageExt: header fields, user properties, ARRIVE_TIME, inflated body", () => {
  const body = new TextEncoder().encode("pong ".repeat(100));
  const msg = replyMessageOf(
    push(
      { CORRELATION_ID: "c1", MSG_TYPE: "reply", KEYS: "k1 k2", UNIQ_KEY: "U1" },
      compressZlib(body),
      ZLIB_SYS_FLAG,
    ),
    999,
  );
  expect({ ...msg, body: text.decode(msg.body) }).toEqual({
    topic: "C_REPLY_TOPIC",
    body: "pong ".repeat(100),
    tags: undefined,
    keys: ["k1", "k2"],
    msgId: "U1",
    offsetMsgId: "",
    properties: {
      CORRELATION_ID: "c1",
      MSG_TYPE: "reply",
      KEYS: "k1 k2",
      UNIQ_KEY: "U1",
      ARRIVE_TIME: "999",
    },
    queueId: 0,
    queueOffset: 0,
    commitLogOffset: 0,
    brokerName: "",
    bornTimestamp: 111,
    bornHost: "10.0.0.2:5000",
    storeTimestamp: 222,
    storeHost: "10.0.0.1:10911",
    reconsumeTimes: 2,
    flag: 7,
    sysFlag: 0,
    bodyCrc: 0,
    storeSize: 0,
  });
});

test("the 326 handler resolves the waiting request and answers SUCCESS, also when none waits", async () => {
  const f = new RequestFutures();
  const waiting = f.wait("c2", "T", 60_000);
  const first = receiveReply(push({ CORRELATION_ID: "c2" }, new TextEncoder().encode("r")), f, silent);
  const late = receiveReply(push({ CORRELATION_ID: "c2" }, new TextEncoder().encode("r")), f, silent);
  expect([first.code, late.code, text.decode((await waiting).body)]).toEqual([
    ResponseCode.SUCCESS,
    ResponseCode.SUCCESS,
    "r",
  ]);
});

test("an unreadable 326 push answers SYSTEM_ERROR with Java's remark", () => {
  const bad = RemotingCommand.request(RequestCode.PUSH_REPLY_MESSAGE_TO_CLIENT, { topic: "T" }, null);
  const r = receiveReply(bad, new RequestFutures(), silent);
  expect([r.code, r.remark]).toEqual([ResponseCode.SYSTEM_ERROR, "process reply message fail"]);
});
