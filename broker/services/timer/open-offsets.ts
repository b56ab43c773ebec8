/**
 * Which queue offsets of the timer topic still hold a pending entry, counted per block of offsets
 * so that the lowest one (the recovery scan's start) is cheap to find and memory stays a few
 * counters per thousand pending timers.
 */

const BLOCK = 1024;

export class OpenOffsets {
  private readonly counts = new Map<number, number>();

  open(queueOffset: number): void {
    const b = Math.floor(queueOffset / BLOCK);
    this.counts.set(b, (this.counts.get(b) ?? 0) + 1);
  }

  close(queueOffset: number): void {
    const b = Math.floor(queueOffset / BLOCK);
    const n = (this.counts.get(b) ?? 0) - 1;
    if (n > 0) this.counts.set(b, n);
    else this.counts.delete(b);
  }

  /** A queue offset at or below every open one (the start of its block); `whenNone` if none is open. */
  lowWater(whenNone: number): number {
    let low = Number.POSITIVE_INFINITY;
    for (const b of this.counts.keys()) if (b < low) low = b;
    return low === Number.POSITIVE_INFINITY ? whenNone : Math.min(low * BLOCK, whenNone);
  }
}
