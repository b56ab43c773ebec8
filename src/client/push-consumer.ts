/**
 * PushConsumer (Java's DefaultMQPushConsumer): subscriptions with tag expressions, clustering or
 * broadcasting, rebalance on start, on NOTIFY_CONSUMER_IDS_CHANGED and every 20 s, one pull loop per
 * owned queue, offsets committed periodically and on shutdown. Concurrent mode runs the listener
 * with bounded concurrency and sends failed messages back for retry; orderly mode (orderly-mode.ts)
 * consumes each queue serially under a broker lock and retries a failed batch in place.
 */

import { homedir } from "node:os";
import { join } from "node:path";
import type { ConsumerData } from "../protocol/body/heartbeat.ts";
import { buildSubscription, type SubscriptionData } from "../protocol/body/subscription.ts";
import { MessageConst } from "../protocol/message/index.ts";
import { Limiter, pause } from "./abortable.ts";
import { type AllocateStrategy, allocateAveragely } from "./allocate.ts";
import type { ClientInstance, ConsumerMember } from "./client-instance.ts";
import type { ConsumeOrderlyContext } from "./consume-orderly.ts";
import { clientError } from "./errors.ts";
import { type MessageExt, restoreRetryTopic, retryTopic, validateGroup } from "./message.ts";
import { type MessageQueue, mqText } from "./message-queue.ts";
import { checkClientInBroker, type MessageSelector, subscriptionOf } from "./message-selector.ts";
import { LocalFileOffsetStore, type OffsetStore, RemoteBrokerOffsetStore } from "./offset-store.ts";
import { checkConsumerRanges, PUSH_CONSUMER_RANGES } from "./option-ranges.ts";
import { type ClientOptions, DEFAULT_PERSIST_CONSUMER_OFFSET_INTERVAL_MS } from "./options.ts";
import { ORDERLY_MAX_RECONSUME_TIMES, OrderlyMode, type OrderlyOptions } from "./orderly-mode.ts";
import { DEFAULT_FLOW_LIMITS, type FlowLimits } from "./process-queue.ts";
import { newClient } from "./producer.ts";
import {
  DEFAULT_BROKER_SUSPEND_MAX_MS,
  DEFAULT_CONSUMER_TIMEOUT_WHEN_SUSPEND_MS,
  DEFAULT_PULL_BATCH_SIZE,
  DEFAULT_PULL_ERROR_DELAY_MS,
  type PullTarget,
  runPullLoop,
} from "./pull-loop.ts";
import { putProperties } from "./pulled-message.ts";
import { type ConsumeFromWhere, type MessageModel, Rebalancer } from "./rebalance.ts";
import { type ConsumerRunningInfo, pushRunningInfo } from "./running-info.ts";

export const DEFAULT_REBALANCE_INTERVAL_MS = 20_000;
export const DEFAULT_CONSUME_CONCURRENCY = 20;
export const DEFAULT_MAX_RECONSUME_TIMES = 16;
/** Java's consumeTimestamp default: half an hour ago. */
const HALF_HOUR_MS = 30 * 60 * 1000;
/** How long a batch whose send-back failed waits before it is consumed again locally. */
const LOCAL_RETRY_DELAY_MS = 5000;

/**
 * Return nothing (or resolve) for success; throw (or reject) to have the batch retried: sent back
 * for a later retry when concurrent, offered again after a pause when orderly (Java's
 * SUSPEND_CURRENT_QUEUE_A_MOMENT). Orderly consumers get a context naming the queue.
 */
export type MessageListener = (msgs: MessageExt[], context?: ConsumeOrderlyContext) => void | Promise<void>;

/** Delay level of CONSUMER_SEND_MSG_BACK that sends a message straight to the DLQ (spec broker §9.2). */
const DLQ_DELAY_LEVEL = -1;

export interface PushConsumerOptions extends Partial<ClientOptions>, OrderlyOptions {
  client?: ClientInstance;
  group: string;
  /** topic → tag expression ("*", "TagA || TagB"), or `{ sql: "..." }` (needs enablePropertyFilter). */
  subscriptions: Readonly<Record<string, MessageSelector>>;
  onMessage: MessageListener;
  /**
   * Orderly consumption (Java's MessageListenerOrderly): each queue's messages reach the listener
   * in queue order, one batch at a time; clustering members lock their queues at the broker, so
   * no two consume one queue at once. Default false (concurrent).
   */
  orderly?: boolean;
  messageModel?: MessageModel;
  consumeFromWhere?: ConsumeFromWhere;
  consumeTimestamp?: number;
  allocate?: AllocateStrategy;
  /** Listener calls running at once, over all queues (Java's consumeThreadMax). */
  consumeConcurrency?: number;
  /** Messages per listener call (Java's consumeMessageBatchMaxSize). */
  consumeBatchSize?: number;
  pullBatchSize?: number;
  /**
   * Send the subscription with every pull (Java's postSubscriptionWhenPull, default false): by
   * default the broker takes it from the group's heartbeat.
   */
  postSubscriptionWhenPull?: boolean;
  flowLimits?: Partial<FlowLimits>;
  /** Failures before a message goes to the DLQ; default 16, orderly -1 (never: retried in place). */
  maxReconsumeTimes?: number;
  rebalanceIntervalMs?: number;
  persistConsumerOffsetIntervalMs?: number;
  brokerSuspendMaxMs?: number;
  consumerTimeoutWhenSuspendMs?: number;
  pullErrorDelayMs?: number;
  /** Where broadcasting consumers keep offsets (Java: ~/.rocketmq_offsets). */
  offsetStoreDir?: string;
}

export class PushConsumer implements ConsumerMember {
  private heartbeatSent = false;
  readonly group: string;
  readonly messageModel: MessageModel;
  readonly offsets: OffsetStore;
  private readonly subs = new Map<string, SubscriptionData>();
  private readonly rebalancer: Rebalancer;
  private readonly limiter: Limiter;
  private readonly abort = new AbortController();
  private readonly timers: ReturnType<typeof setInterval>[] = [];
  private readonly loops = new Set<Promise<void>>();
  private readonly limits: FlowLimits;
  private readonly orderly: OrderlyMode | null;
  private stopped = false;
  private startedAt = 0;

  constructor(
    readonly client: ClientInstance,
    private readonly ownsClient: boolean,
    private readonly o: PushConsumerOptions,
  ) {
    this.group = o.group;
    this.messageModel = o.messageModel ?? "CLUSTERING";
    this.limiter = new Limiter(o.consumeConcurrency ?? DEFAULT_CONSUME_CONCURRENCY);
    this.limits = { ...DEFAULT_FLOW_LIMITS, ...o.flowLimits };
    for (const [topic, selector] of Object.entries(o.subscriptions))
      this.subs.set(topic, subscriptionOf(topic, selector));
    if (this.messageModel === "CLUSTERING") {
      const retry = retryTopic(this.group);
      this.subs.set(retry, buildSubscription(retry, "*"));
      this.offsets = new RemoteBrokerOffsetStore(client, this.group);
    } else {
      const dir = o.offsetStoreDir ?? join(homedir(), ".rocketmq_offsets");
      this.offsets = new LocalFileOffsetStore(
        join(dir, client.clientId.replace(/[^\w.#@-]/g, "_"), this.group, "offsets.json"),
      );
    }
    this.orderly = o.orderly ? this.orderlyMode() : null;
    this.rebalancer = new Rebalancer({
      client,
      group: this.group,
      messageModel: this.messageModel,
      consumeFromWhere: o.consumeFromWhere ?? "CONSUME_FROM_LAST_OFFSET",
      consumeTimestamp: o.consumeTimestamp ?? Date.now() - HALF_HOUR_MS,
      allocate: o.allocate ?? allocateAveragely,
      offsets: this.offsets,
      topics: () => [...this.subs.keys()],
      startPulling: (t) => this.startPulling(t),
      ...this.orderly?.rebalanceHooks(),
    });
  }

  private orderlyMode(): OrderlyMode {
    return new OrderlyMode({
      client: this.client,
      group: this.group,
      clustering: this.messageModel === "CLUSTERING",
      listener: (msgs, context) => this.o.onMessage(msgs, context),
      prepare: (m) => restoreRetryTopic(m, this.group),
      limiter: this.limiter,
      batchSize: Math.max(1, this.o.consumeBatchSize ?? 1),
      maxReconsumeTimes: this.o.maxReconsumeTimes ?? ORDERLY_MAX_RECONSUME_TIMES,
      sendToDeadLetter: (m) => this.sendBackOne(m, DLQ_DELAY_LEVEL),
      // Also for a dropped queue: a rebalance settles its batch in flight before persisting.
      commit: (t, offset) => this.offsets.update(t.mq, offset, false),
      pullRetryMs: this.o.pullErrorDelayMs ?? DEFAULT_PULL_ERROR_DELAY_MS,
      signal: this.abort.signal,
      options: this.o,
      log: this.client.log,
    });
  }

  /** Whether the listener is orderly (Java's PROP_CONSUMEORDERLY). */
  get consumeOrderly(): boolean {
    return this.orderly !== null;
  }

  runningInfo(): ConsumerRunningInfo {
    return pushRunningInfo({
      group: this.group,
      orderly: this.consumeOrderly,
      consumeThreads: this.o.consumeConcurrency ?? DEFAULT_CONSUME_CONCURRENCY,
      startedAt: this.startedAt,
      settings: { messageModel: this.messageModel, consumeFromWhere: this.consumerData().consumeFromWhere },
      subscriptions: [...this.subs.values()],
      targets: [...this.rebalancer.table.values()],
      commitOffset: (mq) => this.offsets.readMemory(mq),
      lockState: (mq) => this.orderly?.lockState(mq),
    });
  }

  /** Its offsets in memory (GET_CONSUMER_STATUS_FROM_CLIENT); a lite pull consumer has none, as in Java. */
  offsetTable(topic: string): [MessageQueue, number][] {
    return this.offsets.cloneTable(topic);
  }

  topics(): Iterable<string> {
    return this.subs.keys();
  }

  consumerData(): ConsumerData {
    return {
      groupName: this.group,
      consumeType: "CONSUME_PASSIVELY",
      messageModel: this.messageModel,
      consumeFromWhere: this.o.consumeFromWhere ?? "CONSUME_FROM_LAST_OFFSET",
      subscriptionDataSet: [...this.subs.values()],
      unitMode: false,
    };
  }

  rebalanceSoon(): void {
    // Before start() has sent the first heartbeat the broker does not know this consumer yet, and a
    // rebalance would only find an empty group (route refreshes during start() call this).
    if (this.stopped || !this.heartbeatSent) return;
    void this.rebalancer.trigger();
  }

  /** The queues this consumer pulls now. */
  assignedQueues() {
    return this.rebalancer.owned();
  }

  async resetOffsets(topic: string, offsets: Map<string, number>): Promise<void> {
    for (const t of this.rebalancer.table.values()) {
      const offset = offsets.get(`${t.mq.brokerName}/${t.mq.queueId}`);
      if (t.mq.topic !== topic || offset === undefined) continue;
      t.pq.generation += 1;
      t.pq.clear();
      t.nextOffset = offset;
      this.offsets.update(t.mq, offset, false);
    }
  }

  async start(): Promise<void> {
    this.startedAt = Date.now();
    await this.offsets.load();
    this.client.start();
    await Promise.all([...this.subs.keys()].map((t) => this.client.refreshRoute(t).catch(() => null)));
    await checkClientInBroker(this.client, this.group, this.subs.values());
    await this.client.heartbeatAll();
    this.heartbeatSent = true;
    this.every(this.o.rebalanceIntervalMs ?? DEFAULT_REBALANCE_INTERVAL_MS, () => this.rebalancer.trigger());
    this.every(this.o.persistConsumerOffsetIntervalMs ?? DEFAULT_PERSIST_CONSUMER_OFFSET_INTERVAL_MS, () =>
      this.offsets.persistAll(this.rebalancer.owned(), true),
    );
    this.orderly?.startRelocking(() => this.rebalancer.owned());
    await this.rebalancer.trigger();
  }

  async shutdown(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    for (const t of this.timers.splice(0)) clearInterval(t);
    const dropped = this.rebalancer.dropAll();
    const owned = dropped.map((t) => t.mq);
    this.abort.abort();
    await this.orderly?.settleAll(dropped);
    await this.limiter.idle();
    await this.offsets.persistAll(owned, false);
    // Orderly: only now, with the offsets on the broker, may another member take the queues.
    await this.orderly?.unlockAll(owned);
    await this.client.unregister("consumer", this.group);
    if (this.ownsClient) await this.client.shutdown();
    await Promise.allSettled([...this.loops]);
  }

  private every(ms: number, task: () => Promise<void>): void {
    this.timers.push(
      setInterval(() => {
        if (!this.stopped)
          task().catch((err: unknown) => this.client.log.warn({ err }, "consumer task failed"));
      }, ms),
    );
  }

  private startPulling(target: PullTarget): void {
    const loop = runPullLoop(target, {
      client: this.client,
      group: this.group,
      subscription: (topic) => this.subs.get(topic),
      postSubscription: this.o.postSubscriptionWhenPull ?? false,
      // A broker that joined after the last heartbeat, or restarted: tell it who we are.
      onSubscriptionUnknown: () => this.client.heartbeatAll(),
      commitOffset: (mq) => (this.messageModel === "CLUSTERING" ? this.offsets.readMemory(mq) : -1),
      limits: this.limits,
      batchSize: this.o.pullBatchSize ?? DEFAULT_PULL_BATCH_SIZE,
      suspendMs: this.o.brokerSuspendMaxMs ?? DEFAULT_BROKER_SUSPEND_MAX_MS,
      timeoutMs: this.o.consumerTimeoutWhenSuspendMs ?? DEFAULT_CONSUMER_TIMEOUT_WHEN_SUSPEND_MS,
      errorDelayMs: this.o.pullErrorDelayMs ?? DEFAULT_PULL_ERROR_DELAY_MS,
      signal: this.abort.signal,
      ...(this.orderly?.locks ? { gate: this.orderly.gate } : {}),
      onFound: (t, msgs) => (this.orderly ? this.orderly.submit(t, msgs) : this.submit(t, msgs)),
      onNothingFound: (t, next) => {
        if (!t.pq.dropped) this.offsets.update(t.mq, next, true);
      },
      onOffsetIllegal: (t, next) => {
        this.offsets.update(t.mq, next, false);
        void this.offsets.persist(t.mq, true).catch(() => {});
      },
    }).catch((err: unknown) => this.client.log.error({ err, mq: mqText(target.mq) }, "pull loop crashed"));
    this.loops.add(loop);
    void loop.finally(() => this.loops.delete(loop));
  }

  private submit(t: PullTarget, msgs: MessageExt[]): void {
    const size = Math.max(1, this.o.consumeBatchSize ?? 1);
    if (msgs.length <= size) {
      this.runConsume(t, msgs);
      return;
    }
    for (let i = 0; i < msgs.length; i += size) {
      const batch = msgs.slice(i, i + size);
      this.runConsume(t, batch);
    }
  }

  private runConsume(t: PullTarget, batch: MessageExt[]): void {
    this.limiter
      .run(() => this.consume(t, batch))
      .catch((err: unknown) => this.client.log.error({ err }, "consume task failed"));
  }

  private async consume(t: PullTarget, batch: MessageExt[]): Promise<void> {
    if (t.pq.dropped) return;
    const started = { [MessageConst.CONSUME_START_TIME]: String(Date.now()) };
    for (const m of batch) {
      restoreRetryTopic(m, this.group);
      putProperties(m, started);
    }
    let ok: boolean;
    try {
      await this.o.onMessage(batch);
      ok = true;
    } catch (err) {
      this.client.log.warn(
        { err: (err as Error).message, count: batch.length },
        "listener failed, retrying later",
      );
      ok = false;
    }
    if (!ok && this.messageModel === "CLUSTERING") {
      const kept = await this.sendBack(batch);
      if (kept.length > 0) {
        // Not handed to the broker: consume again here after a pause, keeping the offset back.
        const rest = batch.filter((m) => !kept.includes(m));
        this.commit(t, rest);
        void pause(LOCAL_RETRY_DELAY_MS, this.abort.signal).then(() => {
          if (!t.pq.dropped && !this.stopped) this.runConsume(t, kept);
        });
        return;
      }
    }
    this.commit(t, batch);
  }

  private commit(t: PullTarget, msgs: MessageExt[]): void {
    const offset = t.pq.remove(msgs);
    if (offset >= 0 && !t.pq.dropped) this.offsets.update(t.mq, offset, true);
  }

  /** CONSUMER_SEND_MSG_BACK for each message; returns those the broker did not take. */
  private async sendBack(batch: MessageExt[]): Promise<MessageExt[]> {
    const failed: MessageExt[] = [];
    for (const m of batch) if (!(await this.sendBackOne(m, 0))) failed.push(m);
    return failed;
  }

  /** CONSUMER_SEND_MSG_BACK of one message; false when the broker did not take it. */
  private async sendBackOne(m: MessageExt, delayLevel: number): Promise<boolean> {
    const max = this.o.maxReconsumeTimes ?? DEFAULT_MAX_RECONSUME_TIMES;
    try {
      const addr = await this.client.masterAddr(m.brokerName, m.topic);
      await this.client.broker.sendMessageBack(addr, m, this.group, delayLevel, max);
      return true;
    } catch (err) {
      this.client.log.warn({ err: (err as Error).message, msgId: m.msgId }, "send back failed");
      return false;
    }
  }
}

export async function createPushConsumer(options: PushConsumerOptions): Promise<PushConsumer> {
  if (!options.group) throw clientError("consumer group is required");
  validateGroup(options.group);
  checkConsumerRanges(options, PUSH_CONSUMER_RANGES);
  const suspendMs = options.brokerSuspendMaxMs ?? DEFAULT_BROKER_SUSPEND_MAX_MS;
  const timeoutMs = options.consumerTimeoutWhenSuspendMs ?? DEFAULT_CONSUMER_TIMEOUT_WHEN_SUSPEND_MS;
  // Else every pull the broker holds would time out here first (as Java's lite consumer checks).
  if (timeoutMs <= suspendMs)
    throw clientError(
      `consumerTimeoutWhenSuspendMs ${timeoutMs} must be greater than brokerSuspendMaxMs ${suspendMs}`,
    );
  if (Object.keys(options.subscriptions).length === 0)
    throw clientError("at least one subscription is required");
  const owns = !options.client;
  const client = options.client ?? newClient(options);
  const consumer = new PushConsumer(client, owns, options);
  client.registerConsumer(consumer);
  try {
    await consumer.start();
  } catch (err) {
    await consumer.shutdown().catch(() => {});
    throw err;
  }
  return consumer;
}
