/**
 * Orderly push consumers (`orderly: true`) against `rocketbun start`: keyed messages sent with a
 * queue selector come back in send order per key; a failed batch is offered again before anything
 * behind it; two members of a group never consume one queue at once; a member killed mid-stream
 * leaves no message behind. ali-ons, which consumes each queue one message at a time without locks,
 * reads the same keyed stream in order too.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { Consumer as AliConsumer } from "ali-ons";
import {
  createProducer,
  createPushConsumer,
  type MessageExt,
  type Producer,
  type PushConsumer,
  type QueueSelector,
} from "../../src/client/index.ts";
import { javaStringHash } from "../../src/protocol/message/index.ts";
import { createRoutedTopic } from "../integration/harness.ts";
import { ALI_ONS_LOCAL } from "../support/ali-ons.ts";
import { startRocketbun, waitFor } from "../support/rocketbun-child.ts";
import { silent } from "../support/silent.ts";

const KEYS = ["k0", "k1", "k2", "k3", "k4", "k5"];
const STEPS = 20;
const QUEUES = 4;

const quick = {
  log: silent,
  brokerSuspendMaxMs: 1000,
  pullErrorDelayMs: 50,
  persistConsumerOffsetIntervalMs: 100,
  consumeFromWhere: "CONSUME_FROM_FIRST_OFFSET" as const,
};

/** Java's SelectMessageQueueByHash on the message key: one key, one queue. */
const byKey: QueueSelector = (queues, msg) => {
  const key = String(msg.keys);
  return queues[Math.abs(javaStringHash(key) % queues.length)]!;
};

/** Sends steps [from, to) of every key, interleaved across keys, each to its key's queue. */
async function sendSteps(producer: Producer, topic: string, from: number, to: number): Promise<void> {
  for (let step = from; step < to; step++)
    for (const key of KEYS)
      await producer.send({ topic, body: `${key}:${step}`, keys: key }, { selector: byKey });
}

const text = (m: MessageExt) => new TextDecoder().decode(m.body);
const parse = (body: string) => {
  const [key, step] = body.split(":");
  return { key: key!, step: Number(step) };
};

/**
 * Deliveries that would mean a skipped message: per key, in delivery order, a step more than one
 * past the highest step delivered before it. Redeliveries (a step at or below) are allowed.
 */
function skips(bodies: readonly string[]): string[] {
  const highest = new Map<string, number>();
  const out: string[] = [];
  for (const body of bodies) {
    const { key, step } = parse(body);
    const top = highest.get(key) ?? -1;
    if (step > top + 1) out.push(`${key}: ${step} after ${top}`);
    highest.set(key, Math.max(top, step));
  }
  return out;
}

/** Whether every step of every key was delivered at least once. */
const allDelivered = (bodies: Iterable<string>) => new Set(bodies).size === KEYS.length * STEPS;

/** How many queues of `topic` a consumer pulls now (its group's retry queue is not counted). */
const owned = (c: PushConsumer, topic: string) => c.assignedQueues().filter((q) => q.topic === topic).length;

describe("orderly push consumer against rocketbun start", () => {
  test("6 keys × 20 steps sent by key are consumed in send order per key; a failed message comes back first", async () => {
    await using rb = await startRocketbun({ name: "rocketbun-orderly" });
    await createRoutedTopic(rb, "OrdA", QUEUES);
    const producer = await createProducer({ namesrvAddr: rb.namesrvAddr, log: silent });
    const perQueue = new Map<number, string[]>();
    const perKey = new Map<string, number[]>();
    const retried: { body: string; reconsumeTimes: number }[] = [];
    let failed = false;
    const consumer = await createPushConsumer({
      namesrvAddr: rb.namesrvAddr,
      group: "OrdAG",
      subscriptions: { OrdA: "*" },
      orderly: true,
      ...quick,
      onMessage: (msgs, context) => {
        for (const m of msgs) {
          const body = text(m);
          perQueue.set(m.queueId, [...(perQueue.get(m.queueId) ?? []), body]);
          const { key, step } = parse(body);
          perKey.set(key, [...(perKey.get(key) ?? []), step]);
          if (m.reconsumeTimes > 0) retried.push({ body, reconsumeTimes: m.reconsumeTimes });
          if (body === "k3:7" && !failed) {
            failed = true;
            context!.suspendCurrentQueueTimeMillis = 20;
            throw new Error("not now");
          }
        }
      },
    });
    try {
      await sendSteps(producer, "OrdA", 0, STEPS);
      await waitFor("every step of every key", () => KEYS.every((k) => perKey.get(k)?.at(-1) === STEPS - 1));
      const steps = [...Array(STEPS).keys()];
      const k3Queue = perQueue.get(Math.abs(javaStringHash("k3") % QUEUES))!;
      const failedAt = k3Queue.indexOf("k3:7");
      expect({
        perKey: Object.fromEntries(KEYS.map((k) => [k, perKey.get(k)])),
        afterFailure: k3Queue[failedAt + 1],
        retried,
      }).toEqual({
        perKey: Object.fromEntries(
          KEYS.map((k) => [k, k === "k3" ? [...steps.slice(0, 8), 7, ...steps.slice(8)] : steps]),
        ),
        afterFailure: "k3:7",
        retried: [{ body: "k3:7", reconsumeTimes: 1 }],
      });
    } finally {
      await consumer.shutdown();
      await producer.shutdown();
    }
  });

  test("a batch sent with sendBatch comes back in batch order, several messages per listener call", async () => {
    await using rb = await startRocketbun({ name: "rocketbun-orderly" });
    await createRoutedTopic(rb, "OrdBatch", 2);
    const producer = await createProducer({ namesrvAddr: rb.namesrvAddr, log: silent });
    const calls: string[][] = [];
    const consumer = await createPushConsumer({
      namesrvAddr: rb.namesrvAddr,
      group: "OrdBatchG",
      subscriptions: { OrdBatch: "*" },
      orderly: true,
      consumeBatchSize: 4,
      ...quick,
      onMessage: (msgs) => {
        calls.push(msgs.map(text));
      },
    });
    try {
      const bodies = Array.from({ length: 10 }, (_, i) => `b${i}`);
      await producer.sendBatch(
        bodies.map((body) => ({ topic: "OrdBatch", body })),
        { selector: (queues) => queues[1]! },
      );
      await waitFor("the whole batch", () => calls.flat().length === bodies.length);
      // Call boundaries depend on what each pull found (the batch may be dispatched while a pull waits).
      expect({
        order: calls.flat(),
        atMostFourPerCall: calls.every((c) => c.length <= 4),
        severalInOneCall: calls.some((c) => c.length > 1),
      }).toEqual({ order: bodies, atMostFourPerCall: true, severalInOneCall: true });
    } finally {
      await consumer.shutdown();
      await producer.shutdown();
    }
  });

  test("two consumers of one group never consume one queue at the same time, and skip nothing when the second joins mid-stream", async () => {
    await using rb = await startRocketbun({ name: "rocketbun-orderly" });
    await createRoutedTopic(rb, "OrdB", QUEUES);
    const producer = await createProducer({ namesrvAddr: rb.namesrvAddr, log: silent });
    const delivered: string[] = [];
    /** Listener calls running per queue, over both consumers (one process, one event loop). */
    const active = new Map<number, number>();
    const overlaps: string[] = [];
    const intervals: { who: string; queueId: number; start: number; end: number }[] = [];
    const consumers: PushConsumer[] = [];
    const start = (who: string) =>
      createPushConsumer({
        namesrvAddr: rb.namesrvAddr,
        group: "OrdBG",
        subscriptions: { OrdB: "*" },
        orderly: true,
        ...quick,
        onMessage: async (msgs, context) => {
          const q = context!.mq.queueId;
          const now = active.get(q) ?? 0;
          if (now > 0) overlaps.push(`${who} entered queue ${q} while ${now} call(s) ran`);
          active.set(q, now + 1);
          const begin = performance.now();
          // Work that takes a while, so a second consumer of the queue would be caught inside it.
          await new Promise((resolve) => setTimeout(resolve, 20));
          for (const m of msgs) delivered.push(text(m));
          intervals.push({ who, queueId: q, start: begin, end: performance.now() });
          active.set(q, (active.get(q) ?? 1) - 1);
        },
      }).then((c) => {
        consumers.push(c);
        return c;
      });
    try {
      const a = await start("A");
      await sendSteps(producer, "OrdB", 0, STEPS / 2);
      await waitFor("A consumed some", () => delivered.length >= 20);
      const b = await start("B");
      await waitFor("the queues are split between A and B", () => {
        const [qa, qb] = [owned(a, "OrdB"), owned(b, "OrdB")];
        return qa > 0 && qb > 0 && qa + qb === QUEUES;
      });
      await sendSteps(producer, "OrdB", STEPS / 2, STEPS);
      await waitFor("every step of every key", () => allDelivered(delivered), 30_000);
      const byWho = (who: string) => new Set(intervals.filter((i) => i.who === who).map((i) => i.queueId));
      expect({ overlaps, skips: skips(delivered), bConsumed: byWho("B").size > 0 }).toEqual({
        overlaps: [],
        skips: [],
        bConsumed: true,
      });
      // The same, from the recorded intervals: per queue, no call starts before the previous one ended.
      for (let q = 0; q < QUEUES; q++) {
        const list = intervals.filter((i) => i.queueId === q).sort((x, y) => x.start - y.start);
        for (let i = 1; i < list.length; i++) expect(list[i]!.start).toBeGreaterThanOrEqual(list[i - 1]!.end);
      }
    } finally {
      for (const c of consumers) await c.shutdown();
      await producer.shutdown();
    }
  });

  test("a consumer killed mid-stream: its queues resume on the other member with no message skipped", async () => {
    await using rb = await startRocketbun({ name: "rocketbun-orderly" });
    await createRoutedTopic(rb, "OrdC", QUEUES);
    const producer = await createProducer({ namesrvAddr: rb.namesrvAddr, log: silent });
    const child = Bun.spawn(
      [process.execPath, join(import.meta.dir, "orderly-child.ts"), rb.namesrvAddr, "OrdCG", "OrdC"],
      { stdout: "pipe", stderr: "inherit" },
    );
    const fromA: string[] = [];
    const lines = readLines(child.stdout, (line) => {
      if (line !== "ready") fromA.push(line.slice(line.indexOf(" ") + 1));
    });
    const fromB: string[] = [];
    let b: PushConsumer | null = null;
    try {
      await waitFor("A started", () => lines.seen.includes("ready"), 30_000);
      b = await createPushConsumer({
        namesrvAddr: rb.namesrvAddr,
        group: "OrdCG",
        subscriptions: { OrdC: "*" },
        orderly: true,
        ...quick,
        onMessage: (msgs) => {
          for (const m of msgs) fromB.push(text(m));
        },
      });
      await waitFor("B owns part of the queues", () => owned(b!, "OrdC") > 0 && owned(b!, "OrdC") < QUEUES);
      await sendSteps(producer, "OrdC", 0, STEPS / 2);
      await waitFor("A consumed some of its queues", () => fromA.length >= 10);
      child.kill("SIGKILL");
      await child.exited;
      await sendSteps(producer, "OrdC", STEPS / 2, STEPS);
      await waitFor("B took every queue", () => owned(b!, "OrdC") === QUEUES, 30_000);
      await waitFor("every step of every key", () => allDelivered([...fromA, ...fromB]), 30_000);
      // Per key: A's steps start at 0 and B's pick up at or before A's next; each side in order.
      const perKey = (list: string[], key: string) =>
        list
          .map(parse)
          .filter((m) => m.key === key)
          .map((m) => m.step);
      for (const key of KEYS) {
        const [a, bs] = [perKey(fromA, key), perKey(fromB, key)];
        expect({ key, aInOrder: a, bInOrder: bs }).toEqual({
          key,
          aInOrder: [...a].sort((x, y) => x - y),
          bInOrder: [...bs].sort((x, y) => x - y),
        });
        const resumeAt = bs[0] ?? STEPS;
        expect({ key, gap: resumeAt > (a.at(-1) ?? -1) + 1 }).toEqual({ key, gap: false });
      }
    } finally {
      child.kill("SIGKILL");
      await b?.shutdown();
      await producer.shutdown();
    }
  });

  test("ali-ons, one message at a time per queue and without locks, reads the keyed stream in order", async () => {
    await using rb = await startRocketbun({ name: "rocketbun-orderly" });
    await createRoutedTopic(rb, "OrdD", QUEUES);
    const producer = await createProducer({ namesrvAddr: rb.namesrvAddr, log: silent });
    const consumer = new AliConsumer({
      ...ALI_ONS_LOCAL,
      nameSrv: rb.namesrvAddr,
      consumerGroup: "OrdDAli",
      consumeFromWhere: "CONSUME_FROM_FIRST_OFFSET",
      brokerSuspendMaxTimeMillis: 1000,
    });
    const delivered: string[] = [];
    consumer.subscribe("OrdD", "*", async (msg: { body: Buffer }) => {
      delivered.push(msg.body.toString());
    });
    await consumer.ready();
    try {
      await sendSteps(producer, "OrdD", 0, STEPS);
      await waitFor("every step of every key", () => allDelivered(delivered), 30_000);
      const steps = [...Array(STEPS).keys()];
      const perKey = (key: string) =>
        delivered
          .map(parse)
          .filter((m) => m.key === key)
          .map((m) => m.step);
      expect(Object.fromEntries(KEYS.map((k) => [k, perKey(k)]))).toEqual(
        Object.fromEntries(KEYS.map((k) => [k, steps])),
      );
    } finally {
      await consumer.close();
      await producer.shutdown();
    }
  });
});

/** Reads a child's stdout line by line into `seen`, calling `onLine` for each. */
function readLines(stream: ReadableStream<Uint8Array>, onLine: (line: string) => void) {
  const seen: string[] = [];
  void (async () => {
    const decoder = new TextDecoder();
    let rest = "";
    for await (const chunk of stream) {
      rest += decoder.decode(chunk, { stream: true });
      let nl = rest.indexOf("\n");
      while (nl >= 0) {
        const line = rest.slice(0, nl);
        rest = rest.slice(nl + 1);
        seen.push(line);
        onLine(line);
        nl = rest.indexOf("\n");
      }
    }
  })();
  return { seen };
}
