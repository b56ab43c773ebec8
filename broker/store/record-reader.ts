/**
 * Reading stored records back from the CommitLog for the file store: batched span reads for
 * pulls, lookup by physical offset, and key queries through the index. Every record is
 * validated right after it is read (style habit 15).
 */
import { checkRecord, decodeRecord, MessageConst, splitKeys } from "../../src/protocol/message/index.ts";
import type { CommitLog } from "./commitlog.ts";
import type { IndexService } from "./index-service.ts";
import type { QueryMessageResult } from "./message-store.ts";
import { ScratchBuffers, uninitialized } from "./read-buffers.ts";
import type { Segment } from "./segment.ts";
import { SpanCache } from "./span-cache.ts";

export class RecordReader {
  /** Span reads of which only some records are wanted (see readRecords). */
  private readonly scratch = new ScratchBuffers();
  /** Blocks of the runs with other records between, which reads of other queues ask for again. */
  readonly spans = new SpanCache();

  constructor(
    private readonly cl: CommitLog,
    private readonly index: IndexService | undefined,
    private readonly readSpanBytesMax: number,
  ) {}

  /**
   * Records at (phyOffset, size) pairs, as views into one buffer holding the batch back to back
   * (the POP and pull answers send them on without another copy). One read per run of nearby
   * records in one segment: a run without gaps is read straight into the batch; a run with other
   * records between (a queue's records interleave with other queues') is read in whole blocks kept
   * for the reads of the other queues (span-cache.ts), or, where it is not all written yet, into a
   * scratch buffer, and the wanted records copied out, since one bigger read costs less than one
   * read per record. A run that cannot be read whole (part still in memory, part written) is read
   * record by record.
   */
  async readRecords(spans: readonly (readonly [number, number])[]): Promise<(Uint8Array | undefined)[]> {
    let total = 0;
    for (const [, s] of spans) total += Math.max(s, 0);
    const batch = uninitialized(total);
    const out: (Uint8Array | undefined)[] = [];
    let i = 0;
    let at = 0;
    while (i < spans.length) {
      const [start, size0] = spans[i]!;
      const seg = this.cl.segments.find(start);
      let end = start + size0;
      let gaps = false;
      let j = i;
      while (j + 1 < spans.length && seg) {
        const [p, s] = spans[j + 1]!;
        if (p < end || p + s - start > this.readSpanBytesMax || p + s > seg.end) break;
        if (p > end) gaps = true;
        end = p + s;
        j++;
      }
      const runAt = at;
      let whole = false;
      if (j > i && !gaps) {
        whole = await this.cl.readInto(batch, at, start, end - start);
        if (whole) at += end - start;
      } else if (j > i && seg && (await this.copyFromBlocks(batch, at, spans, i, j, seg))) {
        whole = true;
      } else if (j > i) {
        const scratch = this.scratch.take(end - start);
        try {
          whole = await this.cl.readInto(scratch, 0, start, end - start);
          for (let k = i; whole && k <= j; k++) {
            const [p, s] = spans[k]!;
            batch.set(scratch.subarray(p - start, p - start + s), at);
            at += s;
          }
        } finally {
          this.scratch.release(scratch);
        }
      }
      at = runAt;
      for (let k = i; k <= j; k++) {
        const [p, s] = spans[k]!;
        const ok = s > 0 && (whole || (await this.cl.readInto(batch, at, p, s)));
        const rec = ok ? batch.subarray(at, at + s) : undefined;
        if (s > 0) at += s;
        out.push(rec && isRecordAt(rec, p, s) ? rec : undefined);
      }
      i = j + 1;
    }
    return out;
  }

  /**
   * Copies the records spans[i..j] (one run inside `seg`) into `batch` at `at` from cached blocks,
   * reading the missing ones first. False when the run's blocks are not all written and inside
   * `seg`, or a read fails (the caller then reads the run itself).
   */
  private async copyFromBlocks(
    batch: Uint8Array,
    at: number,
    spans: readonly (readonly [number, number])[],
    i: number,
    j: number,
    seg: Segment,
  ): Promise<boolean> {
    const cache = this.spans;
    const size = cache.blockBytes;
    const start = spans[i]![0];
    const end = spans[j]![0] + spans[j]![1];
    const first = Math.floor(start / size);
    const last = Math.floor((end - 1) / size);
    cache.observeWritten(this.cl.writtenOffset);
    if (
      !cache.fits(last - first + 1) ||
      start < this.cl.minOffset ||
      first * size < seg.start ||
      (last + 1) * size > Math.min(seg.end, this.cl.writtenOffset)
    )
      return false;
    for (let b = first; b <= last; b++) {
      if (cache.has(b)) continue;
      const block = cache.spare();
      if (!(await this.cl.readInto(block, 0, b * size, size))) return false;
      cache.put(b, block);
    }
    // No await from here on: a block taken from the cache cannot be evicted and its buffer reused
    // for another read while it is copied from.
    const blocks: Uint8Array[] = [];
    for (let b = first; b <= last; b++) {
      const block = cache.get(b);
      // Evicted by other reads while this one awaited its own (more blocks read than are kept).
      if (block === undefined) return false;
      blocks.push(block);
    }
    let to = at;
    for (let k = i; k <= j; k++) {
      const [p, s] = spans[k]!;
      // A record may straddle two blocks: copied in pieces.
      for (let from = p; from < p + s; ) {
        const b = Math.floor(from / size);
        const block = blocks[b - first]!;
        const off = from - b * size;
        const n = Math.min(size - off, p + s - from);
        batch.set(block.subarray(off, off + n), to);
        from += n;
        to += n;
      }
    }
    return true;
  }

  async lookMessageByOffset(phyOffset: number): Promise<Uint8Array | undefined> {
    const head = await this.cl.read(phyOffset, 8);
    if (!head) return undefined;
    const size = new DataView(head.buffer, head.byteOffset).getInt32(0);
    if (size <= 8) return undefined;
    const [rec] = await this.readRecords([[phyOffset, size]]);
    return rec;
  }

  /** Index hits re-read and checked: hash collisions and entries left from a cut tail are dropped. */
  async queryMessage(
    topic: string,
    key: string,
    maxNum: number,
    begin: number,
    end: number,
  ): Promise<QueryMessageResult> {
    if (!this.index) return { messages: [], indexLastUpdateTimestamp: 0, indexLastUpdatePhyoffset: 0 };
    const q = await this.index.query(topic, key, maxNum, begin, end);
    const messages: Uint8Array[] = [];
    for (const phy of new Set(q.phyOffsets)) {
      const rec = await this.lookMessageByOffset(phy);
      if (!rec) continue;
      const d = decodeRecord(rec);
      const keys = splitKeys(d.properties.get(MessageConst.KEYS));
      if (d.topic === topic && (d.properties.get(MessageConst.UNIQ_KEY) === key || keys.includes(key)))
        messages.push(rec);
    }
    return {
      messages,
      indexLastUpdateTimestamp: q.indexLastUpdateTimestamp,
      indexLastUpdatePhyoffset: q.indexLastUpdatePhyoffset,
    };
  }
}

function isRecordAt(rec: Uint8Array, phy: number, size: number): boolean {
  const r = checkRecord(rec, 0, rec.length, { checkCrc: false, physicalOffset: phy });
  return r.kind === "message" && r.size === size;
}
