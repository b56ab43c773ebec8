/**
 * Cancelling timer messages (spec pop-timer-filter §B.6) as raw frames: a TIMER_DEL_UNIQKEY delete
 * entry in the target's slot drops the target and is itself never delivered; RECALL_MESSAGE (370)
 * does the same from the send's recall handle, and refuses what Java refuses. Pending timers
 * survive a clean restart: none lost, none repeated.
 */
import { describe, expect, test } from "bun:test";
import { RecallMessageRequestHeader } from "../../src/protocol/headers/redelivery.ts";
import { encodeRecallHandle } from "../../src/protocol/recall-handle.ts";
import { type RemotingClient, RequestCode, ResponseCode } from "../../src/remoting/index.ts";
import { createTopic, request, SERIALIZE_TYPES, startBroker } from "./harness.ts";
import { records, sendOk, waitRecords } from "./redelivery-support.ts";

const text = (b: Uint8Array) => new TextDecoder().decode(b);

/** Sends a marker due `ms` after `at` and waits for it: anything due before it has been delivered by then. */
async function deliverMarker(c: RemotingClient, addr: string, topic: string, at: number, n: number) {
  await sendOk(c, addr, { topic, body: "marker", properties: { TIMER_DELIVER_MS: String(at) } });
  return waitRecords(c, addr, topic, 0, n, 10_000);
}

test("a delete entry naming <topic>+<UNIQ_KEY> in the target's slot drops the target, and is not delivered itself", async () => {
  await using h = await startBroker();
  const c = h.client();
  await createTopic(c, h.addr, "TDel", 1);
  const due = Date.now() + 500;
  const at = { TIMER_DELIVER_MS: String(due) };
  await sendOk(c, h.addr, { topic: "TDel", body: "doomed", properties: { ...at, UNIQ_KEY: "UA" } });
  await sendOk(c, h.addr, { topic: "TDel", body: "kept", properties: { ...at, UNIQ_KEY: "UB" } });
  await sendOk(c, h.addr, { topic: "TDel", body: "0", properties: { ...at, TIMER_DEL_UNIQKEY: "TDel+UA" } });
  const got = await deliverMarker(c, h.addr, "TDel", due + 100, 2);
  expect(got.map((m) => text(m.body))).toEqual(["kept", "marker"]);
});

describe.each(SERIALIZE_TYPES)("%s headers", (_name, st) => {
  test("RECALL_MESSAGE with the send's recall handle cancels the timer and answers its id", async () => {
    await using h = await startBroker({ recallMessageEnable: "true" });
    const c = h.client();
    await createTopic(c, h.addr, "TRecall", 1);
    const due = Date.now() + 800;
    const sent = await sendOk(c, h.addr, {
      topic: "TRecall",
      body: "recalled",
      properties: { TIMER_DELIVER_MS: String(due), UNIQ_KEY: "UR" },
    });
    const ext = RecallMessageRequestHeader.encode({
      producerGroup: "PG",
      topic: "TRecall",
      recallHandle: sent.recallHandle!,
    });
    const r = await c.invoke(h.addr, request(RequestCode.RECALL_MESSAGE, ext, null, st));
    expect({ code: r.code, remark: r.remark, ext: r.extFields, st: r.serializeType }).toEqual({
      code: ResponseCode.SUCCESS,
      remark: null,
      ext: { msgId: "UR", MSG_REGION: "DefaultRegion" },
      st,
    });
    const got = await deliverMarker(c, h.addr, "TRecall", due + 100, 1);
    expect(got.map((m) => text(m.body))).toEqual(["marker"]);
  });
});

test("RECALL_MESSAGE refuses as Java does: disabled, unknown topic, bad handle, other topic or broker, time passed", async () => {
  await using h = await startBroker({ recallMessageEnable: "true" });
  await using off = await startBroker();
  const c = h.client();
  await createTopic(c, h.addr, "TR", 1);
  await createTopic(c, h.addr, "TOther", 1);
  const handle = (topic: string, brokerName: string, timestamp: number | string) =>
    encodeRecallHandle({ topic, brokerName, timestamp: String(timestamp), messageId: "U1" });
  const soon = Date.now() + 60_000;
  const recall = async (addr: string, topic: string, recallHandle: string) => {
    const ext = RecallMessageRequestHeader.encode({ topic, recallHandle });
    const r = await c.invoke(addr, request(RequestCode.RECALL_MESSAGE, ext));
    return { code: r.code, remark: r.remark };
  };
  const illegal = (remark: string) => ({ code: ResponseCode.ILLEGAL_OPERATION, remark });
  expect({
    disabled: await recall(off.addr, "TR", handle("TR", "broker-it", soon)),
    unknownTopic: await recall(h.addr, "NoSuchTopic", handle("NoSuchTopic", "broker-it", soon)),
    notBase64: await recall(h.addr, "TR", "!!!"),
    notV1: await recall(h.addr, "TR", Buffer.from("v2 TR broker-it 1 U1").toString("base64url")),
    tooFewFields: await recall(h.addr, "TR", Buffer.from("v1 TR broker-it").toString("base64url")),
    otherTopic: await recall(h.addr, "TR", handle("TOther", "broker-it", soon)),
    otherBroker: await recall(h.addr, "TR", handle("TR", "broker-b", soon)),
    past: await recall(h.addr, "TR", handle("TR", "broker-it", Date.now() - 1)),
    notANumber: await recall(h.addr, "TR", handle("TR", "broker-it", "soon")),
    tooFar: await recall(h.addr, "TR", handle("TR", "broker-it", Date.now() + 4 * 86_400_000)),
  }).toEqual({
    disabled: { code: ResponseCode.NO_PERMISSION, remark: "recall failed, operation is forbidden" },
    unknownTopic: {
      code: ResponseCode.TOPIC_NOT_EXIST,
      remark: "recall failed, the topic[NoSuchTopic] not exist",
    },
    notBase64: illegal("recall handle is invalid"),
    notV1: illegal("recall handle is invalid"),
    tooFewFields: illegal("recall handle is invalid"),
    otherTopic: illegal("recall failed, topic not match"),
    otherBroker: illegal("recall failed, broker service not available"),
    past: illegal("recall failed, timestamp invalid"),
    notANumber: illegal("recall failed, timestamp invalid"),
    tooFar: illegal("recall failed, timestamp invalid"),
  });
  expect(await records(c, h.addr, "rmq_sys_wheel_timer")).toEqual([]);
});

test("timers pending at a clean restart are all delivered once after it, and delivered ones are not repeated", async () => {
  await using h = await startBroker();
  const c = h.client();
  await createTopic(c, h.addr, "TStay", 1);
  const now = Date.now();
  const sends = [];
  for (let i = 0; i < 100; i++) {
    // Half due before the restart, half after.
    const due = i < 50 ? now + 200 : now + 1500 + i * 5;
    sends.push(
      sendOk(c, h.addr, { topic: "TStay", body: `t${i}`, properties: { TIMER_DELIVER_MS: String(due) } }),
    );
  }
  await Promise.all(sends);
  await waitRecords(c, h.addr, "TStay", 0, 50);
  await h.restart();
  const got = await deliverMarker(c, h.addr, "TStay", now + 2500, 101);
  const bodies = got.map((m) => text(m.body));
  expect({ n: bodies.length, distinct: new Set(bodies).size }).toEqual({ n: 101, distinct: 101 });
});
