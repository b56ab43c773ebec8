/**
 * CONSUMER_SEND_MSG_BACK (36) as raw frames in both serializations (spec broker §9.2): the copy
 * waits its delay level, then sits in %RETRY%<group> with the count, RETRY_TOPIC and
 * ORIGIN_MESSAGE_ID; past the maximum (header, or group for old clients) or with delayLevel −1 it
 * goes to %DLQ%<group> at once; bad input gets Java's codes and remarks.
 */
import { describe, expect, test } from "bun:test";
import { RemotingClient, ResponseCode } from "../../src/remoting/index.ts";
import { createTopic, request, SERIALIZE_TYPES, silent, startBroker, waitFor } from "./harness.ts";
import {
  createGroup,
  propsOf,
  records,
  sendBackRequest,
  sendOk,
  topicConfigOf,
  waitRecords,
} from "./redelivery-support.ts";

/** Level 3 (a first retry) waits 1 s, level 4 (a second) 2 s. */
const LEVELS = { messageDelayLevel: "1s 1s 1s 2s 1s" };
const BROKER_KEYS = { CLUSTER: "DefaultCluster", MSG_REGION: "DefaultRegion", TRACE_ON: "true" };

describe.each(SERIALIZE_TYPES)("%s headers", (_name, st) => {
  test("a copy sent back waits its level's delay, then sits in %RETRY%<group> with one more reconsume time, the original topic and id; sent back again it waits the next level", async () => {
    await using h = await startBroker(LEVELS);
    const c = h.client();
    await createTopic(c, h.addr, "TBack", 1);
    await sendOk(c, h.addr, {
      topic: "TBack",
      body: "hello ✓",
      tags: "TagA",
      properties: { UNIQ_KEY: "U1" },
    });
    const [original] = await waitRecords(c, h.addr, "TBack", 0, 1);
    const sentAt = Date.now();
    const back = await c.invoke(
      h.addr,
      sendBackRequest(
        { offset: original!.physicalOffset, group: "GB", delayLevel: 0, originTopic: "TBack" },
        st,
      ),
    );
    expect({ code: back.code, remark: back.remark, serializeType: back.serializeType }).toEqual({
      code: ResponseCode.SUCCESS,
      remark: null,
      serializeType: st,
    });
    expect(await records(c, h.addr, "%RETRY%GB")).toEqual([]);
    const [first] = await waitRecords(c, h.addr, "%RETRY%GB", 0, 1);
    const resentAt = Date.now();
    await c.invoke(
      h.addr,
      sendBackRequest({ offset: first!.physicalOffset, group: "GB", delayLevel: 0 }, st),
    );
    const [, second] = await waitRecords(c, h.addr, "%RETRY%GB", 0, 2);
    const copy = (r: typeof first) => ({
      topic: r!.topic,
      body: new TextDecoder().decode(r!.body),
      reconsumeTimes: r!.reconsumeTimes,
      properties: propsOf(r!),
    });
    const expected = (reconsumeTimes: number) => ({
      topic: "%RETRY%GB",
      body: "hello ✓",
      reconsumeTimes,
      properties: {
        ...BROKER_KEYS,
        UNIQ_KEY: "U1",
        TAGS: "TagA",
        RETRY_TOPIC: "TBack",
        ORIGIN_MESSAGE_ID: original!.msgId,
        REAL_TOPIC: "%RETRY%GB",
        REAL_QID: "0",
        WAIT: "false",
      },
    });
    expect([copy(first), copy(second)]).toEqual([expected(1), expected(2)]);
    // Store times: a copy is never stored before its level's delay has passed.
    expect(first!.storeTimestamp - sentAt).toBeGreaterThanOrEqual(1000);
    expect(second!.storeTimestamp - resentAt).toBeGreaterThanOrEqual(2000);
  });

  test("past the header's maxReconsumeTimes the copy goes to %DLQ%<group> queue 0 at once, a one-queue read-write topic", async () => {
    await using h = await startBroker(LEVELS);
    const c = h.client();
    await createTopic(c, h.addr, "TDlq", 1);
    await sendOk(c, h.addr, { topic: "TDlq", body: "x" });
    const [original] = await waitRecords(c, h.addr, "TDlq", 0, 1);
    const r = await c.invoke(
      h.addr,
      sendBackRequest(
        { offset: original!.physicalOffset, group: "GD", delayLevel: 0, maxReconsumeTimes: 0 },
        st,
      ),
    );
    expect(r.code).toBe(ResponseCode.SUCCESS);
    const [dead] = await records(c, h.addr, "%DLQ%GD");
    expect({ topic: dead?.topic, reconsumeTimes: dead?.reconsumeTimes, props: propsOf(dead!) }).toEqual({
      topic: "%DLQ%GD",
      reconsumeTimes: 1,
      props: {
        ...BROKER_KEYS,
        RETRY_TOPIC: "TDlq",
        ORIGIN_MESSAGE_ID: original!.msgId,
        DELAY: "0",
        WAIT: "false",
      },
    });
    expect(await topicConfigOf(c, h.addr, "%DLQ%GD")).toMatchObject({
      readQueueNums: 1,
      writeQueueNums: 1,
      perm: 6,
    });
  });

  test("delayLevel −1 sends the copy to the dead-letter queue whatever its count", async () => {
    await using h = await startBroker(LEVELS);
    const c = h.client();
    await createTopic(c, h.addr, "TNow", 1);
    await sendOk(c, h.addr, { topic: "TNow", body: "x" });
    const [original] = await waitRecords(c, h.addr, "TNow", 0, 1);
    const r = await c.invoke(
      h.addr,
      sendBackRequest({ offset: original!.physicalOffset, group: "GN", delayLevel: -1 }, st),
    );
    expect(r.code).toBe(ResponseCode.SUCCESS);
    expect((await records(c, h.addr, "%DLQ%GN")).map((m) => m.reconsumeTimes)).toEqual([1]);
    expect(await records(c, h.addr, "%RETRY%GN")).toEqual([]);
  });
});

test("the group's retryMaxTimes decides when the header has no maximum or the client predates V3_4_9; its retryQueueNums sizes the retry topic", async () => {
  await using h = await startBroker(LEVELS);
  const c = h.client();
  const old = new RemotingClient({ name: "v3.4.8", log: silent, version: 120 });
  try {
    await createTopic(c, h.addr, "TGrp", 1);
    await createGroup(c, h.addr, "GG", { retryMaxTimes: 1, retryQueueNums: 3 });
    await sendOk(c, h.addr, { topic: "TGrp", body: "a" });
    await sendOk(c, h.addr, { topic: "TGrp", body: "b" });
    const [a, b] = await waitRecords(c, h.addr, "TGrp", 0, 2);
    // Count 0 < 1: both retried, whatever queue of the three they land in.
    for (const m of [a!, b!])
      await c.invoke(h.addr, sendBackRequest({ offset: m.physicalOffset, group: "GG", delayLevel: 1 }));
    const retried = await waitFor3Queues(c, h.addr, 2);
    // Count 1 ≥ 1: a without a header maximum, b from an old client whose maximum is ignored.
    const [ra, rb] = retried.sort((x, y) => x.body[0]! - y.body[0]!);
    await c.invoke(h.addr, sendBackRequest({ offset: ra!.physicalOffset, group: "GG", delayLevel: 1 }));
    await old.invoke(
      h.addr,
      sendBackRequest({ offset: rb!.physicalOffset, group: "GG", delayLevel: 1, maxReconsumeTimes: 16 }),
    );
    const dead = await records(c, h.addr, "%DLQ%GG");
    expect(dead.map((m) => [new TextDecoder().decode(m.body), m.reconsumeTimes])).toEqual([
      ["a", 2],
      ["b", 2],
    ]);
    expect(await topicConfigOf(c, h.addr, "%RETRY%GG")).toMatchObject({
      readQueueNums: 3,
      writeQueueNums: 3,
    });
  } finally {
    await old.shutdown();
  }
});

/** The records of all three queues of %RETRY%GG once there are `n`. */
async function waitFor3Queues(c: RemotingClient, addr: string, n: number) {
  return waitFor(`${n} retried`, async () => {
    const all = (await Promise.all([0, 1, 2].map((q) => records(c, addr, "%RETRY%GG", q)))).flat();
    return all.length >= n ? all : undefined;
  });
}

test("bad send-backs get Java's answers: unknown offset, unparsable offset, unknown group, a group without retry queues", async () => {
  await using h = await startBroker({ ...LEVELS, autoCreateSubscriptionGroup: "false" });
  const c = h.client();
  await createTopic(c, h.addr, "TBad", 1);
  await createGroup(c, h.addr, "GBad");
  await createGroup(c, h.addr, "IT_READER"); // the group records() pulls with
  await createGroup(c, h.addr, "GNoRetry", { retryQueueNums: 0 });
  await sendOk(c, h.addr, { topic: "TBad", body: "x" });
  const [m] = await waitRecords(c, h.addr, "TBad", 0, 1);
  const answer = async (req: ReturnType<typeof sendBackRequest>) => {
    const r = await c.invoke(h.addr, req);
    return { code: r.code, remark: r.remark };
  };
  expect({
    unknownOffset: await answer(sendBackRequest({ offset: 123456789, group: "GBad", delayLevel: 0 })),
    beyondTheLog: await answer(
      sendBackRequest({ offset: m!.physicalOffset + 1, group: "GBad", delayLevel: 0 }),
    ),
    unparsable: await answer(sendBackRequest({ offset: "12ab", group: "GBad", delayLevel: 0 })),
    unknownGroup: await answer(sendBackRequest({ offset: m!.physicalOffset, group: "NOPE", delayLevel: 0 })),
    noRetryQueue: await answer(
      sendBackRequest({ offset: m!.physicalOffset, group: "GNoRetry", delayLevel: 0 }),
    ),
    noHeader: await answer(request(36)),
  }).toEqual({
    unknownOffset: { code: ResponseCode.SYSTEM_ERROR, remark: "look message by offset failed, 123456789" },
    beyondTheLog: {
      code: ResponseCode.SYSTEM_ERROR,
      remark: `look message by offset failed, ${m!.physicalOffset + 1}`,
    },
    unparsable: {
      code: ResponseCode.SYSTEM_ERROR,
      remark: 'the custom field <offset> is not a number: "12ab"',
    },
    unknownGroup: {
      code: ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST,
      remark: "subscription group not exist, NOPE",
    },
    noRetryQueue: { code: ResponseCode.SUCCESS, remark: null },
    noHeader: { code: ResponseCode.SYSTEM_ERROR, remark: "the custom field <offset> is null" },
  });
  expect(await records(c, h.addr, "%RETRY%GNoRetry")).toEqual([]);
});

test("a backlog of more copies than one schedule round delivers (64) all reach the retry topic", async () => {
  await using h = await startBroker(LEVELS);
  const c = h.client();
  await createTopic(c, h.addr, "TBacklog", 1);
  const n = 300;
  for (let i = 0; i < n; i++) await sendOk(c, h.addr, { topic: "TBacklog", body: `m${i}` });
  const originals = await waitRecords(c, h.addr, "TBacklog", 0, n);
  await Promise.all(
    originals.map(async (r) => {
      const answer = await c.invoke(
        h.addr,
        sendBackRequest({ offset: r.physicalOffset, group: "GB", delayLevel: 0 }),
      );
      expect(answer.code).toBe(ResponseCode.SUCCESS);
    }),
  );
  // All due together after level 3's second: the level must keep delivering round after round.
  expect((await waitRecords(c, h.addr, "%RETRY%GB", 0, n)).length).toBe(n);
});
