/**
 * The client against `rocketbun start` (NameServer + real Broker in a child process, temp home,
 * free ports).
 */
import { describe, expect, test } from "bun:test";
import { createAdmin, createProducer, createPushConsumer } from "../../src/client/index.ts";
import { startRocketbun, waitFor } from "../support/rocketbun-child.ts";
import { silent } from "../support/silent.ts";
import { aliOnsToNative, nativeToAliOns, rebalanceOneThreeOne } from "./scenarios.case.ts";

async function createTopic(namesrvAddr: string, topic: string, queues: number): Promise<void> {
  const admin = await createAdmin({ namesrvAddr, log: silent });
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

describe("client against rocketbun start", () => {
  test("ali-ons and the native client interoperate in both directions", async () => {
    await using rb = await startRocketbun({ name: "rocketbun-client-it" });
    await createTopic(rb.namesrvAddr, "ItAli", 4);
    await aliOnsToNative(rb.namesrvAddr, "ItAli");
    await nativeToAliOns(rb.namesrvAddr, "ItAli");
  });

  test("a group going 1 → 3 → 1 consumers consumes every message", async () => {
    await using rb = await startRocketbun({ name: "rocketbun-client-it" });
    await createTopic(rb.namesrvAddr, "ItRb", 8);
    await rebalanceOneThreeOne(rb.namesrvAddr, "ItRb", 8);
  });

  test("a broker restart during consumption: the consumer reconnects and resumes from committed offsets", async () => {
    await using rb = await startRocketbun({ name: "rocketbun-client-it" });
    await createTopic(rb.namesrvAddr, "ItRs", 4);
    const producer = await createProducer({ namesrvAddr: rb.namesrvAddr, log: silent });
    const counts = new Map<string, number>();
    const consumer = await createPushConsumer({
      namesrvAddr: rb.namesrvAddr,
      group: "ItRsG",
      subscriptions: { ItRs: "*" },
      consumeFromWhere: "CONSUME_FROM_FIRST_OFFSET",
      log: silent,
      pullErrorDelayMs: 100,
      persistConsumerOffsetIntervalMs: 100,
      onMessage: (msgs) => {
        for (const m of msgs) counts.set(m.msgId, (counts.get(m.msgId) ?? 0) + 1);
      },
    });
    const sent: string[] = [];
    try {
      for (let i = 0; i < 20; i++) sent.push((await producer.send({ topic: "ItRs", body: `a${i}` })).msgId);
      await waitFor("first 20 consumed", () => sent.every((id) => counts.has(id)));
      const admin = await createAdmin({ namesrvAddr: rb.namesrvAddr, log: silent });
      try {
        await waitFor("offsets committed on the broker", async () => {
          const progress = await admin.consumerProgress("ItRsG", ["ItRs"]).catch(() => []);
          return progress.length > 0 && progress.every((p) => p.lag === 0);
        });
      } finally {
        await admin.shutdown();
      }
      await rb.restart();
      for (let i = 0; i < 20; i++) {
        const r = await waitFor(
          `send b${i}`,
          () => producer.send({ topic: "ItRs", body: `b${i}` }).catch(() => null),
          30_000,
        );
        sent.push(r.msgId);
      }
      await waitFor("all 40 consumed", () => sent.every((id) => counts.has(id)), 30_000);
    } finally {
      await consumer.shutdown();
      await producer.shutdown();
    }
    const duplicates = [...counts.values()].filter((n) => n > 1).length;
    console.log(`broker restart: ${sent.length} sent, ${counts.size} consumed, ${duplicates} twice`);
    // Nothing lost, and what was committed before the restart is not delivered again.
    const firstTwenty = sent.slice(0, 20).map((id) => counts.get(id));
    expect({ consumed: counts.size, firstTwenty }).toEqual({ consumed: 40, firstTwenty: Array(20).fill(1) });
  });
});
