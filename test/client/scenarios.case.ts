/**
 * Scenarios the issue asks for, written once and run against any cluster: the fake broker now,
 * `rocketbun start` once the real broker exists. Each takes a NameServer address and a topic that
 * exists with at least one queue.
 */
import { expect } from "bun:test";
import { Consumer as AliConsumer, Message as AliMessage, Producer as AliProducer } from "ali-ons";
import {
  createProducer,
  createPushConsumer,
  type MessageExt,
  type PushConsumer,
  userProperties,
} from "../../src/client/index.ts";
import { ALI_ONS_LOCAL } from "../support/ali-ons.ts";
import { silent } from "../support/silent.ts";
import { waitFor } from "./harness.ts";

interface AliMsg {
  topic: string;
  tags: string;
  keys: string;
  body: Buffer;
  msgId: string;
  properties: Record<string, string>;
}

const quick = {
  log: silent,
  brokerSuspendMaxMs: 1000,
  pullErrorDelayMs: 50,
  persistConsumerOffsetIntervalMs: 100,
};

/** ali-ons produces, our push consumer consumes: body, tags, keys, properties and ids identical. */
export async function aliOnsToNative(namesrvAddr: string, topic: string): Promise<void> {
  const producer = new AliProducer({
    ...ALI_ONS_LOCAL,
    nameSrv: namesrvAddr,
    producerGroup: "ALI_PG",
  });
  await producer.ready();
  const got: MessageExt[] = [];
  const consumer = await createPushConsumer({
    namesrvAddr,
    group: "NATIVE_FROM_ALI",
    subscriptions: { [topic]: "*" },
    consumeFromWhere: "CONSUME_FROM_FIRST_OFFSET",
    onMessage: (msgs) => {
      got.push(...msgs.filter((m) => m.properties.origin === "ali-ons"));
    },
    ...quick,
  });
  try {
    const sent: { body: string; tags: string; keys: string[]; msgId: string }[] = [];
    for (let i = 0; i < 5; i++) {
      const msg = new AliMessage(topic, `Tag${i}`, Buffer.from(`ali ${i} ✓`));
      msg.keys = [`ak${i}`, `bk${i}`];
      msg.properties.origin = "ali-ons";
      msg.properties.seq = String(i);
      const r = (await producer.send(msg)) as { msgId: string };
      sent.push({ body: `ali ${i} ✓`, tags: `Tag${i}`, keys: [`ak${i}`, `bk${i}`], msgId: r.msgId });
    }
    await waitFor("native consumer got the ali-ons messages", () => got.length >= 5);
    const seen = got
      .map((m) => ({
        body: new TextDecoder().decode(m.body),
        tags: m.tags,
        keys: m.keys,
        msgId: m.msgId,
        user: userProperties(m),
      }))
      .sort((a, b) => a.body.localeCompare(b.body));
    expect(seen).toEqual(
      sent.map((s, i) => ({
        body: s.body,
        tags: s.tags,
        keys: s.keys,
        msgId: s.msgId,
        user: { origin: "ali-ons", seq: String(i) },
      })),
    );
  } finally {
    await consumer.shutdown();
    await producer.close();
  }
}

/** Our producer produces, ali-ons consumes: body, tags, keys, properties and ids identical. */
export async function nativeToAliOns(namesrvAddr: string, topic: string): Promise<void> {
  const producer = await createProducer({ namesrvAddr, group: "NATIVE_PG", log: silent });
  const consumer = new AliConsumer({
    ...ALI_ONS_LOCAL,
    nameSrv: namesrvAddr,
    consumerGroup: "ALI_FROM_NATIVE",
    consumeFromWhere: "CONSUME_FROM_FIRST_OFFSET",
    brokerSuspendMaxTimeMillis: 1000,
  });
  const got: AliMsg[] = [];
  consumer.subscribe(topic, "*", async (msg: AliMsg) => {
    if (msg.properties.origin === "native") got.push(msg);
  });
  await consumer.ready();
  try {
    const sent = [];
    for (let i = 0; i < 5; i++) {
      const r = await producer.send({
        topic,
        body: `native ${i} ✓`,
        tags: `T${i}`,
        keys: [`nk${i}`],
        properties: { origin: "native", seq: String(i) },
      });
      sent.push({
        body: `native ${i} ✓`,
        tags: `T${i}`,
        keys: `nk${i}`,
        offsetMsgId: r.offsetMsgId,
        uniq: r.msgId,
        seq: String(i),
      });
    }
    await waitFor("ali-ons consumer got the native messages", () => got.length >= 5, 30_000);
    const seen = got
      .map((m) => ({
        body: m.body.toString(),
        tags: m.tags,
        keys: m.keys,
        offsetMsgId: m.msgId,
        uniq: m.properties.UNIQ_KEY,
        seq: m.properties.seq,
      }))
      .sort((a, b) => a.body.localeCompare(b.body));
    expect(seen).toEqual(sent);
  } finally {
    await consumer.close();
    await producer.shutdown();
  }
}

/**
 * A group goes 1 → 3 → 1 consumers while messages keep coming: every message is consumed;
 * duplicates can only come from queues that changed owner. Returns the counts for the report.
 */
export async function rebalanceOneThreeOne(
  namesrvAddr: string,
  topic: string,
  queueCount: number,
): Promise<{ sent: number; distinct: number; duplicates: number }> {
  const producer = await createProducer({ namesrvAddr, log: silent });
  const counts = new Map<string, number>();
  const group = `G131_${topic}`;
  const make = () =>
    createPushConsumer({
      namesrvAddr,
      group,
      subscriptions: { [topic]: "*" },
      consumeFromWhere: "CONSUME_FROM_FIRST_OFFSET",
      onMessage: (msgs) => {
        for (const m of msgs) counts.set(m.msgId, (counts.get(m.msgId) ?? 0) + 1);
      },
      ...quick,
      persistConsumerOffsetIntervalMs: 20,
    });
  const sent: string[] = [];
  const sendSome = async (n: number) => {
    for (let i = 0; i < n; i++) sent.push((await producer.send({ topic, body: `m${sent.length}` })).msgId);
  };
  const owned = (cs: PushConsumer[]) =>
    cs
      .map((c) => c.assignedQueues().filter((q) => q.topic === topic).length)
      .sort((a, b) => a - b)
      .join();
  const share = (n: number) => {
    const base = Math.floor(queueCount / n);
    const extra = queueCount % n;
    return Array.from({ length: n }, (_, i) => base + (i < extra ? 1 : 0))
      .sort((a, b) => a - b)
      .join();
  };
  const c1 = await make();
  try {
    await sendSome(50);
    const c2 = await make();
    const c3 = await make();
    await sendSome(50);
    await waitFor("three-way split", () => owned([c1, c2, c3]) === share(3));
    await sendSome(50);
    await c2.shutdown();
    await c3.shutdown();
    await waitFor("c1 owns all again", () => owned([c1]) === String(queueCount));
    await sendSome(50);
    await waitFor("every message consumed", () => sent.every((id) => counts.has(id)), 30_000);
  } finally {
    await c1.shutdown();
    await producer.shutdown();
  }
  const duplicates = [...counts.values()].filter((n) => n > 1).length;
  console.log(
    `rebalance 1→3→1 on ${topic}: ${sent.length} sent, ${counts.size} distinct consumed, ${duplicates} consumed twice`,
  );
  expect({ distinct: counts.size, lostNone: sent.every((id) => counts.has(id)) }).toEqual({
    distinct: sent.length,
    lostNone: true,
  });
  // At most one pull batch (32) per queue that changed owner, over the two rebalances.
  expect(duplicates).toBeLessThanOrEqual(2 * queueCount * 32);
  return { sent: sent.length, distinct: counts.size, duplicates };
}
