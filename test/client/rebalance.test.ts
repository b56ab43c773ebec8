import { describe, expect, test } from "bun:test";
import {
  allocateAveragely,
  createProducer,
  createPushConsumer,
  type PushConsumer,
} from "../../src/client/index.ts";
import type { MessageQueue } from "../../src/client/message-queue.ts";
import { startCluster, waitFor } from "./harness.ts";
import { silent } from "./silent.ts";

const queues = (n: number): MessageQueue[] =>
  Array.from({ length: n }, (_, i) => ({
    topic: "T",
    brokerName: i < n / 2 ? "a" : "b",
    queueId: i % (n / 2),
  }));

describe("allocation", () => {
  test("average allocation gives contiguous blocks, the first (mqs mod cids) consumers one more", () => {
    const mqs = queues(8);
    const cids = ["c3", "c1", "c2"];
    const got = cids.map((c) => allocateAveragely(c, mqs, cids).map((q) => `${q.brokerName}${q.queueId}`));
    expect(got).toEqual([
      ["b2", "b3"],
      ["a0", "a1", "a2"],
      ["a3", "b0", "b1"],
    ]);
  });

  test("with more consumers than queues each queue has exactly one owner", () => {
    const mqs = queues(2);
    const cids = ["c1", "c2", "c3", "c4"];
    expect(cids.map((c) => allocateAveragely(c, mqs, cids).length)).toEqual([1, 1, 0, 0]);
  });
});

describe("rebalance", () => {
  test("a group going 1 → 3 → 1 consumers consumes every message, duplicates only around rebalances", async () => {
    await using cluster = await startCluster([{ topics: [{ ...topic("RB", 8) }] }]);
    const producer = await createProducer({ namesrvAddr: cluster.namesrvAddr, log: silent });
    const counts = new Map<string, number>();
    const make = () =>
      createPushConsumer({
        namesrvAddr: cluster.namesrvAddr,
        group: "GRB",
        subscriptions: { RB: "*" },
        consumeFromWhere: "CONSUME_FROM_FIRST_OFFSET",
        log: silent,
        brokerSuspendMaxMs: 500,
        pullErrorDelayMs: 20,
        persistConsumerOffsetIntervalMs: 20,
        onMessage: (msgs) => {
          for (const m of msgs) counts.set(m.msgId, (counts.get(m.msgId) ?? 0) + 1);
        },
      });
    const sent: string[] = [];
    const sendSome = async (n: number) => {
      for (let i = 0; i < n; i++)
        sent.push((await producer.send({ topic: "RB", body: `m${sent.length}` })).msgId);
    };
    const owned = (cs: PushConsumer[]) =>
      cs.map((c) => c.assignedQueues().filter((q) => q.topic === "RB").length).sort();
    const c1 = await make();
    await sendSome(50);
    const c2 = await make();
    const c3 = await make();
    await sendSome(50);
    await waitFor("three-way split", () => owned([c1, c2, c3]).join() === "2,3,3");
    await sendSome(50);
    await c2.shutdown();
    await c3.shutdown();
    await waitFor("c1 owns all again", () => owned([c1]).join() === "8");
    await sendSome(50);
    await waitFor("every message consumed", () => sent.every((id) => counts.has(id)));
    await c1.shutdown();
    await producer.shutdown();
    const duplicates = [...counts.values()].filter((n) => n > 1).length;
    console.log(
      `rebalance 1→3→1: ${sent.length} sent, ${counts.size} distinct consumed, ${duplicates} consumed twice`,
    );
    expect({ distinct: counts.size, lostNone: sent.every((id) => counts.has(id)) }).toEqual({
      distinct: 200,
      lostNone: true,
    });
    // Duplicates can only come from queues that changed owner: at most one pull batch per moved queue and move.
    expect(duplicates).toBeLessThanOrEqual(8 * 32);
  });
});

function topic(name: string, n: number) {
  return {
    topicName: name,
    readQueueNums: n,
    writeQueueNums: n,
    perm: 6,
    topicFilterType: "SINGLE_TAG" as const,
    topicSysFlag: 0,
    order: false,
    attributes: {},
  };
}
