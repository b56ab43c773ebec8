/**
 * Bad input over real TCP, in both serializations: missing or malformed headers and bodies answer
 * the RocketMQ code with a remark that names the problem, and the broker keeps serving afterwards.
 */
import { describe, expect, test } from "bun:test";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { RequestCode as R, type RemotingCommand, ResponseCode } from "../../src/remoting/index.ts";
import {
  createTopic,
  decodeRecords,
  pullRequest,
  request,
  SERIALIZE_TYPES,
  sendRequest,
  startBroker,
} from "./harness.ts";

const SEND_EXT = { MSG_REGION: "DefaultRegion", TRACE_ON: "true" };
const utf8 = new TextEncoder();

function without(cmd: RemotingCommand, field: string): RemotingCommand {
  delete cmd.extFields![field];
  return cmd;
}

function with_(cmd: RemotingCommand, field: string, value: string): RemotingCommand {
  cmd.extFields![field] = value;
  return cmd;
}

describe.each(SERIALIZE_TYPES)("%s headers", (_name, st) => {
  test("each bad request answers its code and remark, and a good send still succeeds afterwards", async () => {
    await using h = await startBroker();
    const c = h.client();
    await createTopic(c, h.addr, "TBad", 2);
    const pull = () => pullRequest({ group: "G", topic: "TBad", queueId: 0, offset: 0 }, st);
    const send = (extra: Partial<Parameters<typeof sendRequest>[0]> = {}) =>
      sendRequest({ topic: "TBad", body: "x", ...extra }, st);
    const cases: [string, RemotingCommand][] = [
      ["PULL without queueId", without(pull(), "queueId")],
      ["PULL with a non-numeric queueId", with_(pull(), "queueId", "x")],
      ["PULL beyond the queue count", pullRequest({ group: "G", topic: "TBad", queueId: 9, offset: 0 }, st)],
      ["SEND_V2 without b", without(send(), "b")],
      ["SEND_V2 with a non-numeric queueId", with_(send(), "e", "one")],
      ["SEND_V2 beyond the queue count", send({ queueId: 7 })],
      [
        "SEND with the batch flag and a garbage body",
        send({ body: new Uint8Array([1, 2, 3, 4, 5]), batch: true }),
      ],
      ["SEND with an empty body", send({ body: new Uint8Array(0) })],
      ["HEART_BEAT with a garbage body", request(R.HEART_BEAT, null, utf8.encode("garbage{"), st)],
      ["HEART_BEAT without a body", request(R.HEART_BEAT, null, null, st)],
      [
        "QUERY_CONSUMER_OFFSET without consumerGroup",
        request(R.QUERY_CONSUMER_OFFSET, { topic: "TBad" }, null, st),
      ],
      [
        "UPDATE_AND_CREATE_SUBSCRIPTIONGROUP with a garbage body",
        request(R.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP, null, utf8.encode("[1"), st),
      ],
      [
        "UPDATE_AND_CREATE_TOPIC with an illegal name",
        request(
          R.UPDATE_AND_CREATE_TOPIC,
          { topic: "bad topic!", readQueueNums: "1", writeQueueNums: "1", perm: "6" },
          null,
          st,
        ),
      ],
      ["an unknown request code", request(9999, {}, null, st)],
    ];
    const transcript = [];
    for (const [what, cmd] of cases) {
      const r = await c.invoke(h.addr, cmd);
      transcript.push([what, r.code, r.remark?.replace(/producer [\d.:]+$/, "producer <addr>"), r.extFields]);
    }
    expect(transcript).toEqual([
      ["PULL without queueId", ResponseCode.SYSTEM_ERROR, "the custom field <queueId> is null", null],
      [
        "PULL with a non-numeric queueId",
        ResponseCode.SYSTEM_ERROR,
        'the custom field <queueId> is not a number: "x"',
        null,
      ],
      [
        "PULL beyond the queue count",
        ResponseCode.INVALID_PARAMETER,
        "queueId[9] is illegal, topic:[TBad] topicConfig.readQueueNums:[2]",
        null,
      ],
      ["SEND_V2 without b", ResponseCode.SYSTEM_ERROR, "the custom field <b> is null", SEND_EXT],
      [
        "SEND_V2 with a non-numeric queueId",
        ResponseCode.SYSTEM_ERROR,
        'the custom field <e> is not a number: "one"',
        SEND_EXT,
      ],
      [
        "SEND_V2 beyond the queue count",
        ResponseCode.INVALID_PARAMETER,
        "request queueId[7] is illegal, topic[TBad] queues 2, producer <addr>",
        SEND_EXT,
      ],
      [
        "SEND with the batch flag and a garbage body",
        ResponseCode.MESSAGE_ILLEGAL,
        "bad batch body: truncated batch item",
        SEND_EXT,
      ],
      ["SEND with an empty body", ResponseCode.MESSAGE_ILLEGAL, "message body is empty", SEND_EXT],
      [
        "HEART_BEAT with a garbage body",
        ResponseCode.SYSTEM_ERROR,
        'bad HeartbeatData body: JSON Parse error: Unexpected identifier "garbage"',
        null,
      ],
      ["HEART_BEAT without a body", ResponseCode.SYSTEM_ERROR, "bad HeartbeatData body: missing", null],
      [
        "QUERY_CONSUMER_OFFSET without consumerGroup",
        ResponseCode.SYSTEM_ERROR,
        "the custom field <consumerGroup> is null",
        null,
      ],
      [
        "UPDATE_AND_CREATE_SUBSCRIPTIONGROUP with a garbage body",
        ResponseCode.SYSTEM_ERROR,
        "bad SubscriptionGroupConfig body: expected ',' or ']' at offset 2",
        null,
      ],
      [
        "UPDATE_AND_CREATE_TOPIC with an illegal name",
        ResponseCode.INVALID_PARAMETER,
        "The specified topic[bad topic!] contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$",
        null,
      ],
      [
        "an unknown request code",
        ResponseCode.REQUEST_CODE_NOT_SUPPORTED,
        " request type 9999 not supported",
        null,
      ],
    ]);
    const ok = await c.invoke(h.addr, send({ body: "still fine", queueId: 1 }));
    expect({ code: ok.code, queueId: ok.extFields?.queueId, queueOffset: ok.extFields?.queueOffset }).toEqual(
      {
        code: 0,
        queueId: "1",
        queueOffset: "0",
      },
    );
  });
});

test("a connection that sends garbage bytes is closed, and other connections are served", async () => {
  await using h = await startBroker();
  const c = h.client();
  await createTopic(c, h.addr, "TGarbage", 1);
  const [host, port] = h.addr.split(":") as [string, string];
  const closed = Promise.withResolvers<void>();
  const sock = await Bun.connect({
    hostname: host,
    port: Number(port),
    socket: { data() {}, close: () => closed.resolve(), error: () => closed.resolve() },
  });
  // A frame whose header length exceeds its total length.
  sock.write(new Uint8Array([0, 0, 0, 8, 0, 0, 0, 200, 1, 2, 3, 4]));
  await closed.promise;
  const r = await c.invoke(h.addr, sendRequest({ topic: "TGarbage", body: "after garbage" }));
  expect(r.code).toBe(0);
});

test("DELETE_TOPIC_IN_BROKER with a path-like name touches no file: the store and its neighbours stay", async () => {
  await using h = await startBroker();
  const c = h.client();
  await createTopic(c, h.addr, "TKeep", 1);
  expect((await c.invoke(h.addr, sendRequest({ topic: "TKeep", body: "kept", queueId: 0 }))).code).toBe(0);
  const sentinel = join(h.dir, "sentinel");
  await writeFile(sentinel, "here");
  // Relative to the consumequeue directory: ".." is the store, "../.." the broker's home.
  for (const topic of ["..", "../..", "TKeep/../..", "/", "."]) {
    const r = await c.invoke(h.addr, request(R.DELETE_TOPIC_IN_BROKER, { topic }, null));
    expect({ topic, code: r.code }).toEqual({ topic, code: ResponseCode.SUCCESS });
  }
  expect(await readFile(sentinel, "utf8")).toBe("here");
  expect(await readdir(join(h.dir, "store"))).toEqual(expect.arrayContaining(["commitlog", "consumequeue"]));
  const pulled = await c.invoke(h.addr, pullRequest({ group: "G", topic: "TKeep", queueId: 0, offset: 0 }));
  expect(decodeRecords(pulled.body).map((r) => new TextDecoder().decode(r.body))).toEqual(["kept"]);
});
