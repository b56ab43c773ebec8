/**
 * Lease deadlines in 100 ms buckets (a hashed timing wheel without a fixed size): adding and
 * taking are O(1) per item, and an item is never taken before its deadline, at most one bucket
 * after it. Used by the POP sweep so that a million leases cost nothing between expiries.
 */

export const DEADLINE_BUCKET_MS = 100;

export class DeadlineWheel<T> {
  private readonly buckets = new Map<number, T[]>();
  /** The next bucket `takeDue` examines; NaN before the first take. */
  private cursor = Number.NaN;

  get bucketCount(): number {
    return this.buckets.size;
  }

  /** Files `item` to be taken once `now >= at`. */
  add(item: T, at: number): void {
    let b = Math.ceil(at / DEADLINE_BUCKET_MS);
    if (b < this.cursor) b = this.cursor;
    let list = this.buckets.get(b);
    if (!list) {
      list = [];
      this.buckets.set(b, list);
    }
    list.push(item);
  }

  /** Removes and hands `each` every item whose time has come, earliest bucket first. */
  takeDue(now: number, each: (item: T) => void): void {
    const last = Math.floor(now / DEADLINE_BUCKET_MS);
    if (Number.isNaN(this.cursor) || last - this.cursor > this.buckets.size) {
      // A long gap: visit the buckets there are rather than every slot of the gap.
      const due = [...this.buckets.keys()].filter((b) => b <= last).sort((a, b) => a - b);
      for (const b of due) this.drain(b, each);
    } else {
      for (let b = this.cursor; b <= last; b++) this.drain(b, each);
    }
    this.cursor = last + 1;
  }

  clear(): void {
    this.buckets.clear();
  }

  private drain(b: number, each: (item: T) => void): void {
    const list = this.buckets.get(b);
    if (!list) return;
    this.buckets.delete(b);
    for (const item of list) each(item);
  }
}
