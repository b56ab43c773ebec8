/**
 * What `orderly: true` adds to a push consumer (Java's consumeOrderly): broker queue locks taken
 * before a queue is owned and renewed every 20 s, pulls held back while a queue's lock is not held,
 * serial per-queue consumption (consume-orderly.ts), locks given back when a rebalance drops a queue
 * (after its batch in flight and its offset) and at shutdown. Broadcasting needs no locks.
 */
import type { Logger } from "../log.ts";
import { type Limiter, pause } from "./abortable.ts";
import type { ClientInstance } from "./client-instance.ts";
import {
  type ConsumeOrderlyContext,
  DEFAULT_RELOCK_RETRY_MS,
  DEFAULT_SUSPEND_CURRENT_QUEUE_MS,
  OrderlyConsumer,
} from "./consume-orderly.ts";
import type { MessageExt } from "./message.ts";
import type { MessageQueue } from "./message-queue.ts";
import type { PullTarget } from "./pull-loop.ts";
import {
  DEFAULT_LOCK_INTERVAL_MS,
  DEFAULT_LOCK_MAX_LIVE_MS,
  type QueueLockState,
  QueueLocks,
} from "./queue-locks.ts";
import type { RebalanceDeps } from "./rebalance.ts";

/** Java's orderly default for maxReconsumeTimes (-1 there means Integer.MAX_VALUE): retry forever. */
export const ORDERLY_MAX_RECONSUME_TIMES = -1;

export interface OrderlyOptions {
  /** Pause after a failed batch (Java's suspendCurrentQueueTimeMillis). */
  suspendCurrentQueueTimeMillis?: number;
  /** How often owned queues are relocked (Java's `rocketmq.client.rebalance.lockInterval`). */
  lockIntervalMs?: number;
  /** How long a granted lock is trusted here (Java's `rocketmq.client.rebalance.lockMaxLiveTime`). */
  lockMaxLiveMs?: number;
  /** Wait after the broker refused a queue's lock before asking again. */
  relockRetryMs?: number;
}

export interface OrderlyModeDeps {
  client: ClientInstance;
  group: string;
  clustering: boolean;
  listener(msgs: MessageExt[], context: ConsumeOrderlyContext): void | Promise<void>;
  prepare(msg: MessageExt): void;
  limiter: Limiter;
  batchSize: number;
  maxReconsumeTimes: number;
  sendToDeadLetter(msg: MessageExt): Promise<boolean>;
  commit(t: PullTarget, offset: number): void;
  /** Wait before a pull is tried again after its lock was refused (Java: 3 s). */
  pullRetryMs: number;
  signal: AbortSignal;
  options: OrderlyOptions;
  log: Logger;
}

export class OrderlyMode {
  readonly locks: QueueLocks | null;
  private readonly consumer: OrderlyConsumer;
  private relocker: ReturnType<typeof setInterval> | null = null;

  constructor(private readonly d: OrderlyModeDeps) {
    const o = d.options;
    this.locks = d.clustering
      ? new QueueLocks(d.client, d.group, o.lockMaxLiveMs ?? DEFAULT_LOCK_MAX_LIVE_MS)
      : null;
    const locks = this.locks;
    if (locks) d.client.remoting.onConnectionLost((addr) => locks.connectionLost(addr));
    this.consumer = new OrderlyConsumer({
      log: d.log,
      listener: d.listener,
      prepare: d.prepare,
      locks: this.locks,
      limiter: d.limiter,
      batchSize: d.batchSize,
      suspendMs: o.suspendCurrentQueueTimeMillis ?? DEFAULT_SUSPEND_CURRENT_QUEUE_MS,
      relockRetryMs: o.relockRetryMs ?? DEFAULT_RELOCK_RETRY_MS,
      maxReconsumeTimes: d.maxReconsumeTimes,
      sendToDeadLetter: d.sendToDeadLetter,
      commit: d.commit,
      signal: d.signal,
    });
  }

  /** The rebalance steps that lock a queue before taking it and unlock it after letting it go. */
  rebalanceHooks(): Pick<RebalanceDeps, "claim" | "settle" | "released"> {
    const locks = this.locks;
    return {
      ...(locks ? { claim: (mq: MessageQueue) => locks.lock(mq) } : {}),
      settle: (t: PullTarget) => this.consumer.settle(t),
      ...(locks ? { released: (mq: MessageQueue) => locks.unlockAll([mq], true) } : {}),
    };
  }

  /** Pull gate: a queue is pulled only while its lock is held (Java delays such a pull by 3 s). */
  readonly gate = async (t: PullTarget): Promise<void> => {
    const locks = this.locks;
    if (!locks) return;
    while (!t.pq.dropped && !this.d.signal.aborted && !locks.isLocked(t.mq)) {
      if (await locks.lock(t.mq)) return;
      this.d.log.debug({ mq: `${t.mq.topic}/${t.mq.queueId}` }, "pull later: queue not locked at the broker");
      await pause(this.d.pullRetryMs, this.d.signal);
    }
  };

  submit(t: PullTarget, msgs: readonly MessageExt[]): void {
    this.consumer.submit(t, msgs);
  }

  /** Relocks the owned queues every lockInterval (Java's lockMQPeriodically). */
  startRelocking(owned: () => MessageQueue[]): void {
    const locks = this.locks;
    if (!locks || this.relocker) return;
    this.relocker = setInterval(() => {
      if (!this.d.signal.aborted) void locks.lockAll(owned());
    }, this.d.options.lockIntervalMs ?? DEFAULT_LOCK_INTERVAL_MS);
  }

  /** Lock state of a queue for running info; unlocked when broadcasting. */
  lockState(mq: MessageQueue): QueueLockState {
    return this.locks?.state(mq) ?? { locked: false, lastLockTimestamp: 0 };
  }

  waiting(mq: MessageQueue): number {
    return this.consumer.waiting(mq);
  }

  /** Shutdown, after the queues were dropped: waits for batches in flight. */
  async settleAll(dropped: readonly PullTarget[]): Promise<void> {
    if (this.relocker) clearInterval(this.relocker);
    this.relocker = null;
    await Promise.all(dropped.map((t) => this.consumer.settle(t)));
  }

  /** Shutdown, after the offsets were persisted: unlocks and waits for the brokers' answers (as Java). */
  async unlockAll(mqs: readonly MessageQueue[]): Promise<void> {
    await this.locks?.unlockAll(mqs, false);
  }
}
