/**
 * Ordered POP on the lease table's queues (spec pop-timer-filter §A.15): the pop, ack and
 * change-invisible-time steps of an ordered batch, the consume offset they commit, the ORDER
 * records that persist them, and the wake-up of parked pops when a queue unblocks
 * (Java's enableNotifyAfterPopOrderLockRelease).
 */
import type { QueueOrderCounts } from "../../src/protocol/headers/pop.ts";
import type { BrokerContext } from "../context.ts";
import { DeadlineWheel } from "./pop-deadlines.ts";
import { type LeaseRecord, LeaseRecordType } from "./pop-lease-records.ts";
import {
  commitAndNext,
  isBlocked,
  nextOrderInfo,
  OrderAck,
  type OrderInfo,
  orderCounts,
  orderInfoFromJson,
  orderInfoToJson,
} from "./pop-order.ts";

/** The part of a lease-table queue ordered POP uses. */
export interface OrderedQueue {
  readonly id: number;
  readonly group: string;
  /** The topic parked pops wait on. */
  readonly topic: string;
  /** The topic whose consume offset the batch holds (the same for ordered pops). */
  readonly realTopic: string;
  readonly queueId: number;
  order: OrderInfo | null;
}

export type OrderedAckResult = "done" | "illegal";

export class OrderedPops {
  /** Queues to look at again when their batch may have become visible. */
  private readonly unblocks = new DeadlineWheel<OrderedQueue>();

  constructor(
    private readonly ctx: BrokerContext,
    /** Wakes parked pops (and notifications) of a queue. */
    private readonly wake: (topic: string, group: string, queueId: number) => void,
    private readonly record: (r: LeaseRecord) => Promise<void>,
  ) {}

  blocked(q: OrderedQueue, attemptId: string | null, now: number): boolean {
    return isBlocked(q.order, attemptId, now);
  }

  /**
   * An ordered pop handed out `offsets` read from `start`: the new batch replaces the old one and
   * the consume offset is committed at `start` (the batch stays owned until acked).
   */
  popped(
    q: OrderedQueue,
    popTime: number,
    invisibleTime: number,
    start: number,
    offsets: readonly number[],
    attemptId: string | null,
  ): { counts: QueueOrderCounts; durable: Promise<void> } {
    q.order = nextOrderInfo(q.order, popTime, invisibleTime, offsets, attemptId);
    this.ctx.offsets.commit(q.group, q.realTopic, q.queueId, start);
    this.unblocks.add(q, popTime + invisibleTime);
    return { counts: orderCounts(q.order, q.queueId), durable: this.persist(q) };
  }

  /** Ordered ack (§A.15 "Ack (reviveQid 999)"). */
  ack(q: OrderedQueue, offset: number, popTime: number): OrderedAckResult {
    const group = q.group;
    const committed = this.ctx.offsets.query(group, q.realTopic, q.queueId);
    if (offset < committed) return "done";
    if (!q.order) {
      this.ctx.offsets.commit(group, q.realTopic, q.queueId, offset + 1);
      void this.persist(q);
      return "done";
    }
    const next = commitAndNext(q.order, offset, popTime);
    if (next === OrderAck.ILLEGAL) return "illegal";
    if (next === OrderAck.STALE) return "done";
    this.ctx.offsets.commit(group, q.realTopic, q.queueId, next);
    void this.persist(q);
    if (!isBlocked(q.order, null, Date.now())) this.wake(q.topic, group, q.queueId);
    return "done";
  }

  /**
   * Ordered CHANGE_MESSAGE_INVISIBLETIME (§A.9 step 2): null when the offset is below the commit
   * (answered with zeros); else the reply's popTime (the handle's) and invisibleTime (counted
   * from it).
   */
  change(
    q: OrderedQueue,
    offset: number,
    popTime: number,
    invisibleTime: number,
    now: number,
  ): { popTime: number; invisibleTime: number } | null {
    if (offset < this.ctx.offsets.query(q.group, q.realTopic, q.queueId)) return null;
    const visible = now + invisibleTime;
    if (q.order && q.order.popTime === popTime) {
      q.order.nextVisible.set(offset, visible);
      this.unblocks.add(q, visible);
      void this.persist(q);
    }
    return { popTime, invisibleTime: visible - popTime };
  }

  /** Wakes parked pops of every queue whose batch became visible by `now`. */
  sweep(now: number): void {
    this.unblocks.takeDue(now, (q) => {
      if (q.order && !isBlocked(q.order, null, now)) this.wake(q.topic, q.group, q.queueId);
    });
  }

  /** The ORDER record of `q` as it stands. */
  recordOf(q: OrderedQueue): LeaseRecord {
    const info = q.order ? orderInfoToJson(q.order, Date.now()) : null;
    const commit = this.ctx.offsets.query(q.group, q.realTopic, q.queueId);
    return { type: LeaseRecordType.ORDER, qid: q.id, json: JSON.stringify({ info, commit }) };
  }

  /** Applies a recovered ORDER record: the batch, and a commit at least as far as recorded. */
  replay(q: OrderedQueue, json: string): void {
    try {
      const r = JSON.parse(json) as { info: Parameters<typeof orderInfoFromJson>[0] | null; commit: number };
      q.order = r.info ? orderInfoFromJson(r.info) : null;
      if (q.order) this.unblocks.add(q, q.order.popTime + q.order.invisibleTime);
      const committed = this.ctx.offsets.query(q.group, q.realTopic, q.queueId);
      if (r.commit > committed) this.ctx.offsets.commit(q.group, q.realTopic, q.queueId, r.commit);
    } catch (err) {
      this.ctx.log.warn(
        { err, queue: `${q.topic}@${q.group}@${q.queueId}` },
        "unreadable ordered POP state skipped",
      );
    }
  }

  private persist(q: OrderedQueue): Promise<void> {
    return this.record(this.recordOf(q));
  }
}
