/**
 * One buffer the half cache copies bodies into, used as a ring: a copy per half message without an
 * allocation per half message. A 1 KiB typed array is over JSC's inline size (1000 bytes), so each
 * was a malloc'd store of its own, freed by the collector; the slab makes a body a view instead.
 *
 * Places are handed out in order at a "virtual" position that only grows (its remainder by the
 * slab's size is the place in the buffer), so the bodies still in the slab are a window of the
 * last `size` positions and the oldest of them is the first to be overwritten.
 */

/** Bodies larger than this get a copy of their own: a few would empty the ring for the small ones. */
export const SLAB_BODY_BYTES_MAX = 64 * 1024;

/** A body's place in the slab: [start, start + length) in virtual positions. */
export interface SlabPlace {
  readonly start: number;
  readonly end: number;
}

export class BodySlab {
  private bytes: Uint8Array | undefined;
  /** Virtual position of the next body. */
  private next = 0;

  constructor(private readonly size: number) {}

  /**
   * Where `length` bytes would go: at the next position, or at the start of the buffer when they
   * would not fit before its end. Nothing is reserved until `write`.
   */
  placeFor(length: number): SlabPlace {
    let start = this.next;
    const at = start % this.size;
    if (at + length > this.size) start += this.size - at;
    return { start, end: start + length };
  }

  /**
   * True when writing at `place` overwrites bytes of the body at `held`: only the last `size`
   * positions before the new body's end stay in the slab.
   */
  overwrites(place: SlabPlace, held: SlabPlace): boolean {
    return held.start < place.end - this.size;
  }

  /** Copies `body` to `place` (from `placeFor`) and returns the copy, a view of the slab. */
  write(place: SlabPlace, body: Uint8Array): Uint8Array {
    this.bytes ??= new Uint8Array(this.size);
    const at = place.start % this.size;
    this.bytes.set(body, at);
    this.next = place.end;
    return this.bytes.subarray(at, at + body.length);
  }
}
