/**
 * Buffers for store reads: unpooled and not zero-filled (every byte is overwritten by the read),
 * and a few reused scratch buffers for reads whose bytes are copied out at once.
 */

/**
 * A buffer of `len` bytes that is not zero-filled, for reads that overwrite every byte: zeroing a
 * fresh array costs as much as a page-cache read of the same size (more beyond a few pages, where
 * the allocation faults its pages in). Unpooled, so a view of it never pins a shared pool. A plain
 * Uint8Array, not a Buffer: callers may `slice` it and expect a copy.
 */
export function uninitialized(len: number): Uint8Array {
  const b = Buffer.allocUnsafeSlow(len);
  return new Uint8Array(b.buffer, b.byteOffset, len);
}

/** Largest scratch buffer kept for reuse; a larger read gets one of its own. */
export const SCRATCH_BYTES_MAX = 1024 * 1024;
/** Scratch buffers kept between reads: at most SCRATCH_KEPT_MAX × SCRATCH_BYTES_MAX bytes held idle. */
export const SCRATCH_KEPT_MAX = 4;

/**
 * Scratch buffers for reads that are copied out before the buffer is given back (a span read of
 * which only some records are wanted). Reads run concurrently, so each takes its own buffer; at
 * most SCRATCH_KEPT_MAX are kept when given back, each at most SCRATCH_BYTES_MAX.
 */
export class ScratchBuffers {
  private readonly kept: Uint8Array[] = [];

  /** A buffer of at least `len` bytes, contents undefined; give it back with `release`. */
  take(len: number): Uint8Array {
    if (len <= SCRATCH_BYTES_MAX && this.kept.length > 0) return this.kept.pop()!;
    // Every kept buffer has the full size, so any one of them serves any read up to it.
    return uninitialized(Math.max(len, SCRATCH_BYTES_MAX));
  }

  release(b: Uint8Array): void {
    if (b.length === SCRATCH_BYTES_MAX && this.kept.length < SCRATCH_KEPT_MAX) this.kept.push(b);
  }

  /** Bytes held between reads (the bound is SCRATCH_KEPT_MAX × SCRATCH_BYTES_MAX). */
  get keptBytes(): number {
    return this.kept.reduce((n, b) => n + b.length, 0);
  }
}

/**
 * The records of an answer as one body: a view, without a copy, when they lie back to back in one
 * buffer (a batch read gathers a queue's records so: see RecordReader.readRecords), else a copy.
 */
export function joinRecords(records: readonly Uint8Array[]): Uint8Array {
  if (records.length === 1) return records[0]!;
  const first = records[0];
  if (!first) return new Uint8Array(0);
  let end = first.byteOffset + first.byteLength;
  for (let i = 1; i < records.length; i++) {
    const r = records[i]!;
    if (r.buffer !== first.buffer || r.byteOffset !== end) return Buffer.concat(records);
    end += r.byteLength;
  }
  return new Uint8Array(first.buffer, first.byteOffset, end - first.byteOffset);
}
