/**
 * ProcessQueue: the messages pulled from one queue and not yet consumed, in offset order, with
 * the flow-control bounds the pull loop waits on and the offset that is safe to commit.
 */
import type { MessageExt } from "./message.ts";

export interface FlowLimits {
  /** Java's pullThresholdForQueue. */
  messagesMax: number;
  /** Java's pullThresholdSizeForQueue, in bytes. */
  bytesMax: number;
}

export const DEFAULT_FLOW_LIMITS: FlowLimits = { messagesMax: 1000, bytesMax: 100 * 1024 * 1024 };

/**
 * The messages of one pull, in offset order, with which of them were consumed. Runs replace a
 * per-message offset map: a drain puts and removes every message once, and two hash-map
 * operations per message were a tenth of the consumer's CPU.
 */
interface Run {
  readonly msgs: readonly MessageExt[];
  readonly done: Uint8Array;
  /** Messages not consumed yet. */
  left: number;
  /** Index of the first message not consumed yet. */
  cursor: number;
}

/** Whether the offsets strictly increase, all above `floor`: what a pull normally returns. */
function increasingAbove(msgs: readonly MessageExt[], floor: number): boolean {
  let last = floor;
  for (const m of msgs) {
    if (m.queueOffset <= last) return false;
    last = m.queueOffset;
  }
  return true;
}

export class ProcessQueue {
  /** Cached runs in offset order; the front one holds the lowest unconsumed offset. */
  private runs: Run[] = [];
  private cached = 0;
  private bytes = 0;
  private highest = -1;
  /** The run the last removal hit: a consume batch usually comes from one run. */
  private lastRun = 0;
  private roomWaiters: (() => void)[] = [];
  dropped = false;
  /** Bumped by seek: results of pulls issued before it are discarded. */
  generation = 0;

  get count(): number {
    return this.cached;
  }

  get cachedBytes(): number {
    return this.bytes;
  }

  /**
   * Caches the messages of a pull. Pulls come in offset order, so a message at or below the highest
   * offset cached since the last clear is one already taken (a duplicate pull) and is skipped.
   */
  put(msgs: readonly MessageExt[]): void {
    let kept = msgs;
    if (!increasingAbove(msgs, this.highest)) {
      const byOffset = new Map<number, MessageExt>();
      for (const m of msgs) if (m.queueOffset > this.highest) byOffset.set(m.queueOffset, m);
      kept = [...byOffset.values()].sort((x, y) => x.queueOffset - y.queueOffset);
    }
    if (kept.length === 0) return;
    this.runs.push({ msgs: kept, done: new Uint8Array(kept.length), left: kept.length, cursor: 0 });
    this.cached += kept.length;
    for (const m of kept) this.bytes += m.body.length;
    this.highest = kept[kept.length - 1]!.queueOffset;
  }

  /**
   * Removes consumed messages; returns the offset to commit: the lowest offset still cached, or
   * one past the highest ever cached when nothing is left; -1 if nothing was ever cached.
   */
  remove(msgs: readonly MessageExt[]): number {
    for (const m of msgs) this.removeOne(m);
    const runs = this.runs;
    let drop = 0;
    while (drop < runs.length && runs[drop]!.left === 0) drop++;
    if (drop > 0) {
      runs.splice(0, drop);
      this.lastRun = 0;
    }
    this.wakeRoom();
    if (this.highest < 0) return -1;
    const front = runs[0];
    if (front === undefined) return this.highest + 1;
    while (front.done[front.cursor] === 1) front.cursor++;
    return front.msgs[front.cursor]!.queueOffset;
  }

  private removeOne(m: MessageExt): void {
    const offset = m.queueOffset;
    const runs = this.runs;
    let r = runs[this.lastRun];
    if (
      r === undefined ||
      offset < r.msgs[0]!.queueOffset ||
      offset > r.msgs[r.msgs.length - 1]!.queueOffset
    ) {
      r = undefined;
      for (let i = 0; i < runs.length; i++) {
        const c = runs[i]!;
        if (offset >= c.msgs[0]!.queueOffset && offset <= c.msgs[c.msgs.length - 1]!.queueOffset) {
          r = c;
          this.lastRun = i;
          break;
        }
      }
      if (r === undefined) return;
    }
    // Offsets in a run increase: binary search.
    let lo = 0;
    let hi = r.msgs.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const at = r.msgs[mid]!.queueOffset;
      if (at < offset) lo = mid + 1;
      else if (at > offset) hi = mid - 1;
      else {
        if (r.done[mid] === 0) {
          r.done[mid] = 1;
          r.left--;
          this.cached--;
          this.bytes -= r.msgs[mid]!.body.length;
        }
        return;
      }
    }
  }

  /** Lowest and highest offset still cached, or null when nothing is (running info). */
  cachedRange(): readonly [number, number] | null {
    const front = this.runs[0];
    if (front === undefined || this.cached === 0) return null;
    let i = front.cursor;
    while (front.done[i] === 1) i++;
    return [front.msgs[i]!.queueOffset, this.highest];
  }

  /** Forgets cached messages (seek). */
  clear(): void {
    this.runs = [];
    this.lastRun = 0;
    this.cached = 0;
    this.bytes = 0;
    this.highest = -1;
    this.wakeRoom();
  }

  drop(): void {
    this.dropped = true;
    this.wakeRoom();
  }

  /** Whether the queue is under both limits, with `messages` and `bytes` more counted in. */
  hasRoom(limits: FlowLimits, messages = 0, bytes = 0): boolean {
    return this.cached + messages < limits.messagesMax && this.bytes + bytes < limits.bytesMax;
  }

  /** Resolves once the queue is under both limits, or dropped. */
  waitForRoom(limits: FlowLimits): Promise<void> | undefined {
    if (this.dropped || this.hasRoom(limits)) return undefined;
    return new Promise((resolve) => {
      const check = () => {
        if (this.dropped || this.hasRoom(limits)) resolve();
        else this.roomWaiters.push(check);
      };
      this.roomWaiters.push(check);
    });
  }

  private wakeRoom(): void {
    const waiters = this.roomWaiters;
    this.roomWaiters = [];
    for (const w of waiters) w();
  }
}
