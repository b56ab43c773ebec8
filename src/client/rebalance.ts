/**
 * Rebalance (Java's RebalanceImpl): for every subscribed topic, the queues this consumer owns —
 * all of them when broadcasting, its share of the group's when clustering — and the process
 * queue table brought in line: dropped queues persist their offset and stop pulling, new queues
 * start from their stored offset or the consume-from-where rule. Runs are serialised; a request
 * during a run schedules one more run.
 */
import type { AllocateStrategy } from "./allocate.ts";
import type { ClientInstance } from "./client-instance.ts";
import { retryTopic } from "./message.ts";
import { type MessageQueue, mqKey, mqText } from "./message-queue.ts";
import type { OffsetStore } from "./offset-store.ts";
import { ProcessQueue } from "./process-queue.ts";
import type { PullTarget } from "./pull-loop.ts";

export type MessageModel = "CLUSTERING" | "BROADCASTING";
export type ConsumeFromWhere =
  | "CONSUME_FROM_LAST_OFFSET"
  | "CONSUME_FROM_FIRST_OFFSET"
  | "CONSUME_FROM_TIMESTAMP";

export interface RebalanceDeps {
  client: ClientInstance;
  group: string;
  messageModel: MessageModel;
  consumeFromWhere: ConsumeFromWhere;
  /** For CONSUME_FROM_TIMESTAMP (ms). */
  consumeTimestamp: number;
  allocate: AllocateStrategy;
  offsets: OffsetStore;
  topics(): string[];
  /** Starts pulling a newly owned queue. */
  startPulling(target: PullTarget): void;
  /**
   * Orderly consumers: takes a queue's broker lock before the queue is taken; false leaves the
   * queue for the run `CLAIM_RETRY_MS` later (Java: "add a new mq failed ... because lock failed").
   */
  claim?(mq: MessageQueue): Promise<boolean>;
  /** After a queue was dropped, before its offset is persisted: waits for its consume in flight. */
  settle?(target: PullTarget): Promise<void>;
  /** After a dropped queue's offset was persisted, or a claimed queue could not start: gives its lock back. */
  released?(mq: MessageQueue): Promise<void>;
}

/** Java's rebalanceLater(500) after a queue could not be locked. */
export const CLAIM_RETRY_MS = 500;

export class Rebalancer {
  readonly table = new Map<string, PullTarget>();
  private running: Promise<void> | null = null;
  private again = false;
  private retry: ReturnType<typeof setTimeout> | null = null;
  private stopped = false;

  constructor(private readonly d: RebalanceDeps) {}

  /** Runs a rebalance now, or once more after the one in progress. */
  trigger(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      try {
        do {
          this.again = false;
          await this.runOnce();
        } while (this.again);
      } finally {
        this.running = null;
      }
    })();
    return this.running;
  }

  owned(): MessageQueue[] {
    return [...this.table.values()].map((t) => t.mq);
  }

  /** Drops every queue (shutdown); offsets stay in the store for the final persist. */
  dropAll(): PullTarget[] {
    this.stopped = true;
    if (this.retry) clearTimeout(this.retry);
    const all = [...this.table.values()];
    for (const t of all) t.pq.drop();
    this.table.clear();
    return all;
  }

  private async runOnce(): Promise<void> {
    for (const topic of this.d.topics()) {
      try {
        await this.rebalanceTopic(topic);
      } catch (err) {
        this.d.client.log.warn({ topic, err: (err as Error).message }, "rebalance of topic failed");
      }
    }
  }

  private async rebalanceTopic(topic: string): Promise<void> {
    const { client } = this.d;
    const route = await client.route(topic);
    if (!route) return;
    const mqAll = client.routes.subscribeQueues(topic);
    let mine: MessageQueue[];
    if (this.d.messageModel === "BROADCASTING") {
      mine = mqAll;
    } else {
      const broker = route.brokerDatas[0]?.brokerName;
      const addr = broker ? client.routes.anyAddr(broker) : undefined;
      if (!addr) return;
      const cids = await client.broker.consumerIdList(addr, this.d.group);
      if (!cids.includes(client.clientId)) return;
      mine = this.d.allocate(client.clientId, mqAll, cids);
    }
    await this.applyAllocation(topic, mine);
  }

  private async applyAllocation(topic: string, mine: MessageQueue[]): Promise<void> {
    const wanted = new Set(mine.map(mqKey));
    for (const [key, t] of this.table) {
      if (t.mq.topic !== topic || wanted.has(key)) continue;
      t.pq.drop();
      this.table.delete(key);
      await this.d.settle?.(t);
      await this.d.offsets.persist(t.mq, false).catch((err: unknown) => {
        this.d.client.log.warn({ err: (err as Error).message }, "offset persist on queue removal failed");
      });
      this.d.offsets.remove(t.mq);
      await this.d.released?.(t.mq);
      this.d.client.log.info({ mq: mqText(key) }, "queue released by rebalance");
    }
    let unclaimed = 0;
    for (const mq of mine) {
      const key = mqKey(mq);
      // Shutdown dropped everything while this run awaited: take nothing more.
      if (this.stopped) return;
      if (this.table.has(key)) continue;
      if (this.d.claim && !(await this.d.claim(mq))) {
        this.d.client.log.info(
          { mq: mqText(key) },
          "queue not taken: its broker lock is held by another client",
        );
        unclaimed++;
        continue;
      }
      this.d.offsets.remove(mq);
      let offset: number;
      try {
        offset = await this.computePullFromWhere(mq);
      } catch (err) {
        this.d.client.log.warn(
          { mq: mqText(key), err: (err as Error).message },
          "cannot compute start offset, later",
        );
        await this.d.released?.(mq);
        continue;
      }
      const target: PullTarget = { mq, pq: new ProcessQueue(), nextOffset: offset };
      this.table.set(key, target);
      this.d.client.log.info({ mq: mqText(key), offset }, "queue taken by rebalance");
      this.d.startPulling(target);
    }
    if (unclaimed > 0) this.retryLater();
  }

  private retryLater(): void {
    if (this.retry || this.stopped) return;
    this.retry = setTimeout(() => {
      this.retry = null;
      if (!this.stopped) void this.trigger();
    }, CLAIM_RETRY_MS);
  }

  /** Java's RebalancePushImpl#computePullFromWhereWithException. */
  private async computePullFromWhere(mq: MessageQueue): Promise<number> {
    const stored = await this.d.offsets.readStored(mq);
    if (stored >= 0) return stored;
    const { client } = this.d;
    const isRetry = mq.topic === retryTopic(this.d.group);
    const addr = await client.masterAddr(mq.brokerName, mq.topic);
    switch (this.d.consumeFromWhere) {
      case "CONSUME_FROM_FIRST_OFFSET":
        return 0;
      case "CONSUME_FROM_TIMESTAMP":
        if (isRetry) return client.broker.maxOffset(addr, mq.topic, mq.queueId);
        return client.broker.searchOffset(addr, mq.topic, mq.queueId, this.d.consumeTimestamp);
      default:
        if (isRetry) return 0;
        return client.broker.maxOffset(addr, mq.topic, mq.queueId);
    }
  }
}
