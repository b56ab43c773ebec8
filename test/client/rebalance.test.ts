import { describe, expect, test } from "bun:test";
import { allocateAveragely } from "../../src/client/index.ts";
import type { MessageQueue } from "../../src/client/message-queue.ts";
import { topicConfig } from "../../src/protocol/route/index.ts";
import { startCluster } from "./harness.ts";
import { rebalanceOneThreeOne } from "./scenarios.case.ts";

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
    await using cluster = await startCluster([
      { topics: [topicConfig("RB", { readQueueNums: 8, writeQueueNums: 8 })] },
    ]);
    await rebalanceOneThreeOne(cluster.namesrvAddr, "RB", 8);
  });
});
