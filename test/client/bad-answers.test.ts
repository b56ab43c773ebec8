/**
 * A peer whose answers do not decode: a NameServer with garbled route, cluster and topic-list
 * bodies, and a broker whose send answer carries a queue offset that is not a number. Every call
 * rejects with MQClientError (SYSTEM_ERROR) naming the peer and the request, as the errors module
 * promises, never with the decoder's own error.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createAdmin, createProducer, MQClientError } from "../../src/client/index.ts";
import {
  RemotingCommand,
  RemotingServer,
  RequestCode,
  ResponseCode,
  requestCodeName,
} from "../../src/remoting/index.ts";
import { silent } from "../support/silent.ts";

const utf8 = new TextEncoder();
let server: RemotingServer;
let addr = "";

beforeAll(async () => {
  server = new RemotingServer({ name: "bad-peer", listenPort: 0, bindAddress: "127.0.0.1", log: silent });
  const r = server.registry;
  r.register(RequestCode.GET_ROUTEINFO_BY_TOPIC, (req) => {
    if (req.ext("topic") === "Garbled")
      return RemotingCommand.response(ResponseCode.SUCCESS, null, null, utf8.encode('{"brokerDatas":'));
    // A good route to this same server, acting as the broker.
    const route = {
      brokerDatas: [{ brokerName: "b", cluster: "c", brokerAddrs: { 0: addr } }],
      queueDatas: [{ brokerName: "b", perm: 6, readQueueNums: 1, writeQueueNums: 1, topicSysFlag: 0 }],
      filterServerTable: {},
    };
    return RemotingCommand.response(ResponseCode.SUCCESS, null, null, utf8.encode(JSON.stringify(route)));
  });
  r.register(RequestCode.GET_BROKER_CLUSTER_INFO, () =>
    RemotingCommand.response(ResponseCode.SUCCESS, null, null, utf8.encode("[]")),
  );
  r.register(RequestCode.GET_ALL_TOPIC_LIST_FROM_NAMESERVER, () =>
    RemotingCommand.response(ResponseCode.SUCCESS, null, null, utf8.encode("\u0000")),
  );
  r.register(RequestCode.SEND_MESSAGE_V2, () =>
    RemotingCommand.response(ResponseCode.SUCCESS, null, {
      msgId: "7F00000100002A9F0000000000000000",
      queueId: "0",
      queueOffset: "not-a-number",
    }),
  );
  r.register(RequestCode.HEART_BEAT, () => RemotingCommand.response(ResponseCode.SUCCESS));
  r.register(RequestCode.UNREGISTER_CLIENT, () => RemotingCommand.response(ResponseCode.SUCCESS));
  await server.start();
  addr = `127.0.0.1:${server.port}`;
});

afterAll(async () => {
  await server?.stop();
});

/** What a rejected call carried, or "resolved". */
async function failure(p: Promise<unknown>) {
  try {
    await p;
    return "resolved";
  } catch (err) {
    if (!(err instanceof MQClientError)) return `not an MQClientError: ${err}`;
    return {
      code: err.code,
      addr: err.addr,
      request: err.requestCode === undefined ? undefined : requestCodeName(err.requestCode),
      undecodable: err.remark.startsWith("undecodable answer: "),
    };
  }
}

test("bodies and headers that do not decode reject as MQClientError naming the peer and the request", async () => {
  const admin = await createAdmin({ namesrvAddr: addr, log: silent });
  const producer = await createProducer({ namesrvAddr: addr, log: silent });
  try {
    const expected = (request: string) => ({
      code: ResponseCode.SYSTEM_ERROR,
      addr,
      request,
      undecodable: true,
    });
    expect({
      route: await failure(admin.topicRoute("Garbled")),
      clusters: await failure(admin.clusterList()),
      topics: await failure(admin.client.namesrv.allTopics()),
      send: await failure(producer.send({ topic: "Good", body: "x" })),
    }).toEqual({
      route: expected("GET_ROUTEINFO_BY_TOPIC"),
      clusters: expected("GET_BROKER_CLUSTER_INFO"),
      topics: expected("GET_ALL_TOPIC_LIST_FROM_NAMESERVER"),
      send: expected("SEND_MESSAGE_V2"),
    });
  } finally {
    await producer.shutdown();
    await admin.shutdown();
  }
});
