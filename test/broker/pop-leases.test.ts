/**
 * The POP lease table and parked-pop registry without a network (spec pop-timer-filter §A.7,
 * §A.9, §A.11, §A.18): a lease is identified by (popTime, ckQueueOffset); CHANGE supersedes the
 * old handle; the commit follows the lowest leased offset and never moves back; an expired lease
 * whose message is gone is settled; arrivals wake one matching waiter per (group, queue); BATCH_ACK
 * bit sets decode as the spec's example.
 */
import { describe, expect, test } from "bun:test";
import type { BrokerContext } from "../../broker/context.ts";
import { ConsumerOffsets } from "../../broker/metadata/consumer-offsets.ts";
import { bitSetOffsets } from "../../broker/processors/ack.ts";
import { originalTopicOf, type PopQueue, PopService } from "../../broker/services/pop-leases.ts";
import { type PopWaiter, PopWaiters } from "../../broker/services/pop-leases-waiters.ts";
import type { Connection } from "../../src/remoting/connection.ts";
import { silent } from "../integration/harness.ts";

function fakeContext(): BrokerContext {
  const offsets = new ConsumerOffsets("/nonexistent", silent);
  const store = {
    getMessage: async () => ({ status: "NO_MESSAGE_IN_QUEUE", messages: [] }),
    readQueueUnits: async () => [],
    readRecords: async () => [],
  };
  return {
    offsets,
    store,
    log: silent,
    storeConfig: { maxTransferBytesOnMessageInMemory: 1 << 18 },
  } as unknown as BrokerContext;
}

/** One pop of `offsets` from `q` at `popTime`, the batch starting at `ckOffset`. */
function popAt(
  pop: PopService,
  q: PopQueue,
  offsets: number[],
  popTime: number,
  ckOffset = 0,
  invisibleTime = 60_000,
): void {
  const next = Math.max(...offsets) + 1;
  void pop.popped(q, { ckOffset, popTime, invisibleTime, reviveQid: 1 }, offsets, next);
}

describe("lease table", () => {
  test("the commit follows the lowest leased offset and reaches the popped end once all are acked", () => {
    const ctx = fakeContext();
    const pop = new PopService(ctx);
    const q = pop.queue("G", "T", "T", 0);
    expect(pop.popOffset(q, () => 0)).toBe(0);
    popAt(pop, q, [0, 1, 2], 1000);
    expect(pop.popOffset(q, () => 0)).toBe(3);
    expect(ctx.offsets.query("G", "T", 0)).toBe(0);
    expect(pop.ack("G", "T", 0, 0, 1000, 0)).toBe(true);
    expect(ctx.offsets.query("G", "T", 0)).toBe(1);
    expect(pop.ack("G", "T", 0, 2, 1000, 0)).toBe(true);
    expect(ctx.offsets.query("G", "T", 0)).toBe(1);
    expect(pop.ack("G", "T", 0, 1, 1000, 0)).toBe(true);
    expect(ctx.offsets.query("G", "T", 0)).toBe(3);
    expect(pop.leaseCount).toBe(0);
  });

  test("an ACK matches only the lease's popTime and ckQueueOffset; anything else is a no-op", () => {
    const pop = new PopService(fakeContext());
    const q = pop.queue("G", "T", "T", 0);
    popAt(pop, q, [5], 1000, 4);
    expect(pop.ack("G", "T", 0, 5, 999, 4)).toBe(false);
    expect(pop.ack("G", "T", 0, 5, 1000, 5)).toBe(false);
    expect(pop.ack("OtherGroup", "T", 0, 5, 1000, 4)).toBe(false);
    expect(pop.leaseCount).toBe(1);
    expect(pop.ack("G", "T", 0, 5, 1000, 4)).toBe(true);
  });

  test("CHANGE leases the offset anew with ckOffset = offset and popTime = now; the old handle goes stale", () => {
    const pop = new PopService(fakeContext());
    const q = pop.queue("G", "T", "T", 0);
    popAt(pop, q, [5], 1000, 4);
    const l = pop.change("G", "T", 0, 5, 30_000, 1, 2000);
    expect({ popTime: l.popTime, ckOffset: l.ckOffset, deadline: l.deadline }).toEqual({
      popTime: 2000,
      ckOffset: 5,
      deadline: 32_000,
    });
    expect(pop.ack("G", "T", 0, 5, 1000, 4)).toBe(false);
    expect(pop.ack("G", "T", 0, 5, 2000, 5)).toBe(true);
  });

  test("an expired lease whose message is gone from the store is settled, and the commit moves past it", async () => {
    const ctx = fakeContext();
    const pop = new PopService(ctx);
    const q = pop.queue("G", "T", "T", 0);
    pop.popOffset(q, () => 0);
    popAt(pop, q, [0], 1000, 0, 100);
    pop.sweep(1050);
    expect(pop.leaseCount).toBe(1);
    pop.sweep(1100);
    await pop.stop();
    expect(pop.leaseCount).toBe(0);
    expect(ctx.offsets.query("G", "T", 0)).toBe(1);
  });

  test("retry topic names map back to the original topic", () => {
    expect(originalTopicOf("%RETRY%G_TopicA", "G")).toBe("TopicA");
    expect(originalTopicOf("%RETRY%G+TopicA", "G")).toBe("TopicA");
    expect(originalTopicOf("TopicA", "G")).toBe("TopicA");
  });
});

describe("parked pops", () => {
  const open = { closed: false } as Connection;

  function waiter(log: string[], name: string, over: Partial<PopWaiter> = {}): PopWaiter {
    return {
      conn: open,
      group: "G",
      topic: "T",
      queueId: -1,
      deadline: Date.now() + 10_000,
      matches: () => true,
      wake: () => log.push(`wake ${name}`),
      expire: () => log.push(`expire ${name}`),
      ...over,
    };
  }

  test("an arrival wakes the first matching waiter of each (group, queue) key, not the others", () => {
    const w = new PopWaiters();
    const log: string[] = [];
    w.park(waiter(log, "a"));
    w.park(waiter(log, "b"));
    w.park(waiter(log, "q1", { queueId: 1 }));
    w.park(waiter(log, "q2", { queueId: 2 }));
    w.park(waiter(log, "picky", { group: "H", matches: () => false }));
    w.notify("T", 1, 0);
    expect(log).toEqual(["wake a", "wake q1"]);
    expect(w.size).toBe(3);
    expect(w.count("T", "G", -1)).toBe(1);
  });

  test("an arrival in the group's V1 retry topic wakes a waiter of the topic whatever its queue", () => {
    const w = new PopWaiters();
    const log: string[] = [];
    w.park(waiter(log, "q3", { queueId: 3 }));
    w.notify("%RETRY%OtherGroup_T", 0, 0);
    w.notify("%RETRY%G_T", 0, 0);
    expect(log).toEqual(["wake q3"]);
    expect(w.size).toBe(0);
  });

  test("the 1025th waiter under one key is refused (POLLING_FULL)", () => {
    const w = new PopWaiters();
    for (let i = 0; i < 1024; i++) expect(w.park(waiter([], `w${i}`))).toBe("parked");
    expect(w.park(waiter([], "over"))).toBe("full");
    expect(w.park(waiter([], "other key", { queueId: 0 }))).toBe("parked");
  });
});

test("BATCH_ACK bit set: the spec's CQI= from offset 100 acks 100, 103 and 109", () => {
  expect(bitSetOffsets("CQI=", 100)).toEqual([100, 103, 109]);
  expect(bitSetOffsets("", 100)).toEqual([]);
});

test("a hostile BATCH_ACK bit set is not expanded past 1024 offsets", () => {
  const all = Buffer.alloc(1 << 20, 0xff).toString("base64");
  const offsets = bitSetOffsets(all, 0);
  expect({ n: offsets.length, last: offsets.at(-1) }).toEqual({ n: 1024, last: 1023 });
});
