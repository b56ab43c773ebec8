/**
 * LOCK_BATCH_MQ (41) and UNLOCK_BATCH_MQ (42) as raw frames against a real broker, in both header
 * serializations (spec broker §8.9). Request bodies are written out as Java's fastjson writes a
 * LockBatchRequestBody, not through our encoder, so the broker is shown to read Java's layout.
 */
import { describe, expect, test } from "bun:test";
import { RequestCode as R, type RemotingClient, ResponseCode } from "../../src/remoting/index.ts";
import {
  decodeRecords,
  heartbeatBody,
  json,
  pullRequest,
  request,
  SERIALIZE_TYPES,
  sendRequest,
  startBroker,
  waitFor,
} from "./harness.ts";

const utf8 = new TextEncoder();
const BROKER = "broker-it";

/** A LockBatchRequestBody / UnlockBatchRequestBody exactly as a Java 4.9 client encodes it. */
function javaBody(clientId: string, queueIds: number[], group = "OG"): Uint8Array {
  const mqs = queueIds.map((q) => `{"brokerName":"${BROKER}","queueId":${q},"topic":"TOrd"}`).join(",");
  return utf8.encode(
    `{"clientId":"${clientId}","consumerGroup":"${group}","mqSet":[${mqs}],"onlyThisBroker":false}`,
  );
}

describe.each(SERIALIZE_TYPES)("%s headers", (_name, st) => {
  /** The queue ids `clientId` holds after asking for `queueIds`, as the broker answered them. */
  async function lock(c: RemotingClient, addr: string, clientId: string, queueIds: number[]) {
    const r = await c.invoke(addr, request(R.LOCK_BATCH_MQ, null, javaBody(clientId, queueIds), st));
    expect({ code: r.code, remark: r.remark, serializeType: r.serializeType }).toEqual({
      code: ResponseCode.SUCCESS,
      remark: null,
      serializeType: st,
    });
    const body = json(r.body) as { lockOKMQSet: { brokerName: string; queueId: number; topic: string }[] };
    for (const mq of body.lockOKMQSet)
      expect({ topic: mq.topic, brokerName: mq.brokerName }).toEqual({ topic: "TOrd", brokerName: BROKER });
    return body.lockOKMQSet.map((mq) => mq.queueId).sort();
  }

  const unlock = (c: RemotingClient, addr: string, clientId: string, queueIds: number[]) =>
    c.invoke(addr, request(R.UNLOCK_BATCH_MQ, null, javaBody(clientId, queueIds), st));

  test("lock, relock by the owner, conflict, unlock by a non-owner ignored, unlock by the owner", async () => {
    await using h = await startBroker();
    const a = h.client();
    const b = h.client();
    const transcript = {
      aLocks: await lock(a, h.addr, "A@1", [0, 1]),
      aRelocks: await lock(a, h.addr, "A@1", [0, 1]),
      bAsksOverlap: await lock(b, h.addr, "B@1", [0, 2]),
      bUnlocksA: await unlock(b, h.addr, "B@1", [0, 1]).then((r) => [r.code, r.remark, r.body]),
      bStillRefused: await lock(b, h.addr, "B@1", [0, 1]),
      aUnlocksOne: await unlock(a, h.addr, "A@1", [1]).then((r) => [r.code, r.remark, r.body]),
      bTakesFreed: await lock(b, h.addr, "B@1", [0, 1]),
      aRefusedOnB: await lock(a, h.addr, "A@1", [2]),
    };
    expect(transcript).toEqual({
      aLocks: [0, 1],
      aRelocks: [0, 1],
      bAsksOverlap: [2],
      bUnlocksA: [ResponseCode.SUCCESS, null, null],
      bStillRefused: [],
      aUnlocksOne: [ResponseCode.SUCCESS, null, null],
      bTakesFreed: [1],
      aRefusedOnB: [],
    });
  });

  test("the VIP port (where Java clients with vipChannelEnabled send locks) shares the main port's table", async () => {
    await using h = await startBroker();
    const c = h.client();
    expect({
      viaVip: await lock(c, h.vipAddr, "A@1", [0]),
      otherViaMain: await lock(c, h.addr, "B@1", [0]),
      ownerViaMain: await lock(c, h.addr, "A@1", [0]),
    }).toEqual({ viaVip: [0], otherViaMain: [], ownerViaMain: [0] });
  });

  test("another group's lock of the same queue is independent", async () => {
    await using h = await startBroker();
    const c = h.client();
    await lock(c, h.addr, "A@1", [0]);
    const other = await c.invoke(h.addr, request(R.LOCK_BATCH_MQ, null, javaBody("B@1", [0], "OG2"), st));
    expect((json(other.body) as { lockOKMQSet: unknown[] }).lockOKMQSet).toHaveLength(1);
  });

  test("UNLOCK_BATCH_MQ sent oneway frees the queue", async () => {
    await using h = await startBroker();
    const a = h.client();
    const b = h.client();
    expect(await lock(a, h.addr, "A@1", [3])).toEqual([3]);
    await a.invokeOneway(h.addr, request(R.UNLOCK_BATCH_MQ, null, javaBody("A@1", [3]), st));
    await waitFor("B takes the unlocked queue", async () => (await lock(b, h.addr, "B@1", [3])).length === 1);
  });

  test("an expired lock moves to the asker; the old owner's relock is then refused", async () => {
    const maxLiveMs = 300;
    await using h = await startBroker({ "rocketmq.broker.rebalance.lockMaxLiveTime": String(maxLiveMs) });
    const a = h.client();
    const b = h.client();
    expect(await lock(a, h.addr, "A@1", [0])).toEqual([0]);
    const lockedAt = Date.now();
    expect(await lock(b, h.addr, "B@1", [0])).toEqual([]);
    await waitFor(
      "the lock expires and B takes it",
      async () => (await lock(b, h.addr, "B@1", [0])).length === 1,
    );
    expect({
      waitedAtLeastTheExpiry: Date.now() - lockedAt >= maxLiveMs,
      aRelock: await lock(a, h.addr, "A@1", [0]),
    }).toEqual({ waitedAtLeastTheExpiry: true, aRelock: [] });
  });

  test("the locks of a connection are released when it closes", async () => {
    await using h = await startBroker();
    const a = h.client();
    const b = h.client();
    expect(await lock(a, h.addr, "A@1", [0, 1, 2])).toEqual([0, 1, 2]);
    expect(await lock(b, h.addr, "B@1", [0, 1, 2])).toEqual([]);
    await a.shutdown();
    await waitFor("B takes A's queues", async () => (await lock(b, h.addr, "B@1", [0, 1, 2])).length === 3);
    expect(
      h.broker.context.locks.holder("OG", { topic: "TOrd", brokerName: BROKER, queueId: 1 })?.clientId,
    ).toBe("B@1");
  });

  test("with rebalanceLockReleaseOnClose=false a closed connection's locks stay until they expire (Apache's way)", async () => {
    await using h = await startBroker({
      rebalanceLockReleaseOnClose: "false",
      "rocketmq.broker.rebalance.lockMaxLiveTime": "1000",
    });
    const a = h.client();
    const b = h.client();
    const hb = heartbeatBody("A@1", { group: "OG", topic: "TOrd" });
    expect((await a.invoke(h.addr, request(R.HEART_BEAT, null, hb, st))).code).toBe(ResponseCode.SUCCESS);
    expect(await lock(a, h.addr, "A@1", [0])).toEqual([0]);
    await a.shutdown();
    // The broker has seen the close once A's channel left the group.
    await waitFor("A's connection closed at the broker", () => !h.broker.context.clients.consumerGroup("OG"));
    expect(await lock(b, h.addr, "B@1", [0])).toEqual([]);
    await waitFor(
      "the lock expires and B takes it",
      async () => (await lock(b, h.addr, "B@1", [0])).length === 1,
    );
  });

  test("the locks of a client whose heartbeat expired are released with its connection", async () => {
    await using h = await startBroker();
    const a = h.client();
    const b = h.client();
    const hb = await a.invoke(
      h.addr,
      request(R.HEART_BEAT, null, heartbeatBody("A@1", { group: "OG", topic: "TOrd" }), st),
    );
    expect(hb.code).toBe(ResponseCode.SUCCESS);
    expect(await lock(a, h.addr, "A@1", [0, 1])).toEqual([0, 1]);
    // The 10 s scan, run now with a clock two minutes ahead: A's last heartbeat is too old.
    const expired = h.broker.context.clients.scanExpired(Date.now() + 121_000, 120_000);
    expect(expired).toHaveLength(1);
    await waitFor("B takes A's queues", async () => (await lock(b, h.addr, "B@1", [0, 1])).length === 2);
  });

  test("[5.x] a retry send of a group holding a lock goes to its DLQ; without locks it stays a retry", async () => {
    await using h = await startBroker();
    const c = h.client();
    const send = async (body: string) => {
      const r = await c.invoke(h.addr, sendRequest({ topic: "%RETRY%OG", body, queueId: 0 }, st));
      expect([r.code, r.remark]).toEqual([ResponseCode.SUCCESS, null]);
    };
    const stored = async (topic: string) => {
      const r = await c.invoke(h.addr, pullRequest({ group: "PEEK", topic, queueId: 0, offset: 0 }, st));
      return decodeRecords(r.body).map((m) => [m.topic, new TextDecoder().decode(m.body)]);
    };
    expect(await lock(c, h.addr, "A@1", [0])).toEqual([0]);
    await send("while locked");
    expect(await unlock(c, h.addr, "A@1", [0]).then((r) => r.code)).toBe(ResponseCode.SUCCESS);
    await send("after unlock");
    expect({ dlq: await stored("%DLQ%OG"), retry: await stored("%RETRY%OG") }).toEqual({
      dlq: [["%DLQ%OG", "while locked"]],
      retry: [["%RETRY%OG", "after unlock"]],
    });
  });

  test("a body that is not a LockBatchRequestBody answers SYSTEM_ERROR naming the problem", async () => {
    await using h = await startBroker();
    const c = h.client();
    const answers = [];
    for (const body of [
      "not json",
      `{"consumerGroup":"OG","mqSet":[]}`,
      `{"consumerGroup":"OG","clientId":"A","mqSet":[{"topic":"T"}]}`,
    ]) {
      const r = await c.invoke(h.addr, request(R.LOCK_BATCH_MQ, null, utf8.encode(body), st));
      answers.push([r.code, r.remark]);
    }
    expect(answers).toEqual([
      [ResponseCode.SYSTEM_ERROR, `bad LockBatchRequestBody: unexpected character "n" at offset 0`],
      [ResponseCode.SYSTEM_ERROR, "bad LockBatchRequestBody: clientId: expected a string, got undefined"],
      [
        ResponseCode.SYSTEM_ERROR,
        "bad LockBatchRequestBody: mqSet[0].brokerName: expected a string, got undefined",
      ],
    ]);
  });
});
