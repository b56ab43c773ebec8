/**
 * The timer service's state, without I/O: which entries of the timer topic are pending (a heap
 * by due time), which were read when already due (`late`), which keys are cancelled until when,
 * how far the queue is read and up to when everything is delivered. Every method is synchronous,
 * so a progress snapshot taken at any moment is consistent (see timer-progress.ts for what the
 * three saved numbers promise).
 */
import type { QueueUnit } from "../../store/message-store.ts";
import { holdsMessage } from "../../store/reads.ts";
import { OpenOffsets } from "./open-offsets.ts";
import { DELETE_MARK, type TimerEntry, TimerHeap } from "./timer-heap.ts";
import type { TimerProgressValues } from "./timer-progress.ts";

/** Entries taken for one delivery round: the late ones first, then those due by `cutoff`. */
export interface TimerRound {
  readonly entries: TimerEntry[];
  readonly lateCount: number;
  readonly cutoff: number;
}

export class TimerIndex {
  private readonly heap = new TimerHeap();
  private late: TimerEntry[] = [];
  /** Cancelled key → the latest due time of a delete entry naming it. */
  private readonly cancels = new Map<string, number>();
  /** Queue offset of a delete entry → the key it cancels, until it expires. */
  private readonly deleteKeys = new Map<number, string>();
  private readonly open = new OpenOffsets();
  private inflight: TimerRound | undefined;
  /** Next queue offset of the timer topic to read. */
  readOffset: number;
  /** Every indexed entry due at or before this is delivered (or cancelled, or expired). */
  firedUpTo: number;
  /** Units below this offset and due by `recoveredFiredUpTo` were done before the restart. */
  private readonly recoveredBelow: number;
  private readonly recoveredFiredUpTo: number;
  indexed = 0;
  delivered = 0;

  constructor(
    saved: TimerProgressValues,
    private readonly precisionMs: number,
  ) {
    this.readOffset = saved.lowWater;
    this.firedUpTo = saved.firedUpTo;
    this.recoveredBelow = saved.enqueueOffset;
    this.recoveredFiredUpTo = saved.firedUpTo;
  }

  /** Entries pending delivery (delete entries not counted). */
  get pending(): number {
    return this.heap.size - this.deleteKeys.size + this.late.length;
  }

  /** When the next entry is due: now if a late one waits; +Infinity if nothing does. */
  nextDue(now: number): number {
    return this.late.length > 0 ? now : this.heap.peekDue();
  }

  /** Delivery time of a unit: its slot plus one precision step (§B.3); 0 (now) without a slot. */
  dueOf(u: QueueUnit): number {
    const slot = Math.abs(u.tagsCode);
    return slot === 0 ? 0 : slot + this.precisionMs;
  }

  /** A delete entry still to index, whose record must be read for the key it cancels. */
  needsKey(u: QueueUnit): boolean {
    return holdsMessage(u) && u.tagsCode < 0 && !this.doneBeforeRestart(u);
  }

  private doneBeforeRestart(u: QueueUnit): boolean {
    return u.queueOffset < this.recoveredBelow && this.dueOf(u) <= this.recoveredFiredUpTo;
  }

  /** Indexes units read in queue order; `keys` holds the key of each delete entry (by queue offset). */
  add(units: readonly QueueUnit[], keys: ReadonlyMap<number, string>): void {
    for (const u of units) {
      this.readOffset = Math.max(this.readOffset, u.queueOffset + 1);
      if (!holdsMessage(u) || this.doneBeforeRestart(u)) continue;
      const due = this.dueOf(u);
      const e: TimerEntry = { due, queueOffset: u.queueOffset, phyOffset: u.phyOffset, size: u.size };
      if (u.tagsCode < 0) {
        const key = keys.get(u.queueOffset);
        // A delete entry whose time has passed finds nothing left to cancel (§B.6.1).
        if (key === undefined || due <= this.firedUpTo) continue;
        this.cancels.set(key, Math.max(this.cancels.get(key) ?? 0, due));
        this.deleteKeys.set(u.queueOffset, key);
        e.size = DELETE_MARK;
        this.heap.push(e);
      } else if (due <= this.firedUpTo) {
        this.late.push(e);
      } else {
        this.heap.push(e);
      }
      this.open.open(u.queueOffset);
      this.indexed++;
    }
  }

  /** Whether any delete entry is pending (the key of a due entry need not be looked up otherwise). */
  get cancelling(): boolean {
    return this.cancels.size > 0;
  }

  /** Whether a delete entry naming `key`, due at or after `due`, cancels the entry. */
  isCancelled(key: string | undefined, due: number): boolean {
    return key !== undefined && (this.cancels.get(key) ?? Number.NEGATIVE_INFINITY) >= due;
  }

  /** Takes up to `max` entries to deliver now; one round at a time. */
  take(now: number, max: number): TimerRound {
    const entries = this.late.splice(0, max);
    const lateCount = entries.length;
    while (entries.length < max && this.heap.size > 0 && this.heap.peekDue() <= now) {
      entries.push(this.heap.pop()!);
    }
    this.inflight = { entries, lateCount, cutoff: now };
    return this.inflight;
  }

  /**
   * Ends the round: entries not in `retry` are done; retried ones go back where they came from,
   * and so do the round's delete entries (their cancels must outlive the retried targets).
   */
  finish(round: TimerRound, retry: ReadonlySet<TimerEntry>): void {
    round.entries.forEach((e, i) => {
      if (e.size === DELETE_MARK && retry.size > 0) this.heap.push(e);
      else if (e.size === DELETE_MARK) this.expire(e);
      else if (!retry.has(e)) this.close(e);
      else if (i < round.lateCount) this.late.push(e);
      else this.heap.push(e);
    });
    this.inflight = undefined;
    this.firedUpTo = Math.max(this.firedUpTo, Math.min(round.cutoff, this.heap.peekDue() - 1));
    this.heap.shrink();
  }

  private close(e: TimerEntry): void {
    this.open.close(e.queueOffset);
    this.delivered++;
  }

  private expire(e: TimerEntry): void {
    const key = this.deleteKeys.get(e.queueOffset);
    this.deleteKeys.delete(e.queueOffset);
    if (key !== undefined && (this.cancels.get(key) ?? 0) <= e.due) this.cancels.delete(key);
    this.open.close(e.queueOffset);
  }

  /** What progress to save now: late entries, delivered or not, hold the read offset back. */
  snapshot(): TimerProgressValues {
    let enqueueOffset = this.readOffset;
    for (const e of this.late) enqueueOffset = Math.min(enqueueOffset, e.queueOffset);
    const r = this.inflight;
    for (let i = 0; r && i < r.lateCount; i++)
      enqueueOffset = Math.min(enqueueOffset, r.entries[i]!.queueOffset);
    return { enqueueOffset, firedUpTo: this.firedUpTo, lowWater: this.open.lowWater(this.readOffset) };
  }
}
