/**
 * POP in-flight state (spec pop-timer-filter §A.18, "in-flight table instead of CK/ACK timer
 * messages"): one lease per popped message, keyed by (group, real topic, queue, offset) and
 * identified by (popTime, ckQueueOffset) as a receipt handle names it. ACK deletes a matching
 * lease; CHANGE_MESSAGE_INVISIBLETIME replaces it; a 100 ms sweep hands expired leases to the
 * reviver (pop-revive.ts), which copies them into `%RETRY%<group>_<topic>` (§A.12.3).
 *
 * The table itself (one Map entry per lease, batches by deadline) is pop-lease-table.ts.
 *
 * Offsets: the next offset to pop (`popped`) lives here; the committed consume offset advances to
 * the lowest offset still leased, or to `popped` when none is (an un-acked message therefore holds
 * the commit until it is acked or revived).
 *
 * Durability: every change is a record in the lease log (pop-lease-log.ts); a pop's reply waits
 * for its record, so a lease a client holds survives kill -9 and still expires and redelivers.
 * `popped` is restored from the same records, so a pop whose record was lost is popped again
 * rather than skipped. Recovery replays the log, then starts a fresh file with a snapshot.
 */
import { join } from "node:path";
import type { BrokerContext } from "../context.ts";
import { LeaseLog } from "./pop-lease-log.ts";
import { type LeaseRecord, LeaseRecordType } from "./pop-lease-records.ts";
import { type LeaseBatch, LeaseTable, type LeaseTerms, type PopQueue } from "./pop-lease-table.ts";
import { PopWaiters } from "./pop-leases-waiters.ts";
import { OrderedPops } from "./pop-ordered.ts";
import { originalTopicOf, PopReviver } from "./pop-revive.ts";
import type { BrokerService } from "./service.ts";

export type { LeaseBatch, LeaseTerms, PopQueue } from "./pop-lease-table.ts";
export { FIRST_POP_TIME, originalTopicOf, POP_CK } from "./pop-revive.ts";

const SWEEP_INTERVAL_MS = 100;
/** The log is rotated (checkpointed) once it is this big and four times the live table. */
const LOG_ROTATE_BYTES_MIN = 64 * 1024 * 1024;
/** Rough bytes of one lease in a snapshot, to compare the log with the live table. */
const SNAPSHOT_BYTES_PER_LEASE = 12;
/** Revive queues of unordered pops (Java's reviveQueueNum). */
const REVIVE_QUEUE_NUM = 8;

export class PopService implements BrokerService {
  readonly name = "pop";
  readonly waiters = new PopWaiters();
  /** Parked NOTIFICATION requests: a registry of their own, so they never take a pop's wake-up. */
  readonly notifications = new PopWaiters();
  readonly ordered: OrderedPops;
  private readonly table = new LeaseTable();
  private readonly reviver: PopReviver;
  private readonly leaseLog: LeaseLog | null;
  private sweepTimer: ReturnType<typeof setInterval> | null = null;
  private unsubscribe: (() => void) | null = null;
  private reviveCounter = 0;
  private rotating = false;

  /** `logDir` null: nothing is persisted (unit tests). */
  constructor(
    private readonly ctx: BrokerContext,
    logDir: string | null = null,
  ) {
    this.leaseLog = logDir === null ? null : new LeaseLog(logDir, ctx.log.child({ part: "pop-log" }));
    this.reviver = new PopReviver(ctx, this);
    const wake = (topic: string, group: string, queueId: number) => {
      this.waiters.wakeQueue(topic, group, queueId);
      this.notifications.wakeQueue(topic, group, queueId);
    };
    this.ordered = new OrderedPops(ctx, wake, (r) => this.record(r));
  }

  async start(): Promise<void> {
    if (this.leaseLog) {
      const { records, files } = await this.leaseLog.recover();
      for (const r of records) this.table.replay(r, (q, json) => this.ordered.replay(q, json));
      await this.leaseLog.rotate(this.snapshot());
      for (const q of this.table.queueList()) this.advanceCommit(q);
      if (files > 0) this.ctx.log.info({ leases: this.leaseCount }, "POP leases recovered");
    }
    this.unsubscribe = this.ctx.store.onMessageArrived((topic, queueId, _offset, tagsCode) => {
      this.waiters.notify(topic, queueId, tagsCode);
      this.notifications.notify(topic, queueId, tagsCode);
    });
    this.waiters.start();
    this.notifications.start();
    this.sweepTimer = setInterval(() => this.sweep(Date.now()), SWEEP_INTERVAL_MS);
    this.sweepTimer.unref?.();
  }

  async stop(): Promise<void> {
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    this.sweepTimer = null;
    this.unsubscribe?.();
    this.waiters.stop();
    this.notifications.stop();
    await this.reviver.stop();
    await this.leaseLog?.close();
  }

  runtimeInfo(): Iterable<readonly [string, string]> {
    return [["popInflightLeases", String(this.leaseCount)]];
  }

  /** Round-robin over Java's 8 revive queues (§A.4.3 step 1). */
  nextReviveQid(): number {
    this.reviveCounter = (this.reviveCounter + 1) % REVIVE_QUEUE_NUM;
    return this.reviveCounter;
  }

  get leaseCount(): number {
    return this.table.leaseCount;
  }

  queue(group: string, topic: string, realTopic: string, queueId: number): PopQueue {
    const { q, created } = this.table.ensure(group, topic, realTopic, queueId);
    if (created) this.record({ type: LeaseRecordType.QUEUE, qid: q.id, queueId, group, topic, realTopic });
    return q;
  }

  /** The queue an ack or change names by its real topic. */
  queueOf(group: string, realTopic: string, queueId: number): PopQueue {
    return this.queue(group, originalTopicOf(realTopic, group), realTopic, queueId);
  }

  findQueue(group: string, realTopic: string, queueId: number): PopQueue | undefined {
    return this.table.find(group, realTopic, queueId);
  }

  /** Where the next pop of `q` reads: the later of the committed offset and the last popped one. */
  popOffset(q: PopQueue, initOffset: () => number): number {
    let committed = this.ctx.offsets.query(q.group, q.realTopic, q.queueId);
    if (committed < 0) {
      committed = initOffset();
      this.ctx.offsets.commit(q.group, q.realTopic, q.queueId, committed);
    }
    return Math.max(committed, q.popped);
  }

  /**
   * Leases `offsets` (read from `q` in one pop) and moves its next offset to `nextBegin`, then
   * advances the commit. Resolves once the record is written: reply only then.
   */
  popped(q: PopQueue, terms: LeaseTerms, offsets: readonly number[], nextBegin: number): Promise<void> {
    if (offsets.length > 0) this.table.lease(q, terms, offsets);
    q.popped = Math.max(q.popped, nextBegin);
    this.advanceCommit(q);
    return this.record({ type: LeaseRecordType.POP, qid: q.id, ...terms, nextBegin, offsets });
  }

  /** ACK: deletes the lease the handle names; a stale or unknown handle changes nothing. */
  ack(
    group: string,
    realTopic: string,
    queueId: number,
    offset: number,
    popTime: number,
    ckOffset: number,
  ): boolean {
    return this.ackMany(group, realTopic, queueId, [offset], popTime, ckOffset) === 1;
  }

  /**
   * The acks of one BATCH_ACK entry (§A.8): every offset whose lease matches (popTime, ckOffset),
   * settled in one record. Returns how many matched.
   */
  ackMany(
    group: string,
    realTopic: string,
    queueId: number,
    offsets: readonly number[],
    popTime: number,
    ckOffset: number,
  ): number {
    const q = this.findQueue(group, realTopic, queueId);
    if (!q) return 0;
    const byBatch = new Map<LeaseBatch, number[]>();
    for (const o of offsets) {
      const b = q.leases.get(o);
      if (!b || b.popTime !== popTime || b.ckOffset !== ckOffset) continue;
      const list = byBatch.get(b);
      if (list) list.push(o);
      else byBatch.set(b, [o]);
    }
    let n = 0;
    for (const [b, list] of byBatch) n += this.settle(q, b, list);
    if (n > 0) this.advanceCommit(q);
    return n;
  }

  /**
   * CHANGE_MESSAGE_INVISIBLETIME: a new lease {ckOffset = offset, popTime = now} replaces the
   * message's lease, unconditionally (§A.9 step 3: even an acked or revived message is leased
   * again). Returns the new lease's terms.
   */
  change(
    group: string,
    realTopic: string,
    queueId: number,
    offset: number,
    invisibleTime: number,
    reviveQid: number,
    now: number,
  ): LeaseBatch {
    const q = this.queueOf(group, realTopic, queueId);
    const terms = { ckOffset: offset, popTime: now, invisibleTime, reviveQid };
    const b = this.table.lease(q, terms, [offset]);
    this.record({ type: LeaseRecordType.CHANGE, qid: q.id, offset, popTime: now, invisibleTime, reviveQid });
    return b;
  }

  /** Resolves once every change so far is written: ACK and CHANGE reply only then. */
  durable(): Promise<void> {
    return this.leaseLog ? this.leaseLog.flush() : Promise.resolve();
  }

  /** Hands every batch whose deadline passed to the reviver. */
  sweep(now: number): void {
    this.table.deadlines.takeDue(now, (b) => {
      if (b.live > 0) this.reviver.enqueue(b);
    });
    this.reviver.pump();
    this.ordered.sweep(now);
    this.maybeRotate();
  }

  /** Called by the reviver: these offsets of `b` were copied to the retry topic (or are gone). */
  revived(b: LeaseBatch, offsets: readonly number[]): void {
    this.settle(b.q, b, offsets);
    this.advanceCommit(b.q);
  }

  /** Called by the reviver: `b` could not be revived now; its live leases are retried at `at`. */
  retryLater(b: LeaseBatch, at: number): void {
    this.table.deadlines.add(b, at);
  }

  /** Deletes the entries of `offsets` that still name `b`, and logs it; returns how many. */
  private settle(q: PopQueue, b: LeaseBatch, offsets: readonly number[]): number {
    const gone = this.table.drop(q, b, offsets);
    if (gone.length > 0) {
      const { popTime, ckOffset } = b;
      this.record({ type: LeaseRecordType.DEL, qid: q.id, popTime, ckOffset, offsets: gone });
    }
    return gone.length;
  }

  /**
   * The commit follows the lowest leased offset and never moves back. It walks up from the
   * committed offset one offset at a time: each offset is passed once, so the walk is amortised
   * O(1) per popped message.
   */
  private advanceCommit(q: PopQueue): void {
    const committed = this.ctx.offsets.query(q.group, q.realTopic, q.queueId);
    if (committed < 0 || committed >= q.popped) return;
    let low = committed;
    while (low < q.popped && !q.leases.has(low)) low++;
    if (low > committed) this.ctx.offsets.commit(q.group, q.realTopic, q.queueId, low);
  }

  private record(r: LeaseRecord): Promise<void> {
    return this.leaseLog ? this.leaseLog.append(r) : Promise.resolve();
  }

  private maybeRotate(): void {
    const log = this.leaseLog;
    if (!log || this.rotating) return;
    if (log.size < Math.max(LOG_ROTATE_BYTES_MIN, 4 * this.leaseCount * SNAPSHOT_BYTES_PER_LEASE)) return;
    void this.checkpoint();
  }

  /** Starts a new lease-log file from a snapshot of the table; resolves once it is written. */
  async checkpoint(): Promise<void> {
    if (!this.leaseLog || this.rotating) return;
    this.rotating = true;
    try {
      await this.leaseLog.rotate(this.snapshot());
    } finally {
      this.rotating = false;
    }
  }

  private snapshot(): LeaseRecord[] {
    return this.table.snapshot((q) => this.ordered.recordOf(q));
  }
}

const services = new WeakMap<BrokerContext, PopService>();

/** The broker's one PopService: processors and createBroker reach it through the context. */
export function popServiceOf(ctx: BrokerContext): PopService {
  let s = services.get(ctx);
  if (!s) {
    s = new PopService(ctx, join(ctx.storeConfig.storePathRootDir, "pop"));
    services.set(ctx, s);
  }
  return s;
}
