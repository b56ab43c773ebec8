/**
 * POP consumption over real TCP with raw frames (spec pop-timer-filter §A.4–A.11): pop → ack and
 * the commit at the lowest un-acked offset; an expired lease redelivered from the retry topic
 * with reconsumeTimes 1, the same message id and POP_CK; CHANGE_MESSAGE_INVISIBLETIME's new handle
 * acks and the old one does not; a parked pop answered by a send and by its deadline; the error
 * codes of bad handles, offsets, topics, groups and batch sizes.
 */
import { expect, test } from "bun:test";
import { popServiceOf } from "../../broker/services/pop-leases.ts";
import {
  ChangeInvisibleTimeRequestHeader,
  ChangeInvisibleTimeResponseHeader,
  PopMessageResponseHeader,
} from "../../src/protocol/headers/pop.ts";
import { MessageConst } from "../../src/protocol/message/index.ts";
import { RequestCode, ResponseCode } from "../../src/remoting/index.ts";
import { createTopic, decodeRecords, request, startBroker, waitFor } from "./harness.ts";
import { ack, BROKER, handlesOf, popRequest, send } from "./pop-support.ts";

test("pop hands out messages with offset infos; acks delete leases and the commit follows the lowest un-acked offset", async () => {
  await using h = await startBroker();
  const c = h.client();
  await createTopic(c, h.addr, "TPop", 1);
  await send(c, h.addr, "TPop", "m0");
  await send(c, h.addr, "TPop", "m1");
  const reply = await c.invoke(h.addr, popRequest({ group: "GP", topic: "TPop" }));
  const header = PopMessageResponseHeader.decode(reply.extFields);
  expect({
    code: reply.code,
    remark: reply.remark,
    start: header.startOffsetInfo,
    msg: header.msgOffsetInfo,
  }).toEqual({
    code: ResponseCode.SUCCESS,
    remark: "FOUND",
    start: "0 0 0",
    msg: "0 0 0,1",
  });
  const got = handlesOf(reply);
  expect(
    got.map((g) => [new TextDecoder().decode(g.record.body), g.record.properties.has("POP_CK")]),
  ).toEqual([
    ["m0", false],
    ["m1", false],
  ]);
  const pop = popServiceOf(h.broker.context);
  const offsets = h.broker.context.offsets;
  expect({ leases: pop.leaseCount, committed: offsets.query("GP", "TPop", 0) }).toEqual({
    leases: 2,
    committed: 0,
  });
  expect((await ack(c, h.addr, "GP", "TPop", 0, got[1]!.handle)).code).toBe(ResponseCode.SUCCESS);
  expect({ leases: pop.leaseCount, committed: offsets.query("GP", "TPop", 0) }).toEqual({
    leases: 1,
    committed: 0,
  });
  expect((await ack(c, h.addr, "GP", "TPop", 0, got[0]!.handle)).code).toBe(ResponseCode.SUCCESS);
  expect({ leases: pop.leaseCount, committed: offsets.query("GP", "TPop", 0) }).toEqual({
    leases: 0,
    committed: 2,
  });
  // Acking again is a stale handle: SUCCESS, nothing changes.
  expect((await ack(c, h.addr, "GP", "TPop", 0, got[0]!.handle)).code).toBe(ResponseCode.SUCCESS);
  const again = await c.invoke(h.addr, popRequest({ group: "GP", topic: "TPop" }));
  expect({ code: again.code, remark: again.remark }).toEqual({
    code: ResponseCode.POLLING_TIMEOUT,
    remark: "NO_MESSAGE_IN_QUEUE",
  });
});

test("an un-acked message comes back from the retry topic after its invisibility: reconsumeTimes 1, same id, POP_CK", async () => {
  await using h = await startBroker();
  const c = h.client();
  await createTopic(c, h.addr, "TExp", 1);
  const sent = await send(c, h.addr, "TExp", "lost");
  const first = await c.invoke(h.addr, popRequest({ group: "GE", topic: "TExp", invisibleMs: 300 }));
  expect(first.code).toBe(ResponseCode.SUCCESS);
  const deadline = PopMessageResponseHeader.decode(first.extFields).popTime + 300;
  const second = await c.invoke(h.addr, popRequest({ group: "GE", topic: "TExp", pollMs: 5000 }), 10_000);
  const lateMs = Date.now() - deadline;
  const [m] = handlesOf(second);
  expect({
    code: second.code,
    start: PopMessageResponseHeader.decode(second.extFields).startOffsetInfo,
    topic: m!.record.topic,
    queueId: m!.record.queueId,
    body: new TextDecoder().decode(m!.record.body),
    reconsumeTimes: m!.record.reconsumeTimes,
    uniq: m!.record.properties.get(MessageConst.UNIQ_KEY),
    tags: m!.record.properties.get(MessageConst.TAGS),
    handleFlag: m!.handle.split(" ")[4],
    firstPopTime: m!.record.properties.has("1ST_POP_TIME"),
  }).toEqual({
    code: ResponseCode.SUCCESS,
    start: "1 0 0",
    topic: "TExp",
    queueId: 0,
    body: "lost",
    reconsumeTimes: 1,
    uniq: "UNIQ-lost",
    tags: "T",
    handleFlag: "1",
    firstPopTime: true,
  });
  expect(sent.extFields?.msgId).toBeDefined();
  expect(lateMs).toBeLessThan(1000);
  // The original offset is settled by the revive; the copy's lease is acked on the retry topic.
  const pop = popServiceOf(h.broker.context);
  expect(h.broker.context.offsets.query("GE", "TExp", 0)).toBe(1);
  expect((await ack(c, h.addr, "GE", "%RETRY%GE_TExp", 0, m!.handle)).code).toBe(ResponseCode.SUCCESS);
  expect(pop.leaseCount).toBe(0);
  expect(h.broker.context.offsets.query("GE", "%RETRY%GE_TExp", 0)).toBe(1);
});

test("CHANGE_MESSAGE_INVISIBLETIME re-arms with popTime = now: the new handle acks, the old one no longer does", async () => {
  await using h = await startBroker();
  const c = h.client();
  await createTopic(c, h.addr, "TChg", 1);
  await send(c, h.addr, "TChg", "slow");
  const popped = await c.invoke(h.addr, popRequest({ group: "GC", topic: "TChg" }));
  const [m] = handlesOf(popped);
  const old = m!.handle;
  const f = old.split(" ");
  await Bun.sleep(5); // so that the new popTime differs from the old one
  const changed = await c.invoke(
    h.addr,
    request(
      RequestCode.CHANGE_MESSAGE_INVISIBLETIME,
      ChangeInvisibleTimeRequestHeader.encode({
        consumerGroup: "GC",
        topic: "TChg",
        queueId: 0,
        extraInfo: old,
        offset: 0,
        invisibleTime: 30_000,
      }),
    ),
  );
  const ch = ChangeInvisibleTimeResponseHeader.decode(changed.extFields);
  expect({ code: changed.code, invisibleTime: ch.invisibleTime, reviveQid: ch.reviveQid }).toEqual({
    code: ResponseCode.SUCCESS,
    invisibleTime: 30_000,
    reviveQid: Number(f[3]),
  });
  expect(ch.popTime).toBeGreaterThan(Number(f[1]));
  // As the client builds it (§A.9): <offset> <popTime> <invisibleTime> <reviveQid> <flag> <broker> <queue> <offset>.
  const fresh = `0 ${ch.popTime} ${ch.invisibleTime} ${ch.reviveQid} 0 ${BROKER} 0 0`;
  const pop = popServiceOf(h.broker.context);
  expect((await ack(c, h.addr, "GC", "TChg", 0, old)).code).toBe(ResponseCode.SUCCESS);
  expect(pop.leaseCount).toBe(1);
  expect((await ack(c, h.addr, "GC", "TChg", 0, fresh)).code).toBe(ResponseCode.SUCCESS);
  expect(pop.leaseCount).toBe(0);
});

test("a parked pop is answered soon after a send, and an idle one POLLING_TIMEOUT just before its deadline", async () => {
  await using h = await startBroker();
  const c = h.client();
  await createTopic(c, h.addr, "TLong", 2);
  await createTopic(c, h.addr, "TIdle", 2);
  const waiters = popServiceOf(h.broker.context).waiters;
  const parked = c.invoke(h.addr, popRequest({ group: "GL", topic: "TLong", pollMs: 10_000 }), 15_000);
  await waitFor("the pop is parked", () => waiters.size === 1);
  const sentAt = performance.now();
  await send(c, h.addr, "TLong", "wake");
  const reply = await parked;
  const latencyMs = performance.now() - sentAt;
  expect({
    code: reply.code,
    bodies: decodeRecords(reply.body).map((r) => new TextDecoder().decode(r.body)),
  }).toEqual({
    code: ResponseCode.SUCCESS,
    bodies: ["wake"],
  });
  expect(latencyMs).toBeLessThan(200);

  const startedAt = Date.now();
  const idle = await c.invoke(h.addr, popRequest({ group: "GL", topic: "TIdle", pollMs: 400 }), 5000);
  const tookMs = Date.now() - startedAt;
  expect({ code: idle.code, remark: idle.remark, parked: waiters.size }).toEqual({
    code: ResponseCode.POLLING_TIMEOUT,
    remark: "NO_MESSAGE_IN_QUEUE",
    parked: 0,
  });
  expect(tookMs).toBeGreaterThanOrEqual(300);
  expect(tookMs).toBeLessThan(600); // deadline 350 ms + a 20 ms tick; slack for a busy machine
});

test("errors: bad handle SYSTEM_ERROR, offset past the queue NO_MESSAGE, unknown topic, too many messages", async () => {
  await using h = await startBroker();
  const c = h.client();
  await createTopic(c, h.addr, "TErr", 1);
  await send(c, h.addr, "TErr", "x");
  const codes = {
    badHandle: (await ack(c, h.addr, "G", "TErr", 0, "0 1 2 3 0 broker-it 0")).code,
    pastEnd: (await ack(c, h.addr, "G", "TErr", 0, `5 1 2 3 0 ${BROKER} 0 5`)).code,
    badQueue: (await ack(c, h.addr, "G", "TErr", 3, `0 1 2 3 0 ${BROKER} 3 0`)).code,
    ackUnknownTopic: (await ack(c, h.addr, "G", "TNone", 0, `0 1 2 3 0 ${BROKER} 0 0`)).code,
    popUnknownTopic: (await c.invoke(h.addr, popRequest({ group: "G", topic: "TNone" }))).code,
    popTooMany: (await c.invoke(h.addr, popRequest({ group: "G", topic: "TErr", max: 33 }))).code,
  };
  expect(codes).toEqual({
    badHandle: ResponseCode.SYSTEM_ERROR,
    pastEnd: ResponseCode.NO_MESSAGE,
    badQueue: ResponseCode.MESSAGE_ILLEGAL,
    ackUnknownTopic: ResponseCode.TOPIC_NOT_EXIST,
    popUnknownTopic: ResponseCode.TOPIC_NOT_EXIST,
    popTooMany: ResponseCode.INVALID_PARAMETER,
  });
});

test("a pop for an unknown group is SUBSCRIPTION_GROUP_NOT_EXIST when groups are not auto-created", async () => {
  await using h = await startBroker({ autoCreateSubscriptionGroup: "false" });
  const c = h.client();
  await createTopic(c, h.addr, "TGrp", 1);
  const reply = await c.invoke(h.addr, popRequest({ group: "GNone", topic: "TGrp" }));
  expect(reply.code).toBe(ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST);
});

test("BATCH_ACK_MESSAGE acks the set bits of one entry; an empty request is NO_MESSAGE", async () => {
  await using h = await startBroker();
  const c = h.client();
  await createTopic(c, h.addr, "TBatch", 1);
  for (const b of ["b0", "b1", "b2"]) await send(c, h.addr, "TBatch", b);
  const popped = await c.invoke(h.addr, popRequest({ group: "GB", topic: "TBatch" }));
  const hdr = PopMessageResponseHeader.decode(popped.extFields);
  // Offsets 0 and 2 of the batch starting at 0: bits {0, 2} = 0x05.
  const body = {
    acks: [
      {
        b: Buffer.from([0x05]).toString("base64"),
        c: "GB",
        it: hdr.invisibleTime,
        pt: hdr.popTime,
        q: 0,
        r: "0",
        rq: hdr.reviveQid,
        so: 0,
        t: "TBatch",
      },
    ],
    brokerName: BROKER,
  };
  const reply = await c.invoke(
    h.addr,
    request(RequestCode.BATCH_ACK_MESSAGE, null, new TextEncoder().encode(JSON.stringify(body))),
  );
  const pop = popServiceOf(h.broker.context);
  expect({
    code: reply.code,
    leases: pop.leaseCount,
    committed: h.broker.context.offsets.query("GB", "TBatch", 0),
  }).toEqual({
    code: ResponseCode.SUCCESS,
    leases: 1,
    committed: 1,
  });
  const none = await c.invoke(
    h.addr,
    request(RequestCode.BATCH_ACK_MESSAGE, null, new TextEncoder().encode('{"acks":[]}')),
  );
  expect(none.code).toBe(ResponseCode.NO_MESSAGE);
});

test("two consumers of one group popping concurrently never hold the same message at once", async () => {
  await using h = await startBroker();
  const admin = h.client();
  await createTopic(admin, h.addr, "TTwo", 2);
  const sent = Array.from({ length: 120 }, (_, i) => `t${i}`);
  for (const b of sent) await send(admin, h.addr, "TTwo", b);
  const held = new Set<string>();
  const seen: string[] = [];
  const overlaps: string[] = [];
  const consume = async (c: ReturnType<typeof h.client>) => {
    while (seen.length < sent.length) {
      const reply = await c.invoke(h.addr, popRequest({ group: "G2", topic: "TTwo", max: 7, pollMs: 200 }));
      const got = handlesOf(reply);
      for (const m of got) {
        const body = new TextDecoder().decode(m.record.body);
        if (held.has(body)) overlaps.push(body);
        held.add(body);
        seen.push(body);
      }
      for (const m of got) {
        expect((await ack(c, h.addr, "G2", "TTwo", m.record.queueId, m.handle)).code).toBe(
          ResponseCode.SUCCESS,
        );
        held.delete(new TextDecoder().decode(m.record.body));
      }
    }
  };
  await Promise.all([consume(h.client()), consume(h.client())]);
  expect({ overlaps, seen: [...seen].sort() }).toEqual({ overlaps: [], seen: [...sent].sort() });
});

test("POP and PULL of one group share the consume offset (§A.16): a pop's commit is what QUERY_CONSUMER_OFFSET reads, an offset committed by a puller is where the next pop starts", async () => {
  await using h = await startBroker();
  const c = h.client();
  await createTopic(c, h.addr, "TMix", 1);
  for (let i = 0; i < 6; i++) await send(c, h.addr, "TMix", `x${i}`);
  const q = { consumerGroup: "GM", topic: "TMix", queueId: "0" };
  const first = handlesOf(await c.invoke(h.addr, popRequest({ group: "GM", topic: "TMix", max: 2 })));
  for (const m of first) await ack(c, h.addr, "GM", "TMix", 0, m.handle);
  const queried = await c.invoke(h.addr, request(RequestCode.QUERY_CONSUMER_OFFSET, q));
  await c.invoke(h.addr, request(RequestCode.UPDATE_CONSUMER_OFFSET, { ...q, commitOffset: "4" }));
  const next = handlesOf(await c.invoke(h.addr, popRequest({ group: "GM", topic: "TMix" })));
  expect({
    queried: queried.extFields?.offset,
    next: next.map((m) => new TextDecoder().decode(m.record.body)),
  }).toEqual({ queried: "2", next: ["x4", "x5"] });
});
