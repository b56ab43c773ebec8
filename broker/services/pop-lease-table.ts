/**
 * The POP in-flight table in memory (spec pop-timer-filter §A.18): per (group, real topic, queue)
 * a `PopQueue` holding its leases as offset → `LeaseBatch` entries, the leases of one pop sharing
 * one batch (times, ckOffset, reviveQid), and every batch filed by deadline in 100 ms buckets.
 * A lease is thus one Map entry: a million cost some 90 MB. The table writes nothing itself;
 * it turns itself into lease-log records (`snapshot`) and back (`replay`).
 */
import { DeadlineWheel } from "./pop-deadlines.ts";
import { type LeaseRecord, LeaseRecordType } from "./pop-lease-records.ts";
import type { OrderInfo } from "./pop-order.ts";

/** What the leases of one pop (or one CHANGE) share. */
export interface LeaseTerms {
  readonly ckOffset: number;
  readonly popTime: number;
  readonly invisibleTime: number;
  readonly reviveQid: number;
}

export interface LeaseBatch extends LeaseTerms {
  readonly q: PopQueue;
  readonly deadline: number;
  /** Emptied once every lease of the batch is settled. */
  offsets: readonly number[];
  /** Offsets of `offsets` whose entry still names this batch. */
  live: number;
}

/** One (group, real topic, queue): what is leased and where the next pop starts. */
export interface PopQueue {
  /** Names the queue in the lease log. */
  readonly id: number;
  readonly group: string;
  /** The topic consumers pop (the original one, also for a retry topic's queue). */
  readonly topic: string;
  /** Where the messages live: `topic` or its retry topic. */
  readonly realTopic: string;
  readonly queueId: number;
  /** Next offset to pop; -1 until the first pop. */
  popped: number;
  /** A pop is reading this queue: another pop skips it (Java's try-lock). */
  busy: boolean;
  readonly leases: Map<number, LeaseBatch>;
  /** The last ordered batch (§A.15), or null. */
  order: OrderInfo | null;
}

const NO_OFFSETS: readonly number[] = [];

const keyOf = (group: string, realTopic: string, queueId: number) => `${realTopic}@${group}@${queueId}`;

export class LeaseTable {
  readonly deadlines = new DeadlineWheel<LeaseBatch>();
  private readonly queues = new Map<string, PopQueue>();
  private readonly byId = new Map<number, PopQueue>();
  private leases = 0;

  get leaseCount(): number {
    return this.leases;
  }

  queueList(): IterableIterator<PopQueue> {
    return this.queues.values();
  }

  find(group: string, realTopic: string, queueId: number): PopQueue | undefined {
    return this.queues.get(keyOf(group, realTopic, queueId));
  }

  /** The queue, created if absent; `created` tells the caller to log its QUEUE record. */
  ensure(
    group: string,
    topic: string,
    realTopic: string,
    queueId: number,
  ): { q: PopQueue; created: boolean } {
    const key = keyOf(group, realTopic, queueId);
    const found = this.queues.get(key);
    if (found) return { q: found, created: false };
    let id = this.byId.size + 1;
    while (this.byId.has(id)) id++;
    const q: PopQueue = {
      id,
      group,
      topic,
      realTopic,
      queueId,
      popped: -1,
      busy: false,
      leases: new Map(),
      order: null,
    };
    this.queues.set(key, q);
    this.byId.set(id, q);
    return { q, created: true };
  }

  /** Leases `offsets` of `q` on `terms`; an offset leased before now belongs to the new batch. */
  lease(q: PopQueue, terms: LeaseTerms, offsets: readonly number[]): LeaseBatch {
    const b: LeaseBatch = { ...terms, q, deadline: terms.popTime + terms.invisibleTime, offsets, live: 0 };
    for (const o of offsets) {
      const old = q.leases.get(o);
      if (!old) this.leases++;
      else if (--old.live === 0) old.offsets = NO_OFFSETS;
      q.leases.set(o, b);
      b.live++;
    }
    this.deadlines.add(b, b.deadline);
    return b;
  }

  /** Deletes the entries of `offsets` that still name `b`; returns the offsets deleted. */
  drop(q: PopQueue, b: LeaseBatch, offsets: readonly number[]): number[] {
    const gone: number[] = [];
    for (const o of offsets) {
      if (q.leases.get(o) !== b) continue;
      q.leases.delete(o);
      b.live--;
      this.leases--;
      gone.push(o);
    }
    // The wheel keeps a settled batch until its deadline: let its offsets go now.
    if (b.live === 0) b.offsets = NO_OFFSETS;
    return gone;
  }

  /** The live table as records: each queue, its next offset, each live batch with its live offsets. */
  snapshot(orderRecord: (q: PopQueue) => LeaseRecord): LeaseRecord[] {
    const out: LeaseRecord[] = [];
    for (const q of this.queues.values()) {
      const { id: qid, queueId, group, topic, realTopic } = q;
      out.push({ type: LeaseRecordType.QUEUE, qid, queueId, group, topic, realTopic });
      const batches = new Map<LeaseBatch, number[]>();
      for (const [o, b] of q.leases) {
        const list = batches.get(b);
        if (list) list.push(o);
        else batches.set(b, [o]);
      }
      const nextBegin = q.popped;
      const none = { ckOffset: 0, popTime: 0, invisibleTime: 0, reviveQid: 0 };
      out.push({ type: LeaseRecordType.POP, qid, ...none, nextBegin, offsets: [] });
      for (const [b, offsets] of batches) {
        const { ckOffset, popTime, invisibleTime, reviveQid } = b;
        out.push({
          type: LeaseRecordType.POP,
          qid,
          ckOffset,
          popTime,
          invisibleTime,
          reviveQid,
          nextBegin,
          offsets,
        });
      }
      if (q.order) out.push(orderRecord(q));
    }
    return out;
  }

  /** Applies one recovered record; ORDER records go to `onOrder`. */
  replay(r: LeaseRecord, onOrder: (q: PopQueue, json: string) => void): void {
    if (r.type === LeaseRecordType.QUEUE) {
      // A snapshot declares every queue again, perhaps under another id.
      const key = keyOf(r.group, r.realTopic, r.queueId);
      const old = this.queues.get(key);
      if (old) this.byId.delete(old.id);
      const q: PopQueue = {
        id: r.qid,
        group: r.group,
        topic: r.topic,
        realTopic: r.realTopic,
        queueId: r.queueId,
        popped: old?.popped ?? -1,
        busy: false,
        leases: old?.leases ?? new Map(),
        order: old?.order ?? null,
      };
      this.queues.set(key, q);
      this.byId.set(q.id, q);
      return;
    }
    if (r.type === LeaseRecordType.SNAPSHOT_END) return;
    const q = this.byId.get(r.qid);
    if (!q) return;
    switch (r.type) {
      case LeaseRecordType.POP:
        if (r.offsets.length > 0) this.lease(q, r, r.offsets);
        q.popped = Math.max(q.popped, r.nextBegin);
        break;
      case LeaseRecordType.DEL:
        for (const o of r.offsets) {
          const b = q.leases.get(o);
          if (b && b.popTime === r.popTime && b.ckOffset === r.ckOffset) this.drop(q, b, [o]);
        }
        break;
      case LeaseRecordType.CHANGE: {
        const { offset, popTime, invisibleTime, reviveQid } = r;
        this.lease(q, { ckOffset: offset, popTime, invisibleTime, reviveQid }, [offset]);
        break;
      }
      case LeaseRecordType.ORDER:
        onOrder(q, r.json);
        break;
    }
  }
}
