/**
 * The maintenance requests mqadmin sends a broker (CLONE_GROUP_OFFSET, GET_SUBSCRIPTIONGROUP_CONFIG,
 * QUERY_CONSUME_QUEUE, CLEAN_UNUSED_TOPIC, CLEAN_EXPIRED_CONSUMEQUEUE, DELETE_EXPIRED_COMMITLOG)
 * and UPDATE_BROKER_CONFIG's run-time keys, as raw frames against a real broker.
 */
import { expect, test } from "bun:test";
import { RequestCode as R, ResponseCode } from "../../src/remoting/index.ts";
import { createTopic, json, request, sendRequest, startBroker } from "./harness.ts";

const utf8 = new TextEncoder();
const answer = (r: { code: number; remark: string | null }) => ({ code: r.code, remark: r.remark });

test("CLONE_GROUP_OFFSET copies a group's offsets of a topic to another group", async () => {
  await using h = await startBroker();
  const c = h.client();
  await createTopic(c, h.addr, "TClone", 2);
  const offsets = h.broker.context.offsets;
  offsets.commit("Src", "TClone", 0, 5);
  offsets.commit("Src", "TClone", 1, 7);
  const r = await c.invoke(
    h.addr,
    request(R.CLONE_GROUP_OFFSET, { srcGroup: "Src", destGroup: "Dst", topic: "TClone", offline: "true" }),
  );
  expect(answer(r)).toEqual({ code: 0, remark: null });
  expect([...offsets.queueOffsets("Dst", "TClone")].sort()).toEqual([
    [0, 5],
    [1, 7],
  ]);
});

test("GET_SUBSCRIPTIONGROUP_CONFIG answers a group's config, or SUBSCRIPTION_GROUP_NOT_EXIST", async () => {
  await using h = await startBroker();
  const c = h.client();
  h.broker.context.groups.findOrCreate("Known", true);
  const known = await c.invoke(h.addr, request(R.GET_SUBSCRIPTIONGROUP_CONFIG, { group: "Known" }));
  expect([known.code, (json(known.body) as { groupName: string }).groupName]).toEqual([0, "Known"]);
  const unknown = await c.invoke(h.addr, request(R.GET_SUBSCRIPTIONGROUP_CONFIG, { group: "Nobody" }));
  expect(answer(unknown)).toEqual({
    code: ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST,
    remark: "No group in this broker",
  });
});

test("QUERY_CONSUME_QUEUE answers the units from an index, and names a missing queue or index", async () => {
  await using h = await startBroker();
  const c = h.client();
  await createTopic(c, h.addr, "TCq", 1);
  for (let i = 0; i < 3; i++) {
    const sent = await c.invoke(h.addr, sendRequest({ topic: "TCq", body: `m${i}`, queueId: 0 }));
    expect(sent.code).toBe(0);
  }
  const query = (queueId: number, index: number, count = 2) =>
    c.invoke(
      h.addr,
      request(R.QUERY_CONSUME_QUEUE, {
        topic: "TCq",
        queueId: String(queueId),
        index: String(index),
        count: String(count),
      }),
    );
  const units = await query(0, 1);
  const body = json(units.body) as { maxQueueIndex: number; minQueueIndex: number; queueData: unknown[] };
  expect([units.code, body.maxQueueIndex, body.minQueueIndex, body.queueData.length]).toEqual([0, 3, 0, 2]);
  expect(body.queueData[0]).toMatchObject({ physicSize: expect.any(Number), eval: false });
  expect(answer(await query(0, 9))).toEqual({ code: 0, remark: "Index 9 of 0@TCq is not exist!" });
  expect(answer(await query(5, 0))).toEqual({
    code: ResponseCode.SYSTEM_ERROR,
    remark: "5@TCq is not exist!",
  });
});

test("CLEAN_UNUSED_TOPIC drops the queues of a topic without a config, and no other", async () => {
  await using h = await startBroker();
  const c = h.client();
  for (const topic of ["TKept", "TGone"]) {
    await createTopic(c, h.addr, topic, 1);
    expect((await c.invoke(h.addr, sendRequest({ topic, body: "x", queueId: 0 }))).code).toBe(0);
  }
  await h.broker.context.topics.delete("TGone");
  const queues = () => h.broker.context.store.getTopicQueues();
  expect([queues().has("TKept"), queues().has("TGone")]).toEqual([true, true]);
  expect(answer(await c.invoke(h.addr, request(R.CLEAN_UNUSED_TOPIC, null)))).toEqual({
    code: 0,
    remark: null,
  });
  expect([queues().has("TKept"), queues().has("TGone")]).toEqual([true, false]);
  for (const code of [R.CLEAN_EXPIRED_CONSUMEQUEUE, R.DELETE_EXPIRED_COMMITLOG])
    expect(answer(await c.invoke(h.addr, request(code, null)))).toEqual({ code: 0, remark: null });
  expect(queues().has("TKept")).toBe(true);
});

test("UPDATE_BROKER_CONFIG applies run-time keys at once, all or nothing", async () => {
  await using h = await startBroker();
  const c = h.client();
  const update = (text: string) => c.invoke(h.addr, request(R.UPDATE_BROKER_CONFIG, null, utf8.encode(text)));
  const config = h.broker.context;
  expect(answer(await update("longPollingEnable=false\nmaxTransferCountOnMessageInMemory=64\n"))).toEqual({
    code: 0,
    remark: null,
  });
  expect([
    config.brokerConfig.longPollingEnable,
    config.storeConfig.maxTransferCountOnMessageInMemory,
  ]).toEqual([false, 64]);
  expect(config.runtimeChanges.entries()).toEqual([
    ["longPollingEnable", "false"],
    ["maxTransferCountOnMessageInMemory", "64"],
  ]);
  // One refused key: nothing of the body is applied.
  expect(answer(await update("longPollingEnable=true\nflushDiskType=SYNC_FLUSH\n"))).toEqual({
    code: ResponseCode.NO_PERMISSION,
    remark: expect.stringContaining("'flushDiskType' cannot be changed at run time"),
  });
  expect(config.brokerConfig.longPollingEnable).toBe(false);
  const shown = new TextDecoder().decode(
    (await c.invoke(h.addr, request(R.GET_BROKER_CONFIG, null))).body ?? new Uint8Array(),
  );
  expect(shown.split("\n")).toContain("longPollingEnable=false");
});
