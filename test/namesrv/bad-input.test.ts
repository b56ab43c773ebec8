import { expect, test } from "bun:test";
import {
  decodeFrame,
  encodeFrame,
  FrameDecoder,
  RemotingCommand,
  RequestCode,
  ResponseCode,
} from "../../src/remoting/index.ts";
import { registerRequest, request, startNameServer, topicConfig } from "./harness.ts";

const GOOD = {
  brokerName: "broker-a",
  brokerAddr: "10.0.0.1:10911",
  topics: [topicConfig("T"), topicConfig("broker-a")],
};

test("a missing required header field answers SYSTEM_ERROR naming the field, and the server keeps serving", async () => {
  await using h = await startNameServer();
  const c = h.client();
  const cases: Array<[number, Record<string, string> | null, string]> = [
    [RequestCode.GET_ROUTEINFO_BY_TOPIC, null, "the custom field <topic> is null"],
    [RequestCode.REGISTER_BROKER, { brokerName: "b" }, "the custom field <brokerAddr> is null"],
    [RequestCode.GET_KV_CONFIG, { namespace: "ns" }, "the custom field <key> is null"],
    [
      RequestCode.UNREGISTER_BROKER,
      { brokerName: "b", brokerAddr: "a", clusterName: "c", brokerId: "x" },
      'the custom field <brokerId> is not a number: "x"',
    ],
  ];
  for (const [code, ext, remark] of cases) {
    const reply = await c.invoke(h.addr, request(code, ext));
    expect({ code: reply.code, remark: reply.remark }).toEqual({ code: ResponseCode.SYSTEM_ERROR, remark });
  }
  expect((await c.invoke(h.addr, registerRequest(GOOD))).code).toBe(ResponseCode.SUCCESS);
});

test("a malformed registration or data-version body answers SYSTEM_ERROR naming the body", async () => {
  await using h = await startNameServer();
  const c = h.client();
  const bad = registerRequest(GOOD);
  bad.body = new TextEncoder().encode(
    '{"topicConfigSerializeWrapper":{"topicConfigTable":{"T":{"perm":"rw"}}}}',
  );
  bad.extFields!.bodyCrc32 = "0";
  const reply = await c.invoke(h.addr, bad);
  expect({ code: reply.code, remark: reply.remark }).toEqual({
    code: ResponseCode.SYSTEM_ERROR,
    remark:
      'Failed to decode RegisterBrokerBody: topicConfigSerializeWrapper.topicConfigTable.T.perm: expected an integer, got "rw"',
  });
  const garbage = registerRequest(GOOD);
  garbage.body = new TextEncoder().encode("{not json");
  garbage.extFields!.bodyCrc32 = "0";
  expect((await c.invoke(h.addr, garbage)).remark).toStartWith("Failed to decode RegisterBrokerBody: ");
  const notZlib = registerRequest(GOOD);
  notZlib.extFields!.compressed = "true";
  notZlib.extFields!.bodyCrc32 = "0";
  expect((await c.invoke(h.addr, notZlib)).remark).toStartWith("Failed to decode RegisterBrokerBody: ");
  const noBody = await c.invoke(
    h.addr,
    request(RequestCode.QUERY_DATA_VERSION, {
      brokerName: "b",
      brokerAddr: "a",
      clusterName: "c",
      brokerId: "0",
    }),
  );
  expect({ code: noBody.code, remark: noBody.remark }).toEqual({
    code: 1,
    remark: "Failed to decode DataVersion: no body",
  });
  expect((await c.invoke(h.addr, registerRequest(GOOD))).code).toBe(ResponseCode.SUCCESS);
});

test("an unknown request code answers 3 with Java's remark", async () => {
  await using h = await startNameServer();
  const reply = await h.client().invoke(h.addr, request(RequestCode.SEND_MESSAGE, { topic: "T" }));
  expect({ code: reply.code, remark: reply.remark }).toEqual({
    code: ResponseCode.REQUEST_CODE_NOT_SUPPORTED,
    remark: " request type 10 not supported",
  });
});

test("a garbage frame closes only its own connection; the next connection is served", async () => {
  await using h = await startNameServer();
  const closed = Promise.withResolvers<void>();
  const socket = await Bun.connect({
    hostname: "127.0.0.1",
    port: h.ns.port,
    socket: { data() {}, close: () => closed.resolve(), error: () => closed.resolve() },
  });
  // A header length larger than the frame.
  socket.write(new Uint8Array([0, 0, 0, 8, 0, 0, 0, 200, 1, 2, 3, 4]));
  await closed.promise;

  const replies = Promise.withResolvers<RemotingCommand>();
  const decoder = new FrameDecoder();
  const raw = await Bun.connect({
    hostname: "127.0.0.1",
    port: h.ns.port,
    socket: {
      data(_s, chunk) {
        const [frame] = decoder.push(chunk);
        if (frame) replies.resolve(decodeFrame(frame));
      },
    },
  });
  const req = RemotingCommand.request(RequestCode.GET_ROUTEINFO_BY_TOPIC, { topic: "nope" });
  req.opaque = 7;
  raw.write(encodeFrame(req));
  const reply = await replies.promise;
  raw.end();
  expect({ code: reply.code, opaque: reply.opaque }).toEqual({
    code: ResponseCode.TOPIC_NOT_EXIST,
    opaque: 7,
  });
});
