/**
 * SimpleConsumer against `rocketbun start` (child process, temp home, free ports): receive and ack;
 * an un-acked message comes back after its invisible duration with reconsumeTimes 1 and the same
 * msgId; changeInvisibleDuration's new handle acks while the old one does not; two consumers of one
 * group never hold the same message at once; bad calls are refused.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import {
  createAdmin,
  createProducer,
  createSimpleConsumer,
  MQClientError,
  type Producer,
  type SimpleConsumer,
  type SimpleMessage,
} from "../../src/client/index.ts";
import { ResponseCode } from "../../src/remoting/index.ts";
import { type StartedRocketbun, startRocketbun, waitFor } from "../support/rocketbun-child.ts";
import { silent } from "../support/silent.ts";

let rb: StartedRocketbun;
let producer: Producer;

async function createTopic(topic: string, queues: number): Promise<void> {
  const admin = await createAdmin({ namesrvAddr: rb.namesrvAddr, log: silent });
  try {
    await admin.createTopic(topic, { readQueueNums: queues, writeQueueNums: queues });
    await waitFor(`route of ${topic}`, () =>
      admin.topicRoute(topic).then(
        () => true,
        () => false,
      ),
    );
  } finally {
    await admin.shutdown();
  }
}

beforeAll(async () => {
  rb = await startRocketbun({ name: "rocketbun-simple-consumer" });
  producer = await createProducer({ namesrvAddr: rb.namesrvAddr, log: silent });
});

afterAll(async () => {
  await producer.shutdown();
  await rb.stop();
});

const text = (m: SimpleMessage) => new TextDecoder().decode(m.body);

async function consumer(
  group: string,
  topic: string,
  over: Record<string, number> = {},
): Promise<SimpleConsumer> {
  return createSimpleConsumer({
    namesrvAddr: rb.namesrvAddr,
    group,
    subscriptions: { [topic]: "*" },
    awaitDuration: 2000,
    invisibleDuration: 30_000,
    startFrom: "first",
    log: silent,
    ...over,
  });
}

/** Receives until `n` messages came or a receive comes back empty. */
async function receiveN(c: SimpleConsumer, n: number): Promise<SimpleMessage[]> {
  const out: SimpleMessage[] = [];
  while (out.length < n) {
    const got = await c.receive(Math.min(32, n - out.length));
    if (got.length === 0) break;
    out.push(...got);
  }
  return out;
}

test("received messages carry an opaque receipt handle; acked ones are not delivered again", async () => {
  await createTopic("ScAck", 2);
  const sent = [];
  for (let i = 0; i < 4; i++) sent.push(await producer.send({ topic: "ScAck", body: `a${i}`, tags: "T" }));
  const c = await consumer("SC_ACK", "ScAck", { awaitDuration: 300 });
  try {
    const got = await receiveN(c, 4);
    expect(got.map(text).sort()).toEqual(["a0", "a1", "a2", "a3"]);
    expect(got.map((m) => m.msgId).sort()).toEqual(sent.map((s) => s.msgId).sort());
    expect(got.map((m) => [m.topic, m.tags, m.reconsumeTimes, typeof m.receiptHandle])).toEqual(
      Array(4).fill(["ScAck", "T", 0, "string"]),
    );
    for (const m of got) await c.ack(m);
    expect(await c.receive(32)).toEqual([]);
  } finally {
    await c.shutdown();
  }
});

test("an un-acked message comes back after its invisible duration: reconsumeTimes 1, the same msgId", async () => {
  await createTopic("ScExp", 1);
  const sent = await producer.send({ topic: "ScExp", body: "lost" });
  const c = await consumer("SC_EXP", "ScExp", { invisibleDuration: 1000, awaitDuration: 5000 });
  try {
    const [first] = await c.receive(1);
    expect([text(first!), first!.reconsumeTimes]).toEqual(["lost", 0]);
    const again = await waitFor("redelivery", async () => (await c.receive(1))[0]);
    expect([text(again), again.msgId, again.reconsumeTimes, again.topic]).toEqual([
      "lost",
      sent.msgId,
      1,
      "ScExp",
    ]);
    expect(again.receiptHandle).not.toBe(first!.receiptHandle);
    await c.ack(again);
    const idle = await createSimpleConsumer({
      namesrvAddr: rb.namesrvAddr,
      group: "SC_EXP",
      subscriptions: { ScExp: "*" },
      awaitDuration: 1500,
      log: silent,
    });
    try {
      expect(await idle.receive(1)).toEqual([]);
    } finally {
      await idle.shutdown();
    }
  } finally {
    await c.shutdown();
  }
});

test("changeInvisibleDuration returns a new handle that acks; the old one acks nothing", async () => {
  await createTopic("ScChg", 1);
  await producer.send({ topic: "ScChg", body: "kept-by-old" });
  await producer.send({ topic: "ScChg", body: "acked-by-new" });
  const c = await consumer("SC_CHG", "ScChg", { invisibleDuration: 30_000, awaitDuration: 2000 });
  try {
    const got = await receiveN(c, 2);
    const byText = new Map(got.map((m) => [text(m), m]));
    const oldHandles = new Map(got.map((m) => [text(m), m.receiptHandle]));
    for (const m of got) {
      const fresh = await c.changeInvisibleDuration(m, 1500);
      expect(fresh).toBe(m.receiptHandle);
      expect(fresh).not.toBe(oldHandles.get(text(m)));
    }
    // The old handle: the broker answers success, but the lease it named is gone.
    await c.ack({ ...byText.get("kept-by-old")!, receiptHandle: oldHandles.get("kept-by-old")! });
    await c.ack(byText.get("acked-by-new")!);
    const back = await waitFor("the message acked by its old handle comes back", async () => {
      const r = await c.receive(32);
      return r.length > 0 ? r : null;
    });
    expect(back.map((m) => [text(m), m.reconsumeTimes])).toEqual([["kept-by-old", 1]]);
    await c.ack(back[0]!);
    expect(await c.receive(32)).toEqual([]);
  } finally {
    await c.shutdown();
  }
});

test("two consumers of one group never hold the same message at once, and every message is consumed once", async () => {
  await createTopic("ScTwo", 4);
  const total = 60;
  const ids: string[] = [];
  for (let i = 0; i < total; i++) ids.push((await producer.send({ topic: "ScTwo", body: `t${i}` })).msgId);
  const [a, b] = await Promise.all([consumer("SC_TWO", "ScTwo"), consumer("SC_TWO", "ScTwo")]);
  const holder = new Map<string, string>();
  const overlaps: string[] = [];
  const acked = new Map<string, number>();
  const run = async (name: string, c: SimpleConsumer) => {
    for (;;) {
      const got = await c.receive(8);
      if (got.length === 0) return;
      for (const m of got) {
        const other = holder.get(m.msgId);
        if (other !== undefined) overlaps.push(`${m.msgId} held by ${other} and ${name}`);
        holder.set(m.msgId, name);
      }
      await Bun.sleep(1); // hold the leases across a turn of the other consumer
      for (const m of got) {
        holder.delete(m.msgId);
        await c.ack(m);
        acked.set(m.msgId, (acked.get(m.msgId) ?? 0) + 1);
      }
    }
  };
  try {
    await Promise.all([run("a", a!), run("b", b!)]);
  } finally {
    await Promise.all([a!.shutdown(), b!.shutdown()]);
  }
  expect(overlaps).toEqual([]);
  expect([...acked.keys()].sort()).toEqual([...ids].sort());
  expect([...acked.values()].every((n) => n === 1)).toBe(true);
});

test("refusals: unknown topic, bad max, bad handle, calls after shutdown", async () => {
  const refused = (p: Promise<unknown>) =>
    p.then(
      () => "accepted",
      (e: unknown) => (e instanceof MQClientError ? e.code : String(e)),
    );
  expect(await refused(consumer("SC_BAD", "ScNoSuchTopic"))).toBe(ResponseCode.TOPIC_NOT_EXIST);
  await createTopic("ScBad", 1);
  const c = await consumer("SC_BAD", "ScBad", { awaitDuration: 0 });
  expect(await refused(c.receive(33))).toBe(ResponseCode.INVALID_PARAMETER);
  expect(await refused(c.receive(0))).toBe(ResponseCode.INVALID_PARAMETER);
  const fake = { topic: "ScBad", receiptHandle: "not a handle" } as SimpleMessage;
  expect(await refused(c.ack(fake))).toBe(ResponseCode.INVALID_PARAMETER);
  expect(await refused(c.changeInvisibleDuration(fake, -1))).toBe(ResponseCode.INVALID_PARAMETER);
  await c.shutdown();
  expect(await refused(c.receive(1))).toBe(ResponseCode.SERVICE_NOT_AVAILABLE);
  expect(
    await refused(
      createSimpleConsumer({
        namesrvAddr: rb.namesrvAddr,
        group: "G",
        subscriptions: {},
        invisibleDuration: 5,
      }),
    ),
  ).toBe(ResponseCode.INVALID_PARAMETER);
});
