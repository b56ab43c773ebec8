/**
 * The CommitLog (spec §5): contiguous fixed-size segments holding stored records back to back,
 * each full segment closed by a BLANK record (§5.2). Appends are synchronous and serial (one
 * JS turn per put); record bytes go into in-memory chunks that the flusher writes out, and
 * reads of bytes not yet written are served from those chunks.
 */
import {
  BLANK_RECORD_BYTES,
  type PreparedRecord,
  writeBlank,
  writeRecord,
} from "../../src/protocol/message/index.ts";
import { uninitialized } from "./read-buffers.ts";
import type { Segment } from "./segment.ts";
import { SegmentList } from "./segment-list.ts";

/** A run of appended bytes, all inside one segment, starting at physical offset `start`. */
export interface Chunk {
  readonly start: number;
  readonly seg: Segment;
  readonly buf: Uint8Array;
  readonly dv: DataView;
  /** Bytes appended so far. */
  used: number;
  /** Bytes handed to the OS so far. */
  written: number;
}

/** Default chunk capacity; a larger record gets a chunk of its own size. */
const CHUNK_BYTES = 1024 * 1024;

/**
 * Released chunk buffers kept for reuse while appends are busy: under load the writer lags the
 * appenders by tens of MiB, and every chunk allocated afresh costs its page faults and zeroing
 * on the append path. An idle store keeps only `SPARE_BUFFERS_IDLE` (see `trimSpareBuffers`).
 */
const SPARE_BUFFERS_MAX = 64;
const SPARE_BUFFERS_IDLE = 4;

export class CommitLog {
  readonly segments: SegmentList;
  /** Next append position: one past the last appended byte. */
  maxOffset = 0;
  /** One past the last byte handed to the OS (written, not necessarily durable). */
  writtenOffset = 0;
  /** One past the last byte dispatched to consume queues and index (set by the dispatcher). */
  dispatchedOffset = 0;
  /** Store time of the last appended record; store times never go backwards. */
  lastStoreTimestamp = 0;
  readonly chunks: Chunk[] = [];
  /**
   * Buffers of released chunks, reused by new ones: a fresh 1 MiB array costs its page faults and
   * zeroing again on every chunk. Nothing outside holds a view of a chunk (reads copy).
   */
  private readonly spareBuffers: Uint8Array[] = [];
  /** Chunks started so far; the store lets the event loop turn when this moves (see the flusher). */
  chunksStarted = 0;
  private chunksAtTrim = 0;

  constructor(
    dir: string,
    readonly segmentSize: number,
  ) {
    this.segments = new SegmentList(dir, segmentSize);
  }

  get minOffset(): number {
    return this.segments.minOffset(this.maxOffset);
  }

  /** Unwritten bytes held in memory. */
  get bufferedBytes(): number {
    return this.maxOffset - this.writtenOffset;
  }

  /** After recovery: the valid data ends at `end`. */
  setEnd(end: number): void {
    this.maxOffset = end;
    this.writtenOffset = end;
    this.dispatchedOffset = end;
  }

  /** A store timestamp for the next append: the wall clock, but never before the previous one. */
  nextStoreTimestamp(now: number): number {
    this.lastStoreTimestamp = Math.max(now, this.lastStoreTimestamp);
    return this.lastStoreTimestamp;
  }

  /**
   * Appends `records` contiguously in one segment, closing the current one with a BLANK record
   * if they do not fit with 8 bytes to spare (spec §5.2). Returns the first record's physical
   * offset, or undefined if the records could never fit a segment. Record i gets queue offset
   * `queueOffset + i` when `dispatched`, else 0 (spec §4.1 QUEUEOFFSET of prepared transactions).
   * Runs on the serial append path only.
   */
  append(
    records: readonly PreparedRecord[],
    queueOffset: number,
    dispatched: boolean,
    storeTimestamp: number,
  ): number | undefined {
    let total = 0;
    for (const r of records) total += r.totalSize;
    if (total + BLANK_RECORD_BYTES > this.segmentSize) return undefined;
    let seg = this.segments.ensure(this.maxOffset);
    const room = seg.end - this.maxOffset;
    if (total + BLANK_RECORD_BYTES > room) {
      const c = this.chunkFor(seg, BLANK_RECORD_BYTES);
      writeBlank(c.dv, c.used, room);
      c.used += BLANK_RECORD_BYTES;
      this.maxOffset = seg.end;
      seg = this.segments.ensure(this.maxOffset);
    }
    const first = this.maxOffset;
    const c = this.chunkFor(seg, total);
    for (let i = 0; i < records.length; i++) {
      const r = records[i]!;
      writeRecord(c.buf, c.dv, c.used, r, dispatched ? queueOffset + i : 0, this.maxOffset, storeTimestamp);
      c.used += r.totalSize;
      this.maxOffset += r.totalSize;
    }
    return first;
  }

  private chunkFor(seg: Segment, need: number): Chunk {
    const last = this.chunks.at(-1);
    if (
      last &&
      last.seg === seg &&
      last.start + last.used === this.maxOffset &&
      last.buf.length - last.used >= need
    ) {
      return last;
    }
    this.chunksStarted++;
    const spare = need <= CHUNK_BYTES ? this.spareBuffers.pop() : undefined;
    const buf = spare ?? new Uint8Array(Math.max(CHUNK_BYTES, need));
    const c: Chunk = { start: this.maxOffset, seg, buf, dv: new DataView(buf.buffer), used: 0, written: 0 };
    this.chunks.push(c);
    return c;
  }

  /** Drops chunks that are both written and dispatched. */
  releaseChunks(): void {
    const upTo = Math.min(this.writtenOffset, this.dispatchedOffset);
    while (this.chunks.length > 0) {
      const c = this.chunks[0]!;
      if (c.start + c.used > upTo || c.written < c.used || c === this.chunks.at(-1)) break;
      this.chunks.shift();
      if (c.buf.length === CHUNK_BYTES && this.spareBuffers.length < SPARE_BUFFERS_MAX)
        this.spareBuffers.push(c.buf);
    }
  }

  get spareBufferCount(): number {
    return this.spareBuffers.length;
  }

  /** Drops spare buffers beyond the idle few if no chunk was started since the previous call. */
  trimSpareBuffers(): void {
    if (this.chunksStarted === this.chunksAtTrim && this.spareBuffers.length > SPARE_BUFFERS_IDLE)
      this.spareBuffers.length = SPARE_BUFFERS_IDLE;
    this.chunksAtTrim = this.chunksStarted;
  }

  /** The buffered chunk holding [offset, offset+len), if any. */
  private chunkHolding(offset: number, len: number): Chunk | undefined {
    for (let i = this.chunks.length - 1; i >= 0; i--) {
      const c = this.chunks[i]!;
      if (offset >= c.start && offset + len <= c.start + c.used) return c;
      if (offset >= c.start + c.used) return undefined;
    }
    return undefined;
  }

  /**
   * Bytes [offset, offset+len), from memory or disk; undefined if the range is not entirely
   * inside one segment between min and max offset.
   */
  async read(offset: number, len: number): Promise<Uint8Array | undefined> {
    if (len <= 0) return undefined;
    const out = uninitialized(len);
    return (await this.readInto(out, 0, offset, len)) ? out : undefined;
  }

  /**
   * `read` into `target` from `at`, so a batch of records is gathered in one buffer: false (and
   * `target` partly written) if the range is not entirely inside one segment between min and max
   * offset, or not readable.
   */
  async readInto(target: Uint8Array, at: number, offset: number, len: number): Promise<boolean> {
    if (offset < this.minOffset || offset + len > this.maxOffset || len <= 0) return false;
    const c = this.chunkHolding(offset, len);
    if (c) {
      target.set(c.buf.subarray(offset - c.start, offset - c.start + len), at);
      return true;
    }
    const seg = this.segments.find(offset);
    if (!seg || offset + len > seg.end) return false;
    if (offset + len > this.writtenOffset) return false;
    try {
      await seg.readInto(target, at, offset - seg.start, len);
      return true;
    } catch {
      return false; // deleted by retention meanwhile
    }
  }

  async close(): Promise<void> {
    await this.segments.closeAll();
  }
}
