/**
 * Long polling, broker → client notices and the VIP port, over real TCP: a held pull is answered by
 * the next matching send or at its deadline; a held pull whose connection closed is dropped; a
 * second consumer's heartbeat reaches the first as NOTIFY_CONSUMER_IDS_CHANGED (40); the VIP port
 * serves sends but not pulls.
 */
import { expect, test } from "bun:test";
import { type RemotingCommand, RequestCode, ResponseCode } from "../../src/remoting/index.ts";
import {
  createTopic,
  decodeRecords,
  heartbeatBody,
  pullRequest,
  request,
  sendRequest,
  startBroker,
  summary,
  waitFor,
} from "./harness.ts";

test("a pull held on an empty queue is answered by the next matching send, within milliseconds", async () => {
  await using h = await startBroker();
  const c = h.client();
  await createTopic(c, h.addr, "TLp", 1);
  const longPoll = h.broker.context.longPoll;
  let answeredAt = 0;
  const pulled = c
    .invoke(
      h.addr,
      pullRequest({ group: "G", topic: "TLp", queueId: 0, offset: 0, suspendMs: 10_000 }),
      15_000,
    )
    .then((r) => {
      answeredAt = performance.now();
      return r;
    });
  await waitFor("the pull is held", () => longPoll.size === 1);
  expect(answeredAt).toBe(0);
  const sentAt = performance.now();
  const sent = await c.invoke(h.addr, sendRequest({ topic: "TLp", body: "wake", tags: "T", queueId: 0 }));
  const reply = await pulled;
  const latencyMs = answeredAt - sentAt;
  console.log(`long poll: answered ${latencyMs.toFixed(2)} ms after the send started`);
  expect({
    code: reply.code,
    records: decodeRecords(reply.body).map(summary),
    held: longPoll.size,
  }).toEqual({
    code: ResponseCode.SUCCESS,
    records: [
      {
        topic: "TLp",
        queueId: 0,
        queueOffset: 0,
        body: "wake",
        tags: "T",
        keys: undefined,
        msgId: sent.extFields!.msgId!,
      },
    ],
    held: 0,
  });
  expect(latencyMs).toBeLessThan(100);
});

test("a held pull with a tag filter is not woken by a message it does not match", async () => {
  await using h = await startBroker();
  const c = h.client();
  await createTopic(c, h.addr, "TLpTag", 1);
  const longPoll = h.broker.context.longPoll;
  const transcript: string[] = [];
  const pulled = c
    .invoke(
      h.addr,
      pullRequest({
        group: "G",
        topic: "TLpTag",
        queueId: 0,
        offset: 0,
        suspendMs: 10_000,
        subscription: "B",
      }),
      15_000,
    )
    .then((r) => {
      transcript.push(`pull answered ${r.code}`);
      return r;
    });
  await waitFor("the pull is held", () => longPoll.size === 1);
  await c.invoke(h.addr, sendRequest({ topic: "TLpTag", body: "a", tags: "A", queueId: 0 }));
  transcript.push("sent A");
  // The broker dispatches before it acknowledges, so a wake-up would already be queued: one more
  // round trip lets it arrive first if it was (wrongly) sent.
  await c.invoke(h.addr, request(RequestCode.GET_MAX_OFFSET, { topic: "TLpTag", queueId: "0" }));
  transcript.push(`still held: ${longPoll.size}`);
  await c.invoke(h.addr, sendRequest({ topic: "TLpTag", body: "b", tags: "B", queueId: 0 }));
  transcript.push("sent B");
  const reply = await pulled;
  expect({ transcript, got: decodeRecords(reply.body).map((r) => summary(r).body) }).toEqual({
    transcript: ["sent A", "still held: 1", "sent B", "pull answered 0"],
    got: ["b"],
  });
});

test("a held pull is answered PULL_NOT_FOUND at its deadline when nothing arrives", async () => {
  await using h = await startBroker();
  const c = h.client();
  await createTopic(c, h.addr, "TLpIdle", 1);
  const started = performance.now();
  const reply = await c.invoke(
    h.addr,
    pullRequest({ group: "G", topic: "TLpIdle", queueId: 0, offset: 0, suspendMs: 300 }),
    5_000,
  );
  const heldMs = performance.now() - started;
  expect({ code: reply.code, ext: reply.extFields, body: reply.body }).toEqual({
    code: ResponseCode.PULL_NOT_FOUND,
    ext: { suggestWhichBrokerId: "0", nextBeginOffset: "0", minOffset: "0", maxOffset: "0" },
    body: null,
  });
  expect(heldMs).toBeGreaterThanOrEqual(295);
  expect(heldMs).toBeLessThan(2_000);
});

test("a held pull whose connection closes is dropped, and the broker keeps serving others", async () => {
  await using h = await startBroker();
  const gone = h.client();
  const other = h.client();
  await createTopic(other, h.addr, "TLpGone", 1);
  const longPoll = h.broker.context.longPoll;
  const orphan = gone
    .invoke(
      h.addr,
      pullRequest({ group: "G", topic: "TLpGone", queueId: 0, offset: 0, suspendMs: 10_000 }),
      15_000,
    )
    .then(
      () => "answered",
      (err: Error) => err.name,
    );
  await waitFor("the pull is held", () => longPoll.size === 1);
  await gone.closeConnection(h.addr);
  await waitFor("the held pull is dropped", () => longPoll.size === 0);
  const sent = await other.invoke(h.addr, sendRequest({ topic: "TLpGone", body: "after", queueId: 0 }));
  const pulled = await other.invoke(
    h.addr,
    pullRequest({ group: "G", topic: "TLpGone", queueId: 0, offset: 0 }),
  );
  expect({
    orphan: await orphan,
    sent: sent.code,
    pulled: decodeRecords(pulled.body).map((r) => summary(r).body),
  }).toEqual({ orphan: "ConnectionClosedError", sent: 0, pulled: ["after"] });
});

test("a second consumer's heartbeat notifies the group's consumers with NOTIFY_CONSUMER_IDS_CHANGED", async () => {
  await using h = await startBroker();
  const first = h.client();
  const second = h.client();
  await createTopic(first, h.addr, "TNotify", 4);
  const notices: { to: string; code: number; ext: Record<string, string> | null; oneway: boolean }[] = [];
  for (const [name, c] of [
    ["first", first],
    ["second", second],
  ] as const) {
    c.registry.register(RequestCode.NOTIFY_CONSUMER_IDS_CHANGED, (req: RemotingCommand) => {
      notices.push({ to: name, code: req.code, ext: req.extFields, oneway: req.isOneway });
      return null;
    });
  }
  const hb = (clientId: string) =>
    request(RequestCode.HEART_BEAT, null, heartbeatBody(clientId, { group: "GN", topic: "TNotify" }));
  expect((await first.invoke(h.addr, hb("c1"))).code).toBe(0);
  await waitFor("the first consumer hears of itself", () => notices.length === 1);
  expect((await second.invoke(h.addr, hb("c2"))).code).toBe(0);
  await waitFor("both consumers hear of the second", () => notices.length === 3);
  // A heartbeat that changes nothing notifies nobody.
  expect((await first.invoke(h.addr, hb("c1"))).code).toBe(0);
  await second.invoke(h.addr, request(RequestCode.GET_CONSUMER_LIST_BY_GROUP, { consumerGroup: "GN" }));
  const notice = { code: 40, ext: { consumerGroup: "GN" }, oneway: true };
  expect(notices.sort((a, b) => a.to.localeCompare(b.to))).toEqual([
    { to: "first", ...notice },
    { to: "first", ...notice },
    { to: "second", ...notice },
  ]);
});

test("the VIP port (listenPort - 2) serves sends and answers 3 for PULL_MESSAGE", async () => {
  await using h = await startBroker();
  const c = h.client();
  await createTopic(c, h.vipAddr, "TVip", 1);
  const sent = await c.invoke(h.vipAddr, sendRequest({ topic: "TVip", body: "via vip", queueId: 0 }));
  const onVip = await c.invoke(h.vipAddr, pullRequest({ group: "G", topic: "TVip", queueId: 0, offset: 0 }));
  const onMain = await c.invoke(h.addr, pullRequest({ group: "G", topic: "TVip", queueId: 0, offset: 0 }));
  expect({
    vipPort: Number(h.vipAddr.split(":")[1]),
    sent: sent.code,
    vipPull: { code: onVip.code, remark: onVip.remark },
    mainPull: decodeRecords(onMain.body).map((r) => summary(r).body),
  }).toEqual({
    vipPort: Number(h.addr.split(":")[1]) - 2,
    sent: 0,
    vipPull: { code: ResponseCode.REQUEST_CODE_NOT_SUPPORTED, remark: " request type 11 not supported" },
    mainPull: ["via vip"],
  });
});
