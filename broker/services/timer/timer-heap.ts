/**
 * The timer service's in-memory index: a binary min-heap of pending entries ordered by due time,
 * then by queue offset (arrival order), in parallel typed arrays. An entry is 28 bytes (due,
 * queue offset, CommitLog offset, record size); bodies stay on disk, so a million pending timers
 * cost about 28 MB, 56 MB at most while the arrays double.
 */

export interface TimerEntry {
  /** When it is delivered, epoch ms. */
  due: number;
  /** Its unit in the timer topic's queue 0. */
  queueOffset: number;
  /** Where its record is. */
  phyOffset: number;
  /** Record size; DELETE_MARK for a delete entry (its due time is when it expires). */
  size: number;
}

/** `size` of a delete entry: nothing to deliver, only a cancel to forget at `due`. */
export const DELETE_MARK = -1;

const INITIAL_CAPACITY = 1024;

/** Order of entries: earlier due first; among equals, the earlier arrival. */
function less(due: number, qo: number, otherDue: number, otherQo: number): boolean {
  return due < otherDue || (due === otherDue && qo < otherQo);
}

export class TimerHeap {
  private due = new Float64Array(INITIAL_CAPACITY);
  private qo = new Float64Array(INITIAL_CAPACITY);
  private phy = new Float64Array(INITIAL_CAPACITY);
  private sz = new Int32Array(INITIAL_CAPACITY);
  private n = 0;

  get size(): number {
    return this.n;
  }

  /** Due time of the next entry, +Infinity when empty. */
  peekDue(): number {
    return this.n > 0 ? this.due[0]! : Number.POSITIVE_INFINITY;
  }

  push(e: TimerEntry): void {
    if (this.n === this.due.length) this.grow();
    let i = this.n++;
    // Sift up: move parents down until the slot fits.
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!less(e.due, e.queueOffset, this.due[p]!, this.qo[p]!)) break;
      this.move(p, i);
      i = p;
    }
    this.set(i, e);
  }

  /** Removes and returns the first entry; undefined when empty. */
  pop(): TimerEntry | undefined {
    if (this.n === 0) return undefined;
    const top: TimerEntry = {
      due: this.due[0]!,
      queueOffset: this.qo[0]!,
      phyOffset: this.phy[0]!,
      size: this.sz[0]!,
    };
    const last = --this.n;
    if (last > 0) {
      const d = this.due[last]!;
      const q = this.qo[last]!;
      const ph = this.phy[last]!;
      const s = this.sz[last]!;
      let i = 0;
      // Sift down: move the smaller child up until the last entry fits.
      for (;;) {
        const l = 2 * i + 1;
        if (l >= last) break;
        const r = l + 1;
        const c = r < last && less(this.due[r]!, this.qo[r]!, this.due[l]!, this.qo[l]!) ? r : l;
        if (!less(this.due[c]!, this.qo[c]!, d, q)) break;
        this.move(c, i);
        i = c;
      }
      this.due[i] = d;
      this.qo[i] = q;
      this.phy[i] = ph;
      this.sz[i] = s;
    }
    return top;
  }

  /** Releases the arrays' spare room once the heap is small again (after a burst). */
  shrink(): void {
    const cap = Math.max(INITIAL_CAPACITY, this.n * 2);
    if (this.due.length > cap * 2) this.resize(cap);
  }

  private move(from: number, to: number): void {
    this.due[to] = this.due[from]!;
    this.qo[to] = this.qo[from]!;
    this.phy[to] = this.phy[from]!;
    this.sz[to] = this.sz[from]!;
  }

  private set(i: number, e: TimerEntry): void {
    this.due[i] = e.due;
    this.qo[i] = e.queueOffset;
    this.phy[i] = e.phyOffset;
    this.sz[i] = e.size;
  }

  private grow(): void {
    this.resize(this.due.length * 2);
  }

  private resize(cap: number): void {
    const copy = <T extends Float64Array | Int32Array>(a: T, make: (n: number) => T): T => {
      const b = make(cap);
      b.set(a.subarray(0, this.n));
      return b;
    };
    this.due = copy(this.due, (k) => new Float64Array(k));
    this.qo = copy(this.qo, (k) => new Float64Array(k));
    this.phy = copy(this.phy, (k) => new Float64Array(k));
    this.sz = copy(this.sz, (k) => new Int32Array(k));
  }
}
