/**
 * Delay levels as raw frames (spec broker §9.4, §9.5): DELAY n holds a message for level n and then
 * delivers it to its own topic and queue with REAL_TOPIC / REAL_QID kept and DELAY dropped; 0 and
 * negative levels are no delay; levels past the table are clamped; an unparsable level is refused.
 * Progress shows in runtime info and survives a restart without loss or repeat.
 */
import { describe, expect, test } from "bun:test";
import { RequestCode, ResponseCode } from "../../src/remoting/index.ts";
import { createTopic, json, request, SERIALIZE_TYPES, sendRequest, startBroker } from "./harness.ts";
import { propsOf, records, sendOk, waitRecords } from "./redelivery-support.ts";

const LEVELS = { messageDelayLevel: "1s 2s 3s" };
const text = (b: Uint8Array) => new TextDecoder().decode(b);

describe.each(SERIALIZE_TYPES)("%s headers", (_name, st) => {
  test("DELAY 2 waits level 2 and lands in its own queue; 0 and −1 are delivered at once; 99 waits the last level", async () => {
    await using h = await startBroker(LEVELS);
    const c = h.client();
    await createTopic(c, h.addr, "TDelay", 2);
    const sentAt = Date.now();
    const delayed = await sendOk(
      c,
      h.addr,
      { topic: "TDelay", body: "two", queueId: 1, tags: "T2", properties: { DELAY: "2", UNIQ_KEY: "U2" } },
      st,
    );
    await sendOk(c, h.addr, { topic: "TDelay", body: "zero", queueId: 1, properties: { DELAY: "0" } }, st);
    await sendOk(c, h.addr, { topic: "TDelay", body: "minus", queueId: 1, properties: { DELAY: "-1" } }, st);
    await sendOk(
      c,
      h.addr,
      { topic: "TDelay", body: "clamped", queueId: 1, properties: { DELAY: "99" } },
      st,
    );
    // The send answer names the producer's queue and the offset in the level's schedule queue.
    expect({ queueId: delayed.queueId, queueOffset: delayed.queueOffset }).toEqual({
      queueId: "1",
      queueOffset: "0",
    });
    expect((await records(c, h.addr, "TDelay", 1)).map((m) => text(m.body))).toEqual(["zero", "minus"]);
    const all = await waitRecords(c, h.addr, "TDelay", 1, 4, 10_000);
    expect(all.map((m) => text(m.body))).toEqual(["zero", "minus", "two", "clamped"]);
    const [, , two, clamped] = all;
    expect(propsOf(two!)).toEqual({
      UNIQ_KEY: "U2",
      TAGS: "T2",
      REAL_TOPIC: "TDelay",
      REAL_QID: "1",
      WAIT: "false",
      CLUSTER: "DefaultCluster",
      MSG_REGION: "DefaultRegion",
      TRACE_ON: "true",
    });
    expect(two!.storeTimestamp - sentAt).toBeGreaterThanOrEqual(2000);
    expect(clamped!.storeTimestamp - sentAt).toBeGreaterThanOrEqual(3000);
    expect(propsOf(clamped!).REAL_QID).toBe("1");
  });
});

test("an unparsable DELAY is refused with Java's NumberFormatException remark, and nothing is stored", async () => {
  await using h = await startBroker(LEVELS);
  const c = h.client();
  await createTopic(c, h.addr, "TBadDelay", 1);
  const r = await c.invoke(
    h.addr,
    sendRequest({ topic: "TBadDelay", body: "x", properties: { DELAY: "1.5" } }),
  );
  expect({ code: r.code, remark: r.remark }).toEqual({
    code: ResponseCode.SYSTEM_ERROR,
    remark: 'java.lang.NumberFormatException: For input string: "1.5"',
  });
  expect(await records(c, h.addr, "SCHEDULE_TOPIC_XXXX", 0)).toEqual([]);
});

test("runtime info shows each level's progress as <delivered>,<max>", async () => {
  await using h = await startBroker(LEVELS);
  const c = h.client();
  await createTopic(c, h.addr, "TInfo", 1);
  await sendOk(c, h.addr, { topic: "TInfo", body: "a", properties: { DELAY: "1" } });
  await sendOk(c, h.addr, { topic: "TInfo", body: "b", properties: { DELAY: "3" } });
  const info = async () => {
    const r = await c.invoke(h.addr, request(RequestCode.GET_BROKER_RUNTIME_INFO));
    const table = (json(r.body) as { table: Record<string, string> }).table;
    return [1, 2, 3].map((l) => table[`scheduleMessageOffset_${l}`]);
  };
  await waitRecords(c, h.addr, "TInfo", 0, 1);
  expect(await info()).toEqual(["1,1", "0,0", "0,1"]);
});

test("pending delayed messages are delivered once across a clean restart, and delivered ones are not repeated", async () => {
  await using h = await startBroker(LEVELS);
  const c = h.client();
  await createTopic(c, h.addr, "TRestart", 1);
  await sendOk(c, h.addr, { topic: "TRestart", body: "early", properties: { DELAY: "1" } });
  await waitRecords(c, h.addr, "TRestart", 0, 1);
  for (let i = 0; i < 5; i++)
    await sendOk(c, h.addr, { topic: "TRestart", body: `late${i}`, properties: { DELAY: "2" } });
  await h.restart();
  await waitRecords(c, h.addr, "TRestart", 0, 6, 10_000);
  // A level-1 marker sent now is delivered after anything level 1 would repeat.
  await sendOk(c, h.addr, { topic: "TRestart", body: "marker", properties: { DELAY: "1" } });
  const all = await waitRecords(c, h.addr, "TRestart", 0, 7, 10_000);
  expect(all.map((m) => text(m.body)).sort()).toEqual(
    ["early", "late0", "late1", "late2", "late3", "late4", "marker"].sort(),
  );
});
