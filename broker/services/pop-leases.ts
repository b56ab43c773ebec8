/**
 * POP in-flight state (spec pop-timer-filter §A.18, "in-flight table instead of CK/ACK timer
 * messages"): one lease per popped message, keyed by (group, real topic, queue, offset) and
 * identified by (popTime, ckQueueOffset) as a receipt handle names it. ACK deletes a matching
 * lease; CHANGE_MESSAGE_INVISIBLETIME replaces it; a 100 ms sweep revives expired leases by
 * copying the message into `%RETRY%<group>_<topic>` queue 0 with reconsumeTimes + 1 (§A.12.3),
 * which POP reads beside the topic.
 *
 * Offsets: the next offset to pop lives here in memory; the committed consume offset advances to
 * the lowest offset still leased (or the next offset to pop when none is). Leases are not
 * persisted: after a restart the un-acked messages of the original topic are popped again from
 * the committed offset, which is at least once, never lost.
 */

import { popRetryTopicV1, retryFlagOfTopic } from "../../src/protocol/headers/pop.ts";
import { type DecodedRecord, decodeRecord, MessageConst } from "../../src/protocol/message/index.ts";
import { DEFAULT_PERM } from "../../src/protocol/route/perm.ts";
import { RETRY_GROUP_TOPIC_PREFIX } from "../../src/protocol/topic-names.ts";
import type { BrokerContext } from "../context.ts";
import { GetMessageStatus, PutMessageStatus } from "../store/status.ts";
import { PopWaiters } from "./pop-leases-waiters.ts";

/** Java's PROPERTY_FIRST_POP_TIME and PROPERTY_POP_CK. */
export const FIRST_POP_TIME = "1ST_POP_TIME";
export const POP_CK = "POP_CK";

const SWEEP_INTERVAL_MS = 100;
/** A revive whose re-put failed is tried again this much later. */
const REVIVE_RETRY_MS = 1000;

export interface PopLease {
  readonly group: string;
  /** The topic the consumer popped (never a retry topic). */
  readonly topic: string;
  /** Where the message lives: `topic` or its retry topic. */
  readonly realTopic: string;
  readonly queueId: number;
  readonly offset: number;
  readonly ckOffset: number;
  readonly popTime: number;
  readonly invisibleTime: number;
  readonly reviveQid: number;
  readonly deadline: number;
}

/** One (group, real topic, queue): what is leased and where the next pop starts. */
export interface PopQueue {
  readonly group: string;
  readonly realTopic: string;
  readonly queueId: number;
  /** Next offset to pop; -1 until the first pop. */
  popped: number;
  /** A pop is reading this queue: another pop skips it (Java's try-lock). */
  busy: boolean;
  readonly leases: Map<number, PopLease>;
}

/** The original topic behind a POP retry topic name, or the name itself. */
export function originalTopicOf(realTopic: string, group: string): string {
  const v1 = `${RETRY_GROUP_TOPIC_PREFIX}${group}_`;
  const v2 = `${RETRY_GROUP_TOPIC_PREFIX}${group}+`;
  if (realTopic.startsWith(v1)) return realTopic.slice(v1.length);
  if (realTopic.startsWith(v2)) return realTopic.slice(v2.length);
  return realTopic;
}

export class PopService {
  readonly waiters = new PopWaiters();
  private readonly queues = new Map<string, PopQueue>();
  private sweepTimer: ReturnType<typeof setInterval> | null = null;
  private unsubscribe: (() => void) | null = null;
  private reviveCounter = 0;
  /** Revives in flight, awaited by stop(). */
  private readonly reviving = new Set<Promise<void>>();

  constructor(private readonly ctx: BrokerContext) {}

  start(): void {
    this.unsubscribe = this.ctx.store.onMessageArrived((topic, queueId, _offset, tagsCode) =>
      this.waiters.notify(topic, queueId, tagsCode),
    );
    this.waiters.start();
    this.sweepTimer = setInterval(() => this.sweep(Date.now()), SWEEP_INTERVAL_MS);
    this.sweepTimer.unref?.();
  }

  async stop(): Promise<void> {
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    this.sweepTimer = null;
    this.unsubscribe?.();
    this.waiters.stop();
    await Promise.allSettled([...this.reviving]);
  }

  /** Round-robin over 8 revive queues, as Java's per-request counter (§A.4.3 step 1). */
  nextReviveQid(): number {
    this.reviveCounter = (this.reviveCounter + 1) % 8;
    return this.reviveCounter;
  }

  get leaseCount(): number {
    let n = 0;
    for (const q of this.queues.values()) n += q.leases.size;
    return n;
  }

  queue(group: string, realTopic: string, queueId: number): PopQueue {
    const key = `${realTopic}@${group}@${queueId}`;
    let q = this.queues.get(key);
    if (!q) {
      q = { group, realTopic, queueId, popped: -1, busy: false, leases: new Map() };
      this.queues.set(key, q);
    }
    return q;
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

  /** Records a pop's leases and its next offset, then advances the commit. */
  popped(q: PopQueue, leases: readonly PopLease[], nextBeginOffset: number): void {
    for (const l of leases) q.leases.set(l.offset, l);
    q.popped = Math.max(q.popped, nextBeginOffset);
    this.advanceCommit(q);
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
    const q = this.queues.get(`${realTopic}@${group}@${queueId}`);
    const l = q?.leases.get(offset);
    if (!q || !l || l.popTime !== popTime || l.ckOffset !== ckOffset) return false;
    q.leases.delete(offset);
    this.advanceCommit(q);
    return true;
  }

  /**
   * CHANGE_MESSAGE_INVISIBLETIME: a new lease {ckOffset = offset, popTime = now} replaces the
   * message's lease, unconditionally (§A.9 step 3: even an acked or revived message is leased
   * again). Returns the new lease.
   */
  change(
    group: string,
    realTopic: string,
    queueId: number,
    offset: number,
    invisibleTime: number,
    reviveQid: number,
    now: number,
  ): PopLease {
    const q = this.queue(group, realTopic, queueId);
    const lease: PopLease = {
      group,
      topic: originalTopicOf(realTopic, group),
      realTopic,
      queueId,
      offset,
      ckOffset: offset,
      popTime: now,
      invisibleTime,
      reviveQid,
      deadline: now + invisibleTime,
    };
    q.leases.set(offset, lease);
    return lease;
  }

  /** The commit follows the lowest leased offset; it never moves back. */
  private advanceCommit(q: PopQueue): void {
    let low = q.popped;
    for (const offset of q.leases.keys()) if (offset < low) low = offset;
    if (low < 0) return;
    if (low > this.ctx.offsets.query(q.group, q.realTopic, q.queueId)) {
      this.ctx.offsets.commit(q.group, q.realTopic, q.queueId, low);
    }
  }

  /** Revives every lease whose deadline has passed. */
  sweep(now: number): void {
    for (const q of this.queues.values()) {
      for (const l of q.leases.values()) {
        if (l.deadline > now) continue;
        q.leases.delete(l.offset);
        const p = this.revive(q, l).finally(() => this.reviving.delete(p));
        this.reviving.add(p);
      }
    }
  }

  private async revive(q: PopQueue, l: PopLease): Promise<void> {
    try {
      const done = await this.copyToRetry(l);
      if (done) {
        this.advanceCommit(q);
        return;
      }
    } catch (err) {
      this.ctx.log.warn({ err, group: l.group, topic: l.realTopic, offset: l.offset }, "POP revive failed");
    }
    // Put back unless an ACK-less CHANGE leased it again meanwhile.
    if (!q.leases.has(l.offset)) q.leases.set(l.offset, { ...l, deadline: Date.now() + REVIVE_RETRY_MS });
  }

  /**
   * The copy of §A.12.3: retry topic (the same one for a retry copy), queue 0, all properties,
   * reconsumeTimes + 1, 1ST_POP_TIME on a first revive. false: try again later; true: done
   * (also when the message is gone from the store: nothing is left to deliver).
   */
  private async copyToRetry(l: PopLease): Promise<boolean> {
    const ctx = this.ctx;
    const r = await ctx.store.getMessage(
      l.group,
      l.realTopic,
      l.queueId,
      l.offset,
      1,
      ctx.storeConfig.maxTransferBytesOnMessageInMemory,
    );
    if (r.status !== GetMessageStatus.FOUND || r.messages.length === 0) {
      ctx.log.warn(
        { group: l.group, topic: l.realTopic, offset: l.offset, status: r.status },
        "POP revive: message gone",
      );
      return true;
    }
    const msg: DecodedRecord = decodeRecord(r.messages[0]!);
    const retryTopic =
      retryFlagOfTopic(l.realTopic) === "0" ? popRetryTopicV1(l.topic, l.group) : l.realTopic;
    await ctx.topics.createIfAbsent(retryTopic, 1, DEFAULT_PERM);
    const properties = new Map(msg.properties);
    properties.delete(POP_CK);
    if (msg.reconsumeTimes === 0 || !properties.has(FIRST_POP_TIME)) {
      properties.set(FIRST_POP_TIME, String(l.popTime));
    }
    properties.delete(MessageConst.RETRY_TOPIC);
    const put = await ctx.store.putMessage({
      topic: retryTopic,
      queueId: 0,
      flag: msg.flag,
      body: msg.body,
      properties,
      bornTimestamp: msg.bornTimestamp,
      bornHost: ctx.storeHost,
      storeHost: ctx.storeHost,
      sysFlag: msg.sysFlag,
      reconsumeTimes: msg.reconsumeTimes + 1,
      preparedTransactionOffset: 0,
    });
    return put.status === PutMessageStatus.PUT_OK;
  }
}

const services = new WeakMap<BrokerContext, PopService>();

/** The broker's one PopService: processors and createBroker reach it through the context. */
export function popServiceOf(ctx: BrokerContext): PopService {
  let s = services.get(ctx);
  if (!s) {
    s = new PopService(ctx);
    services.set(ctx, s);
  }
  return s;
}
