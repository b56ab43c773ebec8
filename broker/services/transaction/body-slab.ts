/**
 * One buffer the half cache copies bodies into, used as a ring: a copy per half message without an
 * allocation per half message. A 1 KiB typed array is over JSC's inline size (1000 bytes), so each
 * was a malloc'd store of its own, freed by the collector; the slab makes a body a view instead.
 *
 * Bodies are placed in order at a "virtual" position that only grows (its remainder by the slab's
 * size is the place in the buffer), so the bodies still in the slab are those starting in the
 * last `size` positions before the newest body's end, and the oldest is the first overwritten.
 */
export class BodySlab {
  private bytes: Uint8Array | undefined;
  /** Virtual position of the next body. */
  private next = 0;

  constructor(private readonly size: number) {}

  /**
   * Where a body of `length` bytes would start: at the next position, or at the start of the
   * buffer when it would not fit before the end. Nothing is reserved until `write`.
   */
  startFor(length: number): number {
    const at = this.next % this.size;
    return at + length > this.size ? this.next + this.size - at : this.next;
  }

  /** True when `length` bytes written at `start` overwrite the body written at `heldStart`. */
  overwrites(start: number, length: number, heldStart: number): boolean {
    return heldStart < start + length - this.size;
  }

  /** Copies `body` to `start` (from `startFor`) and returns the copy, a view of the slab. */
  write(start: number, body: Uint8Array): Uint8Array {
    this.bytes ??= new Uint8Array(this.size);
    const at = start % this.size;
    this.bytes.set(body, at);
    this.next = start + body.length;
    return this.bytes.subarray(at, at + body.length);
  }
}
