/**
 * RocketMQ 5 timer messages as raw frames in both serializations (spec pop-timer-filter Part B):
 * TIMER_DELAY_MS, TIMER_DELAY_SEC, TIMER_DELIVER_MS and ali-ons' __STARTDELIVERTIME are each
 * delivered to their own topic and queue at their time, never early and within 100 ms; past-due
 * ones are stored at once; bad values get Java's codes; a delay level wins over them.
 */
import { describe, expect, test } from "bun:test";
import { RequestCode, ResponseCode } from "../../src/remoting/index.ts";
import { createTopic, json, request, SERIALIZE_TYPES, sendRequest, startBroker, waitFor } from "./harness.ts";
import { propsOf, records, sendOk, waitRecords } from "./redelivery-support.ts";

/** The promise: a timer is delivered within this many ms after its due time. */
const LATENESS_MS_MAX = 100;
const text = (b: Uint8Array) => new TextDecoder().decode(b);

describe.each(SERIALIZE_TYPES)("%s headers", (_name, st) => {
  test("each timer property delivers to its own queue at its time, never early and within 100 ms, with Java's delivered properties", async () => {
    await using h = await startBroker();
    const c = h.client();
    await createTopic(c, h.addr, "TTimer", 2);
    const now = Date.now();
    const asks: { body: string; props: Record<string, string>; due: number }[] = [
      { body: "ms", props: { TIMER_DELAY_MS: "300" }, due: now + 300 },
      { body: "sec", props: { TIMER_DELAY_SEC: "1" }, due: now + 1000 },
      { body: "abs", props: { TIMER_DELIVER_MS: String(now + 600) }, due: now + 600 },
      { body: "ons", props: { __STARTDELIVERTIME: String(now + 450) }, due: now + 450 },
    ];
    const answers = [];
    for (const a of asks) {
      const props = { ...a.props, UNIQ_KEY: `U-${a.body}`, KEYS: `k-${a.body}` };
      answers.push(
        await sendOk(c, h.addr, { topic: "TTimer", body: a.body, queueId: 1, properties: props }, st),
      );
    }
    // Each answer names the producer's queue, the timer queue's offset and a recall handle.
    expect(answers.map((a) => [a.queueId, a.queueOffset, a.transactionId, typeof a.recallHandle])).toEqual(
      asks.map((a, i) => ["1", String(i), `U-${a.body}`, "string"]),
    );
    expect(await records(c, h.addr, "TTimer", 1)).toEqual([]);
    const got = await waitRecords(c, h.addr, "TTimer", 1, 4);
    expect(got.map((m) => text(m.body))).toEqual(["ms", "ons", "abs", "sec"]);
    for (const m of got) {
      const ask = asks.find((a) => a.body === text(m.body))!;
      // Relative delays count from the broker's receipt, a little after `now`.
      expect(m.storeTimestamp).toBeGreaterThanOrEqual(ask.due);
      expect(m.storeTimestamp - ask.due).toBeLessThan(LATENESS_MS_MAX + 50);
    }
    const abs = propsOf(got[2]!);
    expect(Object.keys(abs).sort()).toEqual(
      [
        "CLUSTER",
        "KEYS",
        "MSG_REGION",
        "TIMER_DELIVER_MS",
        "TIMER_DEQUEUE_MS",
        "TIMER_ENQUEUE_MS",
        "TIMER_OUT_MS",
        "TRACE_ON",
        "UNIQ_KEY",
        "WAIT",
      ].sort(),
    );
    expect({ out: abs.TIMER_OUT_MS, wait: abs.WAIT }).toEqual({ out: String(now + 600 - 1), wait: "false" });
    expect(Number(abs.TIMER_DEQUEUE_MS)).toBeGreaterThanOrEqual(now + 600);
  });
});

test("the absolute time is exact: the delivery lands within 100 ms after TIMER_DELIVER_MS", async () => {
  await using h = await startBroker();
  const c = h.client();
  await createTopic(c, h.addr, "TExact", 1);
  const due = Date.now() + 400;
  await sendOk(c, h.addr, { topic: "TExact", body: "x", properties: { TIMER_DELIVER_MS: String(due) } });
  const [m] = await waitRecords(c, h.addr, "TExact", 0, 1);
  const lateness = m!.storeTimestamp - due;
  expect(lateness >= 0 && lateness <= LATENESS_MS_MAX).toBe(true);
});

test("a timer already due is stored at once as a plain message; a delete entry already due is refused", async () => {
  await using h = await startBroker();
  const c = h.client();
  await createTopic(c, h.addr, "TPast", 1);
  const past = String(Date.now() - 1000);
  await sendOk(c, h.addr, { topic: "TPast", body: "past", properties: { TIMER_DELIVER_MS: past } });
  const [m] = await records(c, h.addr, "TPast");
  expect(propsOf(m!).TIMER_OUT_MS).toBeUndefined();
  const r = await c.invoke(
    h.addr,
    sendRequest({
      topic: "TPast",
      body: "d",
      properties: { TIMER_DELIVER_MS: past, TIMER_DEL_UNIQKEY: "TPast+X" },
    }),
  );
  expect(r.code).toBe(ResponseCode.MESSAGE_ILLEGAL);
});

test("bad timer values get Java's codes: beyond the maximum or unparsable MESSAGE_ILLEGAL, timers disabled SYSTEM_ERROR", async () => {
  await using h = await startBroker({ timerMaxDelaySec: "60" });
  await using off = await startBroker({ timerWheelEnable: "false" });
  const c = h.client();
  await createTopic(c, h.addr, "TBadTimer", 1);
  await createTopic(c, off.addr, "TBadTimer", 1);
  const answer = async (addr: string, props: Record<string, string>) => {
    const r = await c.invoke(addr, sendRequest({ topic: "TBadTimer", body: "x", properties: props }));
    return { code: r.code, remark: r.remark };
  };
  const illegal = {
    code: ResponseCode.MESSAGE_ILLEGAL,
    remark:
      "timer message illegal, the delay time should not be bigger than the max delay 60000ms; or if set del msg, the delay time should be bigger than the current time",
  };
  expect({
    beyond: await answer(h.addr, { TIMER_DELAY_SEC: "61" }),
    beyondAbsolute: await answer(h.addr, { TIMER_DELIVER_MS: String(Date.now() + 120_000) }),
    letters: await answer(h.addr, { TIMER_DELIVER_MS: "abc" }),
    fraction: await answer(h.addr, { TIMER_DELAY_MS: "1.5" }),
    exponent: await answer(h.addr, { TIMER_DELAY_SEC: "1e3" }),
    ons: await answer(h.addr, { __STARTDELIVERTIME: "soon" }),
    disabled: await answer(off.addr, { TIMER_DELAY_MS: "500" }),
  }).toEqual({
    beyond: illegal,
    beyondAbsolute: illegal,
    letters: illegal,
    fraction: illegal,
    exponent: illegal,
    ons: illegal,
    disabled: {
      code: ResponseCode.SYSTEM_ERROR,
      remark: "accurate timer message is not enabled, timerWheelEnable is false",
    },
  });
  expect(await records(c, h.addr, "TBadTimer")).toEqual([]);
});

test("a delay level wins over timer properties, which are removed", async () => {
  await using h = await startBroker({ messageDelayLevel: "1s 2s" });
  const c = h.client();
  await createTopic(c, h.addr, "TBoth", 1);
  const sentAt = Date.now();
  await sendOk(c, h.addr, { topic: "TBoth", body: "x", properties: { DELAY: "1", TIMER_DELAY_SEC: "100" } });
  const [m] = await waitRecords(c, h.addr, "TBoth", 0, 1);
  expect({ props: propsOf(m!).TIMER_DELAY_SEC, waited: m!.storeTimestamp - sentAt >= 1000 }).toEqual({
    props: undefined,
    waited: true,
  });
});

test("runtime info counts the pending timers and how far the timer queue is read", async () => {
  await using h = await startBroker();
  const c = h.client();
  await createTopic(c, h.addr, "TInfo", 1);
  for (let i = 0; i < 3; i++) {
    await sendOk(c, h.addr, { topic: "TInfo", body: `t${i}`, properties: { TIMER_DELAY_SEC: "600" } });
  }
  const info = async () => {
    const r = await c.invoke(h.addr, request(RequestCode.GET_BROKER_RUNTIME_INFO));
    const t = (json(r.body) as { table: Record<string, string> }).table;
    return { pending: t.timerCongestNum, behind: t.timerOffsetBehind, late: t.timerReadBehind };
  };
  const want = { pending: "3", behind: "0", late: "0" };
  await waitFor("the three indexed", async () => JSON.stringify(await info()) === JSON.stringify(want));
  expect(await info()).toEqual(want);
});
