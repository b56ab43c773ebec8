/**
 * The orderly consume loop (consume-orderly.ts) on its own, with a stand-in for the broker locks:
 * one batch of a queue at a time and in order, a failed batch first again, nothing consumed without
 * the lock, a seek discards what was queued, settle waits for the batch in flight, and a message out
 * of attempts goes to the DLQ only when the broker takes it.
 */
import { describe, expect, test } from "bun:test";
import { Limiter } from "../../src/client/abortable.ts";
import { type ConsumeOrderlyContext, OrderlyConsumer } from "../../src/client/consume-orderly.ts";
import type { MessageExt } from "../../src/client/message.ts";
import { ProcessQueue } from "../../src/client/process-queue.ts";
import type { PullTarget } from "../../src/client/pull-loop.ts";
import type { QueueLocks } from "../../src/client/queue-locks.ts";
import { silent } from "../support/silent.ts";
import { waitFor } from "./harness.ts";

const msg = (queueOffset: number) =>
  ({ queueOffset, body: new Uint8Array(1), reconsumeTimes: 0, properties: {} }) as unknown as MessageExt;

function target(queueId = 0): PullTarget {
  return { mq: { topic: "T", brokerName: "b", queueId }, pq: new ProcessQueue(), nextOffset: 0 };
}

/** Puts messages into the process queue, as the pull loop does, and hands them over. */
function pulled(consumer: OrderlyConsumer, t: PullTarget, offsets: number[]): void {
  const msgs = offsets.map(msg);
  t.pq.put(msgs);
  consumer.submit(t, msgs);
}

interface Setup {
  listener?: (msgs: MessageExt[], context: ConsumeOrderlyContext) => void | Promise<void>;
  locked?: () => boolean;
  maxReconsumeTimes?: number;
  deadLetter?: (m: MessageExt) => Promise<boolean>;
  batchSize?: number;
}

function setup(s: Setup = {}) {
  const commits: [number, number][] = [];
  const calls: string[] = [];
  const abort = new AbortController();
  const locked = s.locked ?? (() => true);
  let lockAsks = 0;
  const locks = {
    isLocked: () => locked(),
    lock: async () => {
      lockAsks++;
      return locked();
    },
  } as unknown as QueueLocks;
  const consumer = new OrderlyConsumer({
    log: silent,
    listener: async (msgs, context) => {
      calls.push(`${context.mq.queueId}:${msgs.map((m) => m.queueOffset).join(",")}`);
      await s.listener?.(msgs, context);
    },
    prepare: () => {},
    locks,
    limiter: new Limiter(8),
    batchSize: s.batchSize ?? 1,
    suspendMs: 1,
    relockRetryMs: 1,
    maxReconsumeTimes: s.maxReconsumeTimes ?? -1,
    sendToDeadLetter: s.deadLetter ?? (async () => false),
    commit: (t, offset) => commits.push([t.mq.queueId, offset]),
    signal: abort.signal,
  });
  return {
    consumer,
    commits,
    calls,
    abort,
    /** How often the loop asked the broker for a lock it did not hold. */
    lockAsks: () => lockAsks,
  };
}

describe("orderly consume loop", () => {
  test("a queue's messages go one batch at a time, in offset order, each committed after its batch", async () => {
    let running = 0;
    let most = 0;
    const { consumer, commits, calls } = setup({
      batchSize: 2,
      listener: async () => {
        most = Math.max(most, ++running);
        await Bun.sleep(1);
        running--;
      },
    });
    const t = target();
    pulled(consumer, t, [0, 1, 2]);
    pulled(consumer, t, [3, 4]);
    pulled(consumer, t, [3, 4]); // the same pull answered twice
    await waitFor("all consumed", () => commits.at(-1)?.[1] === 5);
    expect({ calls, commits, most }).toEqual({
      calls: ["0:0,1", "0:2,3", "0:4"],
      commits: [
        [0, 2],
        [0, 4],
        [0, 5],
      ],
      most: 1,
    });
  });

  test("a failed batch is offered again before anything behind it, with its attempt counted", async () => {
    const attempts: number[] = [];
    let failures = 2;
    const { consumer, calls, commits } = setup({
      listener: (msgs, context) => {
        if (msgs[0]!.queueOffset !== 1) return;
        attempts.push(msgs[0]!.reconsumeTimes);
        context.suspendCurrentQueueTimeMillis = 5;
        if (failures-- > 0) throw new Error("later");
      },
    });
    const t = target();
    pulled(consumer, t, [0, 1, 2]);
    await waitFor("all consumed", () => commits.at(-1)?.[1] === 3);
    expect({ calls, attempts }).toEqual({ calls: ["0:0", "0:1", "0:1", "0:1", "0:2"], attempts: [0, 1, 2] });
  });

  test("nothing is consumed while the lock is not held; consumption starts once it is", async () => {
    let locked = false;
    const { consumer, calls, commits, lockAsks } = setup({ locked: () => locked });
    const t = target();
    pulled(consumer, t, [0]);
    await waitFor("the lock refused three times", () => lockAsks() >= 3);
    const before = [...calls];
    locked = true;
    await waitFor("consumed after the lock", () => commits.length === 1);
    expect({ before, calls }).toEqual({ before: [], calls: ["0:0"] });
  });

  test("a seek (new generation) while a batch runs: its commit is dropped and the old messages with it", async () => {
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { consumer, calls, commits } = setup({
      listener: async (msgs) => {
        if (msgs[0]!.queueOffset === 0) await gate;
      },
    });
    const t = target();
    pulled(consumer, t, [0, 1, 2]);
    await waitFor("first batch running", () => calls.length === 1);
    t.pq.generation += 1;
    t.pq.clear();
    release();
    pulled(consumer, t, [10]);
    await waitFor("the new position consumed", () => commits.length === 1);
    expect({ calls, commits }).toEqual({ calls: ["0:0", "0:10"], commits: [[0, 11]] });
  });

  test("settle after a drop waits for the batch in flight, which still commits", async () => {
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { consumer, calls, commits } = setup({ listener: () => gate });
    const t = target();
    pulled(consumer, t, [0, 1]);
    await waitFor("batch running", () => calls.length === 1);
    t.pq.drop();
    const order: string[] = [];
    const settling = consumer.settle(t).then(() => order.push("settled"));
    // A turn of the event loop in which a settle that did not wait would have resolved.
    await new Promise((resolve) => setTimeout(resolve, 0));
    order.push("released");
    release();
    await settling;
    expect({ order, calls, commits }).toEqual({
      order: ["released", "settled"],
      calls: ["0:0"],
      commits: [[0, 1]],
    });
  });

  test("a message out of attempts moves on only once the DLQ took it", async () => {
    let dlqUp = false;
    let refused = 0;
    const sent: number[] = [];
    const { consumer, commits } = setup({
      maxReconsumeTimes: 1,
      listener: () => {
        throw new Error("never");
      },
      deadLetter: async (m) => {
        if (dlqUp) sent.push(m.queueOffset);
        else refused++;
        return dlqUp;
      },
    });
    const t = target();
    pulled(consumer, t, [0]);
    await waitFor("the DLQ refused it three times", () => refused >= 3);
    const before = [...commits];
    dlqUp = true;
    await waitFor("handed to the DLQ", () => commits.length === 1);
    expect({ before, sent, commits }).toEqual({ before: [], sent: [0], commits: [[0, 1]] });
  });
});
