/**
 * POP leases across restarts (spec pop-timer-filter §A.18 in-flight table, issue #18): after a
 * clean restart, and after kill -9 of a `rocketbun start` child, every un-acked lease still
 * expires and comes back from the retry topic with reconsumeTimes 1, nothing acked comes back,
 * and the next pop neither repeats nor skips an offset of the topic.
 */
import { expect, test } from "bun:test";
import { popServiceOf } from "../../broker/services/pop-leases.ts";
import { RemotingClient, ResponseCode } from "../../src/remoting/index.ts";
import { createTopic, silent, startBroker, startRocketbun, waitFor } from "./harness.ts";
import { ack, handlesOf, popRequest, send } from "./pop-support.ts";

const text = (b: Uint8Array) => new TextDecoder().decode(b);

interface Seen {
  body: string;
  reconsumeTimes: number;
}

/**
 * Pops `topic` for `group` (acking everything) until `done(seen)`; returns every delivery in
 * order. Retry copies are acked on the retry topic, originals on the topic.
 */
async function drain(
  c: RemotingClient,
  addr: string,
  group: string,
  topic: string,
  done: (seen: Seen[]) => boolean,
): Promise<Seen[]> {
  const seen: Seen[] = [];
  await waitFor(
    "deliveries",
    async () => {
      const reply = await c.invoke(addr, popRequest({ group, topic, pollMs: 300 }), 5000);
      if (reply.code === ResponseCode.SUCCESS) {
        for (const m of handlesOf(reply)) {
          seen.push({ body: text(m.record.body), reconsumeTimes: m.record.reconsumeTimes });
          const retry = m.handle.split(" ")[4] !== "0";
          const real = retry ? `%RETRY%${group}_${topic}` : topic;
          expect((await ack(c, addr, group, real, m.record.queueId, m.handle)).code).toBe(
            ResponseCode.SUCCESS,
          );
        }
      }
      return done(seen);
    },
    30_000,
  );
  return seen;
}

const sorted = (seen: Seen[]) => seen.map((s) => `${s.body}/${s.reconsumeTimes}`).sort();

test("after a clean restart un-acked leases expire and come back once with reconsumeTimes 1; acked ones never; the next offset is kept", async () => {
  await using h = await startBroker();
  const c = h.client();
  await createTopic(c, h.addr, "TRs", 1);
  for (let i = 0; i < 5; i++) await send(c, h.addr, "TRs", `m${i}`);
  const first = handlesOf(
    await c.invoke(h.addr, popRequest({ group: "GR", topic: "TRs", invisibleMs: 1500 })),
  );
  expect(first.map((m) => text(m.record.body))).toEqual(["m0", "m1", "m2", "m3", "m4"]);
  for (const i of [0, 2]) {
    expect((await ack(c, h.addr, "GR", "TRs", 0, first[i]!.handle)).code).toBe(ResponseCode.SUCCESS);
  }
  await h.restart();
  expect(popServiceOf(h.broker.context).leaseCount).toBe(3);
  // A handle from before the restart still acks its lease.
  expect((await ack(c, h.addr, "GR", "TRs", 0, first[4]!.handle)).code).toBe(ResponseCode.SUCCESS);
  expect(popServiceOf(h.broker.context).leaseCount).toBe(2);
  await send(c, h.addr, "TRs", "m5");
  const seen = await drain(c, h.addr, "GR", "TRs", (s) => s.length >= 3);
  expect(sorted(seen)).toEqual(["m1/1", "m3/1", "m5/0"]);
  expect(popServiceOf(h.broker.context).leaseCount).toBe(0);
  expect(h.broker.context.offsets.query("GR", "TRs", 0)).toBe(6);
});

test("kill -9 with un-acked leases: after the restart each comes back once with reconsumeTimes 1, acked ones do not, new messages are popped once", async () => {
  await using rb = await startRocketbun({ name: "rb-pop-kill" });
  const c = new RemotingClient({ name: "it-pop-kill", log: silent });
  try {
    await createTopic(c, rb.brokerAddr, "TPk", 2);
    const sent: string[] = [];
    for (let i = 0; i < 40; i++) {
      const body = `k${i}`;
      sent.push(body);
      await send(c, rb.brokerAddr, "TPk", body);
    }
    const held: ReturnType<typeof handlesOf> = [];
    await waitFor("all 40 popped", async () => {
      const reply = await c.invoke(
        rb.brokerAddr,
        popRequest({ group: "GK", topic: "TPk", invisibleMs: 3000 }),
      );
      if (reply.code === ResponseCode.SUCCESS) held.push(...handlesOf(reply));
      return held.length >= 40;
    });
    const acked = new Set<string>();
    for (const m of held.filter((_, i) => i % 2 === 0)) {
      expect((await ack(c, rb.brokerAddr, "GK", "TPk", m.record.queueId, m.handle)).code).toBe(
        ResponseCode.SUCCESS,
      );
      acked.add(text(m.record.body));
    }
    await rb.restart("SIGKILL");
    await send(c, rb.brokerAddr, "TPk", "after");
    const unacked = sent.filter((b) => !acked.has(b));
    const seen = await drain(c, rb.brokerAddr, "GK", "TPk", (s) => s.length >= unacked.length + 1);
    expect(sorted(seen)).toEqual([...unacked.map((b) => `${b}/1`), "after/0"].sort());
  } finally {
    await c.shutdown();
  }
});
