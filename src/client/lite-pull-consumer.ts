/**
 * LitePullConsumer in assign mode: the caller assigns queues and owns positions (seek to an
 * offset, the start, the end or a timestamp), and polls. Pull loops fill a bounded buffer in the
 * background; `commit` writes positions to the broker when the caller wants them kept there.
 */
import type { ConsumerData } from "../protocol/body/heartbeat.ts";
import type { SubscriptionData } from "../protocol/body/subscription.ts";
import type { ClientInstance, ConsumerMember } from "./client-instance.ts";
import { clientError } from "./errors.ts";
import { type MessageExt, validateGroup } from "./message.ts";
import { type MessageQueue, mqKey } from "./message-queue.ts";
import { checkClientInBroker, type MessageSelector, subscriptionOf } from "./message-selector.ts";
import { RemoteBrokerOffsetStore } from "./offset-store.ts";
import { checkConsumerRanges, LITE_PULL_CONSUMER_RANGES } from "./option-ranges.ts";
import type { ClientOptions } from "./options.ts";
import { DEFAULT_FLOW_LIMITS, type FlowLimits, ProcessQueue } from "./process-queue.ts";
import { newClient } from "./producer.ts";
import {
  DEFAULT_PULL_BATCH_SIZE,
  DEFAULT_PULL_ERROR_DELAY_MS,
  type PullTarget,
  runPullLoop,
} from "./pull-loop.ts";

export const DEFAULT_LITE_POLL_TIMEOUT_MS = 5000;
/** Long-poll hold for lite pulls; short so a seek takes effect soon. */
export const DEFAULT_LITE_SUSPEND_MS = 5000;

export interface LitePullConsumerOptions extends Partial<ClientOptions> {
  client?: ClientInstance;
  group: string;
  /** Where a newly assigned queue without a committed offset starts (default: the end). */
  startFrom?: "first" | "last";
  pullBatchSize?: number;
  flowLimits?: Partial<FlowLimits>;
  suspendMs?: number;
  pullErrorDelayMs?: number;
  /**
   * topic → what its assigned queues are pulled with (default "*"): a tag expression or
   * `{ sql: "..." }`; sent in every pull header, as Java's lite pull consumer does.
   */
  selectors?: Readonly<Record<string, MessageSelector>>;
}

interface Assigned extends PullTarget {
  position: number;
}

export class LitePullConsumer implements ConsumerMember {
  readonly group: string;
  private readonly assigned = new Map<string, Assigned>();
  private readonly subs = new Map<string, SubscriptionData>();
  private readonly ready: { t: Assigned; generation: number; msgs: MessageExt[] }[] = [];
  private readyWaiters: (() => void)[] = [];
  private readonly offsets: RemoteBrokerOffsetStore;
  private readonly abort = new AbortController();
  private readonly loops = new Set<Promise<void>>();
  private stopped = false;

  constructor(
    readonly client: ClientInstance,
    private readonly ownsClient: boolean,
    private readonly o: LitePullConsumerOptions,
  ) {
    this.group = o.group;
    this.offsets = new RemoteBrokerOffsetStore(client, o.group);
  }

  topics(): Iterable<string> {
    return this.subs.keys();
  }

  consumerData(): ConsumerData {
    return {
      groupName: this.group,
      consumeType: "CONSUME_ACTIVELY",
      messageModel: "CLUSTERING",
      consumeFromWhere: "CONSUME_FROM_LAST_OFFSET",
      subscriptionDataSet: [...this.subs.values()],
      unitMode: false,
    };
  }

  rebalanceSoon(): void {}

  /** The readable queues of a topic. */
  async fetchQueues(topic: string): Promise<MessageQueue[]> {
    await this.client.refreshRoute(topic);
    return this.client.routes.subscribeQueues(topic);
  }

  /** Replaces the assignment; new queues start at their committed offset, else `startFrom`. */
  async assign(mqs: readonly MessageQueue[]): Promise<void> {
    this.checkRunning();
    const wanted = new Set(mqs.map(mqKey));
    for (const [key, t] of this.assigned) {
      if (wanted.has(key)) continue;
      t.pq.drop();
      this.assigned.delete(key);
    }
    for (const mq of mqs) {
      if (this.assigned.has(mqKey(mq))) continue;
      if (!this.subs.has(mq.topic)) this.subs.set(mq.topic, this.subscriptionFor(mq.topic));
      const offset = await this.startOffset(mq);
      const t: Assigned = { mq, pq: new ProcessQueue(), nextOffset: offset, position: offset };
      this.assigned.set(mqKey(mq), t);
      this.startLoop(t);
    }
  }

  /** The subscription of a topic's queues, as its selector (or "*") makes it. */
  subscriptionFor(topic: string): SubscriptionData {
    return subscriptionOf(topic, this.o.selectors?.[topic] ?? "*");
  }

  assignment(): MessageQueue[] {
    return [...this.assigned.values()].map((t) => t.mq);
  }

  /** The offset of the next message `poll` returns for this queue. */
  position(mq: MessageQueue): number {
    return this.target(mq).position;
  }

  seek(mq: MessageQueue, offset: number): void {
    const t = this.target(mq);
    t.pq.generation += 1;
    t.pq.clear();
    for (let i = this.ready.length - 1; i >= 0; i--) if (this.ready[i]!.t === t) this.ready.splice(i, 1);
    t.nextOffset = offset;
    t.position = offset;
  }

  async seekToBegin(mq: MessageQueue): Promise<void> {
    this.seek(mq, await this.client.broker.minOffset(await this.addr(mq), mq.topic, mq.queueId));
  }

  async seekToEnd(mq: MessageQueue): Promise<void> {
    this.seek(mq, await this.client.broker.maxOffset(await this.addr(mq), mq.topic, mq.queueId));
  }

  /** The first message stored at or after `timestamp` (ms). */
  async seekToTimestamp(mq: MessageQueue, timestamp: number): Promise<void> {
    this.seek(
      mq,
      await this.client.broker.searchOffset(await this.addr(mq), mq.topic, mq.queueId, timestamp),
    );
  }

  /** Messages pulled since the last poll, waiting up to `timeoutMs` for the first ones. */
  async poll(timeoutMs = DEFAULT_LITE_POLL_TIMEOUT_MS): Promise<MessageExt[]> {
    this.checkRunning();
    if (this.ready.length === 0 && timeoutMs > 0) await this.waitReady(timeoutMs);
    const out: MessageExt[] = [];
    for (const entry of this.ready.splice(0)) {
      if (entry.generation !== entry.t.pq.generation || entry.t.pq.dropped) continue;
      entry.t.pq.remove(entry.msgs);
      const last = entry.msgs[entry.msgs.length - 1];
      if (last) entry.t.position = last.queueOffset + 1;
      out.push(...entry.msgs);
    }
    return out;
  }

  /** Stores the current positions as the group's offsets on the brokers. */
  async commit(): Promise<void> {
    for (const t of this.assigned.values()) this.offsets.update(t.mq, t.position, false);
    await this.offsets.persistAll(this.assignment(), false);
  }

  async shutdown(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    for (const t of this.assigned.values()) t.pq.drop();
    this.assigned.clear();
    this.abort.abort();
    this.wakeReady();
    await this.client.unregister("consumer", this.group);
    if (this.ownsClient) await this.client.shutdown();
    await Promise.allSettled([...this.loops]);
  }

  private async startOffset(mq: MessageQueue): Promise<number> {
    const stored = await this.offsets.readStored(mq);
    if (stored >= 0) return stored;
    if (this.o.startFrom === "first") return 0;
    return this.client.broker.maxOffset(await this.addr(mq), mq.topic, mq.queueId);
  }

  private startLoop(t: Assigned): void {
    const loop = runPullLoop(t, {
      client: this.client,
      group: this.group,
      subscription: (topic) => this.subs.get(topic),
      // Assigned queues have no heartbeat subscription on the broker: always send it (as Java's
      // lite pull consumer does).
      postSubscription: true,
      commitOffset: () => -1,
      limits: { ...DEFAULT_FLOW_LIMITS, ...this.o.flowLimits },
      batchSize: this.o.pullBatchSize ?? DEFAULT_PULL_BATCH_SIZE,
      suspendMs: this.o.suspendMs ?? DEFAULT_LITE_SUSPEND_MS,
      timeoutMs: (this.o.suspendMs ?? DEFAULT_LITE_SUSPEND_MS) + 15_000,
      errorDelayMs: this.o.pullErrorDelayMs ?? DEFAULT_PULL_ERROR_DELAY_MS,
      signal: this.abort.signal,
      onFound: (target, msgs) => {
        this.ready.push({ t: target as Assigned, generation: target.pq.generation, msgs });
        this.wakeReady();
      },
      onOffsetIllegal: (target, next) => {
        (target as Assigned).position = next;
      },
    }).catch((err: unknown) => this.client.log.error({ err }, "lite pull loop crashed"));
    this.loops.add(loop);
    void loop.finally(() => this.loops.delete(loop));
  }

  private waitReady(timeoutMs: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.readyWaiters = this.readyWaiters.filter((w) => w !== done);
        resolve();
      }, timeoutMs);
      this.readyWaiters.push(done);
    });
  }

  private wakeReady(): void {
    const waiters = this.readyWaiters;
    this.readyWaiters = [];
    for (const w of waiters) w();
  }

  private target(mq: MessageQueue): Assigned {
    const t = this.assigned.get(mqKey(mq));
    if (!t) throw clientError(`queue ${mq.topic}/${mq.brokerName}/${mq.queueId} is not assigned`);
    return t;
  }

  private addr(mq: MessageQueue): Promise<string> {
    return this.client.masterAddr(mq.brokerName, mq.topic);
  }

  private checkRunning(): void {
    if (this.stopped) throw clientError("lite pull consumer is shut down");
  }
}

export async function createLitePullConsumer(options: LitePullConsumerOptions): Promise<LitePullConsumer> {
  if (!options.group) throw clientError("consumer group is required");
  validateGroup(options.group);
  checkConsumerRanges(options, LITE_PULL_CONSUMER_RANGES);
  const owns = !options.client;
  const client = options.client ?? newClient(options);
  const consumer = new LitePullConsumer(client, owns, options);
  client.registerConsumer(consumer);
  client.start();
  try {
    const topics = Object.keys(options.selectors ?? {});
    await checkClientInBroker(
      client,
      consumer.group,
      topics.map((t) => consumer.subscriptionFor(t)),
    );
  } catch (err) {
    await consumer.shutdown().catch(() => {});
    throw err;
  }
  return consumer;
}
