/**
 * Recently read CommitLog blocks, shared by every batched read (record-reader.ts). The records of a
 * topic's queues interleave in the CommitLog, so a POP or pull of 32 records of one queue reads a
 * span holding the records of every other queue too (eight queues: eight times the bytes it
 * keeps), and the next read of another queue reads that same span again. With the span's blocks
 * kept, each byte is read from the file about once, whichever queue asks first.
 *
 * Only blocks wholly written and inside one segment are kept: written CommitLog bytes never
 * change while the store runs (a cut happens only in recovery, before reads; retention deletes
 * whole segments, which readers refuse by minOffset before they look here). A drop of the written
 * offset (a recovery that cuts the tail) clears the cache. Bounded: at most SPAN_CACHE_BLOCKS_MAX
 * blocks of SPAN_CACHE_BLOCK_BYTES (32 MiB), least recently used dropped first, and the buffers of
 * dropped blocks (at most SPARE_MAX, 2 MiB) are read into again: a fresh buffer costs its page
 * faults, more than the read.
 */
import { uninitialized } from "./read-buffers.ts";

/**
 * Large enough that a read costs few calls: a thread-pool read costs some 30 µs a call whatever
 * its size, more than copying its 256 KiB. A POP of 32 records of 1 KiB from one of eight
 * queues spans about 300 KiB, and the reads of every queue move past a block in about seven POPs.
 */
export const SPAN_CACHE_BLOCK_BYTES = 256 * 1024;
/**
 * POPs take a random queue each (spec: Java's randomQ), so the queues of a drained topic drift apart
 * and the blocks must cover the drift: eight queues drained by one consumer wander some 10 MiB
 * apart within 100k messages. 8 MiB kept re-read 2.3 KiB per 1 KiB message in a POP-like read
 * test, 16 MiB 1.3 KiB (9 KiB without the cache). In the gateway's WS push benchmark (one
 * subscriber draining 8 queues from the start, three rounds) the server read 2.0 to 3.7 KiB per
 * 1 KiB message with 16 MiB and 1.3 to 1.7 KiB with 32 MiB, and those reads were the largest part
 * of its POP path's CPU.
 */
export const SPAN_CACHE_BLOCKS_MAX = 128;
/** Buffers of dropped blocks kept for the next reads. */
const SPARE_MAX = 8;

export class SpanCache {
  /** Block number (offset / block size) → its bytes; insertion order is recency. */
  private readonly blocks = new Map<number, Uint8Array>();
  private readonly spares: Uint8Array[] = [];
  /** The highest written offset seen: a lower one means the log was cut, and blocks may be stale. */
  private writtenSeen = 0;

  constructor(
    readonly blockBytes = SPAN_CACHE_BLOCK_BYTES,
    private readonly blocksMax = SPAN_CACHE_BLOCKS_MAX,
  ) {}

  /** Call before each use with the log's written offset. */
  observeWritten(writtenOffset: number): void {
    if (writtenOffset < this.writtenSeen) this.blocks.clear();
    this.writtenSeen = writtenOffset;
  }

  /**
   * A block's bytes. Use them before the next await: once the block is dropped its buffer is
   * read into again.
   */
  get(block: number): Uint8Array | undefined {
    const b = this.blocks.get(block);
    if (b !== undefined) {
      this.blocks.delete(block);
      this.blocks.set(block, b);
    }
    return b;
  }

  has(block: number): boolean {
    return this.blocks.has(block);
  }

  /** A buffer of one block to read into (a dropped block's, or a new one); give it to `put`. */
  spare(): Uint8Array {
    return this.spares.pop() ?? uninitialized(this.blockBytes);
  }

  put(block: number, bytes: Uint8Array): void {
    // A block two reads fetched at once is replaced, its other copy left to the GC.
    this.blocks.delete(block);
    this.blocks.set(block, bytes);
    if (this.blocks.size > this.blocksMax) {
      const oldest = this.blocks.keys().next().value!;
      const dropped = this.blocks.get(oldest)!;
      this.blocks.delete(oldest);
      if (this.spares.length < SPARE_MAX) this.spares.push(dropped);
    }
  }

  /** Whether a run of `blocks` blocks can be held at once (a longer one would evict itself). */
  fits(blocks: number): boolean {
    return blocks <= this.blocksMax / 2;
  }

  /** Blocks held (at most blocksMax). */
  get size(): number {
    return this.blocks.size;
  }
}
