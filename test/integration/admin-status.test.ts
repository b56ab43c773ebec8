/**
 * GET_ALL_DELAY_OFFSET (45), INVOKE_BROKER_TO_GET_CONSUMER_STATUS (223) and QUERY_CORRECTION_OFFSET
 * (308) as raw frames against a real broker, in both serializations: answers compared whole, with
 * Java's body text (fastjson's bare number keys and MessageQueue object keys) and remarks.
 */
import { describe, expect, test } from "bun:test";
import { encodeClientStatusBody } from "../../src/protocol/body/consumer-status.ts";
import { parseJson } from "../../src/protocol/json/index.ts";
import {
  RequestCode as R,
  RemotingClient,
  RemotingCommand,
  ResponseCode,
  type SerializeType,
} from "../../src/remoting/index.ts";
import {
  createTopic,
  heartbeatBody,
  request,
  SERIALIZE_TYPES,
  sendRequest,
  silent,
  startBroker,
  waitFor,
} from "./harness.ts";
import { records } from "./redelivery-support.ts";

const text = (b: Uint8Array | null) => new TextDecoder().decode(b ?? new Uint8Array());
const answer = (r: RemotingCommand) => ({ code: r.code, remark: r.remark });
const mq = (topic: string, queueId: number) =>
  `{"brokerName":"broker-it","queueId":${queueId},"topic":${JSON.stringify(topic)}}`;

/** Registers `c` as consumer `clientId` of `group` on `topic` (its connection is the one asked). */
async function joinGroup(c: RemotingClient, addr: string, clientId: string, group: string, topic: string) {
  const r = await c.invoke(addr, request(R.HEART_BEAT, null, heartbeatBody(clientId, { group, topic })));
  if (r.code !== 0) throw new Error(`heartbeat: ${r.code} ${r.remark}`);
}

describe.each(SERIALIZE_TYPES)("%s headers", (_name, st: SerializeType) => {
  const req = (code: number, ext: Record<string, string> | null = null) => request(code, ext, null, st);

  test("GET_ALL_DELAY_OFFSET: empty before any delivery; a delivered delayed message moves its level's offset", async () => {
    await using h = await startBroker({ messageDelayLevel: "1s 2s 3s" });
    const c = h.client();
    const before = await c.invoke(h.addr, req(R.GET_ALL_DELAY_OFFSET));
    expect({ ...answer(before), body: parseJson(text(before.body)) }).toEqual({
      code: ResponseCode.SUCCESS,
      remark: null,
      body: {
        dataVersion: { counter: 0, stateVersion: 0, timestamp: expect.any(Number) },
        offsetTable: {},
      },
    });
    await createTopic(c, h.addr, "TDelayed", 1);
    const sent = await c.invoke(
      h.addr,
      sendRequest({ topic: "TDelayed", body: "later", properties: { DELAY: "1" } }, st),
    );
    expect(sent.code).toBe(ResponseCode.SUCCESS);
    const after = await waitFor("level 1 delivered", async () => {
      const r = await c.invoke(h.addr, req(R.GET_ALL_DELAY_OFFSET));
      return text(r.body).includes('"offsetTable":{1:1}') ? r : null;
    });
    // fastjson writes the Integer-keyed table with bare keys; Java slaves and tools read exactly that.
    expect(text(after.body)).toMatch(
      /^\{"dataVersion":\{"counter":[1-9]\d*,"stateVersion":0,"timestamp":\d+\},"offsetTable":\{1:1\}\}$/,
    );
    expect((await records(c, h.addr, "TDelayed", 0)).map((m) => text(m.body))).toEqual(["later"]);
  });

  test("INVOKE_BROKER_TO_GET_CONSUMER_STATUS asks each consumer with 221 and answers the tables of those that answer, by client id", async () => {
    await using h = await startBroker();
    const admin = h.client();
    await createTopic(admin, h.addr, "TStatus", 2);
    // it@a answers as Java's ClientRemotingProcessor.getConsumeStatus; it@b fails; it@c has no 221.
    const asked: RemotingCommand[] = [];
    const a = h.client();
    a.registry.register(R.GET_CONSUMER_STATUS_FROM_CLIENT, (forwarded) => {
      asked.push(forwarded);
      const body = encodeClientStatusBody([
        [{ topic: "TStatus", brokerName: "broker-it", queueId: 0 }, 7],
        [{ topic: "TStatus", brokerName: "broker-it", queueId: 1 }, 3],
      ]);
      return RemotingCommand.response(ResponseCode.SUCCESS, null, null, body);
    });
    const b = h.client();
    b.registry.register(R.GET_CONSUMER_STATUS_FROM_CLIENT, () =>
      RemotingCommand.response(ResponseCode.SYSTEM_ERROR, "no offset store"),
    );
    const cc = h.client();
    await joinGroup(a, h.addr, "it@a", "GStatus", "TStatus");
    await joinGroup(b, h.addr, "it@b", "GStatus", "TStatus");
    await joinGroup(cc, h.addr, "it@c", "GStatus", "TStatus");

    const status = (ext: Record<string, string>) =>
      admin.invoke(h.addr, req(R.INVOKE_BROKER_TO_GET_CONSUMER_STATUS, ext));
    const all = await status({ topic: "TStatus", group: "GStatus" });
    expect({ ...answer(all), body: text(all.body) }).toEqual({
      code: ResponseCode.SUCCESS,
      remark: null,
      body: `{"consumerTable":{"it@a":{${mq("TStatus", 0)}:7,${mq("TStatus", 1)}:3}},"messageQueueTable":{}}`,
    });
    expect(
      asked.map((f) => ({ code: f.code, topic: f.extFields?.topic, group: f.extFields?.group })),
    ).toEqual([{ code: R.GET_CONSUMER_STATUS_FROM_CLIENT, topic: "TStatus", group: "GStatus" }]);

    // clientAddr names one client by its id: only it is asked.
    const one = await status({ topic: "TStatus", group: "GStatus", clientAddr: "it@b" });
    expect({ ...answer(one), body: text(one.body) }).toEqual({
      code: ResponseCode.SUCCESS,
      remark: null,
      body: '{"consumerTable":{},"messageQueueTable":{}}',
    });
    expect(asked).toHaveLength(1);

    expect(answer(await status({ topic: "TStatus", group: "GNobody" }))).toEqual({
      code: ResponseCode.SYSTEM_ERROR,
      remark: "No Any Consumer online in the consumer group: [GNobody]",
    });
    expect(answer(await status({ topic: "TStatus" }))).toEqual({
      code: ResponseCode.SYSTEM_ERROR,
      remark: "the custom field <group> is null",
    });
  });

  test("INVOKE_BROKER_TO_GET_CONSUMER_STATUS refuses a group with a client older than V3_0_7_SNAPSHOT, naming its version", async () => {
    await using h = await startBroker();
    const admin = h.client();
    await createTopic(admin, h.addr, "TOld", 1);
    const old = new RemotingClient({ name: "old-client", log: silent, version: 27 });
    try {
      await joinGroup(old, h.addr, "it@old", "GOld", "TOld");
      const r = await admin.invoke(
        h.addr,
        req(R.INVOKE_BROKER_TO_GET_CONSUMER_STATUS, { topic: "TOld", group: "GOld" }),
      );
      expect({ ...answer(r), body: r.body }).toEqual({
        code: ResponseCode.SYSTEM_ERROR,
        remark: "the client does not support this feature. version=V3_0_6",
        body: null,
      });
    } finally {
      await old.shutdown();
    }
  });

  test("QUERY_CORRECTION_OFFSET: the lowest offset of the groups outside filterGroups per queue, Long.MAX_VALUE where compareGroup is behind it", async () => {
    await using h = await startBroker();
    const c = h.client();
    await createTopic(c, h.addr, "TCorr", 3);
    const commit = async (group: string, queueId: number, offset: number) => {
      const r = await c.invoke(
        h.addr,
        req(R.UPDATE_CONSUMER_OFFSET, {
          consumerGroup: group,
          topic: "TCorr",
          queueId: String(queueId),
          commitOffset: String(offset),
        }),
      );
      expect(r.code).toBe(ResponseCode.SUCCESS);
    };
    await commit("GA", 0, 5);
    await commit("GA", 1, 2);
    await commit("GB", 0, 3);
    await commit("GB", 1, 7);
    await commit("GB", 2, 4);
    await commit("GC", 0, 1);
    await commit("GOther", 0, 0);
    const query = async (ext: Record<string, string>) => {
      const r = await c.invoke(h.addr, req(R.QUERY_CORRECTION_OFFSET, { topic: "TCorr", ...ext }));
      return { ...answer(r), body: r.body === null ? null : text(r.body) };
    };
    const ok = (body: string) => ({ code: ResponseCode.SUCCESS, remark: null, body });

    // Every group counts when none is filtered; the compare group is then never ahead of the lowest.
    expect(await query({ compareGroup: "GB" })).toEqual(ok('{"correctionOffsets":{0:0,1:2,2:4}}'));
    expect(await query({ compareGroup: "GB", filterGroups: "GC,GOther" })).toEqual(
      ok('{"correctionOffsets":{0:3,1:2,2:4}}'),
    );
    // GB filtered: queue 0's lowest (GA's 5) is past GB's 3, so no correction there; queue 2 has
    // no other group and is left out.
    expect(await query({ compareGroup: "GB", filterGroups: "GB,GC,GOther" })).toEqual(
      ok('{"correctionOffsets":{0:9223372036854775807,1:2}}'),
    );
    expect(await query({ compareGroup: "GNone", filterGroups: "GA,GB,GC,GOther" })).toEqual(
      ok('{"correctionOffsets":{}}'),
    );
    // Leaving groups out reads their offsets; it does not delete them, as Java's table walk does.
    const kept = await c.invoke(
      h.addr,
      req(R.QUERY_CONSUMER_OFFSET, { consumerGroup: "GC", topic: "TCorr", queueId: "0" }),
    );
    expect({ code: kept.code, offset: kept.extFields?.offset }).toEqual({
      code: ResponseCode.SUCCESS,
      offset: "1",
    });
    expect(await query({ filterGroups: "GA" })).toEqual({
      code: ResponseCode.SYSTEM_ERROR,
      remark: "the custom field <compareGroup> is null",
      body: null,
    });
  });
});
