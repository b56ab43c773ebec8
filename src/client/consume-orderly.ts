/**
 * Orderly consumption (Java's ConsumeMessageOrderlyService): the messages of each queue go to the
 * listener one batch at a time, in queue order, never two batches of one queue at once. A batch the
 * listener fails stays at the head of its queue and is offered again after a pause
 * (SUSPEND_CURRENT_QUEUE_A_MOMENT); nothing behind it is consumed first. In clustering mode a
 * queue is consumed only while this client holds its broker lock (queue-locks.ts).
 */
import type { Logger } from "../log.ts";
import { MessageConst } from "../protocol/message/index.ts";
import { type Limiter, pause } from "./abortable.ts";
import type { MessageExt } from "./message.ts";
import { type MessageQueue, mqKey, mqText } from "./message-queue.ts";
import type { PullTarget } from "./pull-loop.ts";
import { putProperties } from "./pulled-message.ts";
import type { QueueLocks } from "./queue-locks.ts";

/** Java's suspendCurrentQueueTimeMillis default. */
export const DEFAULT_SUSPEND_CURRENT_QUEUE_MS = 1000;
/** How long a queue whose lock the broker refused waits before asking again (Java: 3 s). */
export const DEFAULT_RELOCK_RETRY_MS = 3000;

/** What an orderly listener call is about; `suspendCurrentQueueTimeMillis` may be changed by the listener. */
export interface ConsumeOrderlyContext {
  readonly mq: MessageQueue;
  /** How long the queue pauses if this call throws (Java's ConsumeOrderlyContext). */
  suspendCurrentQueueTimeMillis: number;
}

export interface OrderlyDeps {
  readonly log: Logger;
  listener(msgs: MessageExt[], context: ConsumeOrderlyContext): void | Promise<void>;
  /** Prepares messages for the listener (retry topic restored); called once per message. */
  prepare(msg: MessageExt): void;
  /** Broker locks, or null when broadcasting (every member consumes every queue; nothing to lock). */
  readonly locks: QueueLocks | null;
  readonly limiter: Limiter;
  readonly batchSize: number;
  readonly suspendMs: number;
  /** Pause after the broker refused the queue's lock. */
  readonly relockRetryMs: number;
  /** A message failed this many times goes to the DLQ (Java's maxReconsumeTimes); -1: never. */
  readonly maxReconsumeTimes: number;
  /** Sends a message to the group's DLQ; false when it could not be handed over. */
  sendToDeadLetter(msg: MessageExt): Promise<boolean>;
  /** Records the queue's next offset to consume. */
  commit(t: PullTarget, offset: number): void;
  readonly signal: AbortSignal;
}

interface QueueState {
  readonly t: PullTarget;
  /** The process queue generation the messages below belong to (a seek clears them). */
  generation: number;
  /** Pulled and not yet consumed, in queue order, from `head`. */
  msgs: MessageExt[];
  head: number;
  /** Highest offset taken in: a pull answered twice must not queue its messages twice. */
  highest: number;
  /** The queue's consume loop while it runs. */
  running: Promise<void> | null;
  /** Ends the loop's pauses when the queue is dropped. */
  readonly wake: AbortController;
}

/** Removes consumed messages from the front once they are this many (amortised, not per batch). */
const COMPACT_AT = 256;

export class OrderlyConsumer {
  private readonly queues = new Map<string, QueueState>();

  constructor(private readonly d: OrderlyDeps) {}

  /** Takes in the messages of a pull (in queue order) and starts the queue's loop if it is idle. */
  submit(t: PullTarget, msgs: readonly MessageExt[]): void {
    const s = this.stateOf(t);
    for (const m of msgs) {
      if (m.queueOffset <= s.highest) continue;
      s.msgs.push(m);
      s.highest = m.queueOffset;
    }
    this.kick(s);
  }

  /** Waits for a dropped queue's loop to finish its batch in flight, then forgets the queue. */
  async settle(t: PullTarget): Promise<void> {
    const key = mqKey(t.mq);
    const s = this.queues.get(key);
    if (!s || s.t !== t) return;
    s.wake.abort();
    await s.running;
    if (this.queues.get(key) === s) this.queues.delete(key);
  }

  /** Messages waiting in a queue (for running info). */
  waiting(mq: MessageQueue): number {
    const s = this.queues.get(mqKey(mq));
    return s ? s.msgs.length - s.head : 0;
  }

  private stateOf(t: PullTarget): QueueState {
    const key = mqKey(t.mq);
    let s = this.queues.get(key);
    if (!s || s.t !== t) {
      s = {
        t,
        generation: t.pq.generation,
        msgs: [],
        head: 0,
        highest: -1,
        running: null,
        wake: new AbortController(),
      };
      this.queues.set(key, s);
    }
    this.sync(s);
    return s;
  }

  /** A seek (reset, OFFSET_ILLEGAL) bumped the generation: what was queued is stale. */
  private sync(s: QueueState): void {
    if (s.generation === s.t.pq.generation) return;
    s.generation = s.t.pq.generation;
    s.msgs = [];
    s.head = 0;
    s.highest = -1;
  }

  private kick(s: QueueState): void {
    if (s.running || s.head >= s.msgs.length) return;
    s.running = this.run(s)
      .catch((err: unknown) => this.d.log.error({ err, mq: mqText(s.t.mq) }, "orderly consume loop failed"))
      .finally(() => {
        s.running = null;
        // Messages that arrived while the loop was finishing.
        if (!this.stopped(s)) this.kick(s);
      });
  }

  private stopped(s: QueueState): boolean {
    return s.t.pq.dropped || this.d.signal.aborted;
  }

  private async run(s: QueueState): Promise<void> {
    const { t } = s;
    const signal = AbortSignal.any([this.d.signal, s.wake.signal]);
    while (!this.stopped(s)) {
      this.sync(s);
      if (s.head >= s.msgs.length) return;
      const locks = this.d.locks;
      if (locks && !locks.isLocked(t.mq)) {
        // Java's tryLockLaterAndReconsume: ask again, and pause if the broker still says no.
        if (!(await locks.lock(t.mq))) await pause(this.d.relockRetryMs, signal);
        continue;
      }
      const generation = s.generation;
      const batch = s.msgs.slice(s.head, s.head + this.d.batchSize);
      const context = { mq: t.mq, suspendCurrentQueueTimeMillis: this.d.suspendMs };
      const ok = await this.d.limiter.run(() => this.call(batch, context));
      // A seek while the listener ran: its offsets are no longer this queue's position.
      if (generation !== t.pq.generation) continue;
      if (ok || (await this.giveUpOn(batch))) {
        s.head += batch.length;
        if (s.head >= COMPACT_AT) {
          s.msgs = s.msgs.slice(s.head);
          s.head = 0;
        }
        const offset = t.pq.remove(batch);
        if (offset >= 0) this.d.commit(t, offset);
        continue;
      }
      // SUSPEND_CURRENT_QUEUE_A_MOMENT: the same batch first, after the pause.
      await pause(Math.max(0, context.suspendCurrentQueueTimeMillis), signal);
    }
  }

  /** Runs the listener; false when it threw (the batch is to be consumed again). */
  private async call(batch: MessageExt[], context: ConsumeOrderlyContext): Promise<boolean> {
    const started = { [MessageConst.CONSUME_START_TIME]: String(Date.now()) };
    for (const m of batch) {
      this.d.prepare(m);
      putProperties(m, started);
    }
    try {
      await this.d.listener(batch, context);
      return true;
    } catch (err) {
      this.d.log.warn(
        { err: (err as Error).message, mq: mqText(context.mq), offset: batch[0]?.queueOffset },
        "orderly listener failed, suspending the queue",
      );
      return false;
    }
  }

  /**
   * Java's checkReconsumeTimes after a failure: each message counts one more attempt; when every
   * message that reached maxReconsumeTimes went to the DLQ and none is short of it, the batch is
   * done (true). Otherwise the queue suspends and the batch is tried again.
   */
  private async giveUpOn(batch: MessageExt[]): Promise<boolean> {
    const max = this.d.maxReconsumeTimes;
    let again = false;
    for (const m of batch) {
      if (max >= 0 && m.reconsumeTimes >= max) {
        if (await this.d.sendToDeadLetter(m)) continue;
      }
      again = true;
      m.reconsumeTimes += 1;
    }
    return !again;
  }
}
