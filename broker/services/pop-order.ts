/**
 * Ordered POP state (spec pop-timer-filter §A.15, Java's ConsumerOrderInfoManager): per
 * (group, topic, queue) the last batch handed out, which offsets of it are acked, per-offset
 * next-visible times set by CHANGE_MESSAGE_INVISIBLETIME and per-offset delivery counts. A queue
 * whose batch has an un-acked offset still invisible is *blocked*: ordered pops skip it. Nothing
 * is copied to a retry topic; once the batch expires the next pop reads the same offsets again
 * from the committed offset (the first un-acked one) and their counts go up by one.
 *
 * Persisted as ORDER records of the lease log, holding Java's consumerOrderInfo.json OrderInfo
 * fields (popTime, i, o, ot, oc, l, cm, a) and the committed offset, so a restart neither
 * releases a blocked queue early nor loses an ordered ack's commit.
 */
import type { QueueOrderCounts } from "../../src/protocol/headers/pop.ts";
import { PopRetryFlag } from "../../src/protocol/headers/pop.ts";

export interface OrderInfo {
  readonly popTime: number;
  readonly invisibleTime: number;
  /** Queue offsets of the batch, in order. */
  readonly offsets: readonly number[];
  /** Offset → next-visible time, from CHANGE_MESSAGE_INVISIBLETIME. */
  readonly nextVisible: Map<number, number>;
  /** Offset → times already delivered (only counts > 0). */
  readonly counts: ReadonlyMap<number, number>;
  /** Bit i set: offsets[i] is acked. */
  acked: number;
  readonly attemptId: string | null;
}

/** What commitAndNext answers besides the next offset (Java's −1 and −2). */
export const OrderAck = { ILLEGAL: -1, STALE: -2 } as const;

function isAcked(info: OrderInfo, i: number): boolean {
  return ((info.acked >>> i) & 1) === 1;
}

/**
 * When the queue stops being blocked: `now` if it is not, else the earliest next-visible time of
 * an un-acked offset that is still in the future (Java's getLockFreeTimestamp).
 */
export function lockFreeTime(info: OrderInfo | null, now: number): number {
  if (!info || info.offsets.length === 0 || info.invisibleTime <= 0) return now;
  for (let i = 0; i < info.offsets.length; i++) {
    if (isAcked(info, i)) continue;
    const visible = info.nextVisible.get(info.offsets[i]!) ?? info.popTime + info.invisibleTime;
    if (now < visible) return visible;
  }
  return now;
}

/** Blocked for a pop carrying `attemptId` (the same FIFO receive attempt is never blocked). */
export function isBlocked(info: OrderInfo | null, attemptId: string | null, now: number): boolean {
  if (!info || info.offsets.length === 0) return false;
  if (info.attemptId !== null && info.attemptId === attemptId) return false;
  return lockFreeTime(info, now) > now;
}

/**
 * The state after a pop of `offsets`: counts carried over +1 for offsets that were in the previous
 * batch, kept as they were for the same attemptId (Java's mergeOffsetConsumedCount).
 */
export function nextOrderInfo(
  prev: OrderInfo | null,
  popTime: number,
  invisibleTime: number,
  offsets: readonly number[],
  attemptId: string | null,
): OrderInfo {
  let counts = new Map<number, number>();
  if (prev) {
    if (prev.attemptId !== null && prev.attemptId === attemptId) {
      counts = new Map(prev.counts);
    } else {
      const before = new Set(prev.offsets);
      for (const o of offsets) if (before.has(o)) counts.set(o, (prev.counts.get(o) ?? 0) + 1);
    }
  }
  return { popTime, invisibleTime, offsets, nextVisible: new Map(), counts, acked: 0, attemptId };
}

/** The orderCountInfo entry of one queue (§A.15; encoded by encodeOrderCountInfo). */
export function orderCounts(info: OrderInfo, queueId: number): QueueOrderCounts {
  let min = Number.POSITIVE_INFINITY;
  for (const c of info.counts.values()) min = Math.min(min, c);
  // Counts are kept only when > 0: an offset without one was delivered for the first time.
  if (info.counts.size !== info.offsets.length || !Number.isFinite(min)) min = 0;
  return { flag: PopRetryFlag.NORMAL, queueId, counts: info.counts, minCount: min };
}

/**
 * Marks `offset` acked. Returns the offset to commit next (the first un-acked of the batch, or
 * last + 1), OrderAck.ILLEGAL when the offset is not in the batch, OrderAck.STALE when `popTime`
 * is not the batch's.
 */
export function commitAndNext(info: OrderInfo, offset: number, popTime: number): number {
  if (info.offsets.length === 0) return OrderAck.ILLEGAL;
  if (popTime !== info.popTime) return OrderAck.STALE;
  const i = info.offsets.indexOf(offset);
  if (i < 0) return OrderAck.ILLEGAL;
  info.acked = (info.acked | (1 << i)) >>> 0;
  for (let j = 0; j < info.offsets.length; j++) if (!isAcked(info, j)) return info.offsets[j]!;
  return info.offsets[info.offsets.length - 1]! + 1;
}

/** Java's OrderInfo JSON (consumerOrderInfo.json): offsets as first + distances. */
interface OrderInfoJson {
  popTime: number;
  i: number;
  o: number[];
  ot?: Record<string, number>;
  oc?: Record<string, number>;
  l: number;
  cm: number;
  a?: string;
}

export function orderInfoToJson(info: OrderInfo, now: number): OrderInfoJson {
  const first = info.offsets[0] ?? 0;
  return {
    popTime: info.popTime,
    i: info.invisibleTime,
    o: info.offsets.map((o, idx) => (idx === 0 ? o : o - first)),
    ...(info.nextVisible.size > 0 ? { ot: Object.fromEntries(info.nextVisible) } : {}),
    ...(info.counts.size > 0 ? { oc: Object.fromEntries(info.counts) } : {}),
    l: now,
    cm: info.acked,
    ...(info.attemptId !== null ? { a: info.attemptId } : {}),
  };
}

export function orderInfoFromJson(j: OrderInfoJson): OrderInfo {
  const first = j.o[0] ?? 0;
  const entries = (r: Record<string, number> | undefined) =>
    Object.entries(r ?? {}).map(([k, v]) => [Number(k), Number(v)] as [number, number]);
  return {
    popTime: Number(j.popTime),
    invisibleTime: Number(j.i),
    offsets: j.o.map((o, idx) => (idx === 0 ? Number(o) : first + Number(o))),
    nextVisible: new Map(entries(j.ot)),
    counts: new Map(entries(j.oc)),
    acked: Number(j.cm) >>> 0,
    attemptId: j.a ?? null,
  };
}
