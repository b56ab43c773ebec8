/**
 * One ConsumeQueue (spec §6.1): the logical queue `<topic>/<queueId>` as 20-byte units in
 * fixed-size files named by byte offset. Unit N (queue offset N) sits at byte N·20.
 *
 *  off  size  field
 *    0  i64   CommitLog physical offset
 *    8  i32   record TOTALSIZE
 *   12  i64   tags code (delivery time in SCHEDULE_TOPIC_XXXX)
 *
 * Units are appended by dispatch only, kept in memory until the periodic flush writes them.
 */
import { readI64, writeI64 } from "../../src/protocol/message/index.ts";
import { SegmentList } from "./segment-list.ts";
import { UNITS_CACHE_WINDOW_READ_MIN, UNITS_CACHE_WINDOW_UNITS, type UnitsCache } from "./units-cache.ts";

export const CQ_UNIT = { phyOffset: [0, 8], size: [8, 4], tagsCode: [12, 8] } as const;
export const CQ_UNIT_BYTES = 20;
/** Filler unit for a gap before a queue's first real unit (spec §6.1): (0, Integer.MAX_VALUE, 0). */
export const FILLER_SIZE = 0x7fffffff;

export interface CqUnit {
  readonly phyOffset: number;
  readonly size: number;
  readonly tagsCode: number;
}

export function readUnit(dv: DataView, pos: number): CqUnit {
  return {
    phyOffset: readI64(dv, pos + CQ_UNIT.phyOffset[0]),
    size: dv.getInt32(pos + CQ_UNIT.size[0]),
    tagsCode: readI64(dv, pos + CQ_UNIT.tagsCode[0]),
  };
}

/** A unit counts if `offset ≥ 0 && size > 0` (spec §5.5 step 2); fillers count but hold nothing. */
function isValid(u: CqUnit): boolean {
  return u.phyOffset >= 0 && u.size > 0;
}

function isFiller(u: CqUnit): boolean {
  return u.size === FILLER_SIZE && u.phyOffset === 0;
}

export class ConsumeQueue {
  readonly segments: SegmentList;
  readonly unitsPerFile: number;
  /** Next queue offset to be written (= number of units, spec §6.1 maxOffset). */
  maxOffset = 0;
  /** First queue offset whose message still exists. */
  minOffset = 0;
  /** Physical offset of the last real unit, -1 if none. */
  maxPhyOffset = -1;
  /** Units before this offset are in files; the rest are in `pending`. */
  private writtenUnits = 0;
  private pending = new Uint8Array(64 * CQ_UNIT_BYTES);
  private pendingDv = new DataView(this.pending.buffer);
  /** Moves on every cut, so a read that started before one does not fill the cache after it. */
  private cuts = 0;

  constructor(
    readonly topic: string,
    readonly queueId: number,
    dir: string,
    fileSize: number,
    /** Units read lately (shared by the store's queues); none: every read goes to the file. */
    private readonly cache?: UnitsCache,
  ) {
    this.unitsPerFile = Math.floor(fileSize / CQ_UNIT_BYTES);
    this.segments = new SegmentList(dir, this.unitsPerFile * CQ_UNIT_BYTES);
  }

  get pendingUnits(): number {
    return this.maxOffset - this.writtenUnits;
  }

  /** Opens the files and finds the last valid unit of the newest one (spec §5.5 step 2). */
  async load(): Promise<void> {
    await this.segments.load();
    const first = this.segments.first;
    const last = this.segments.last;
    if (!first || !last) return;
    this.minOffset = first.start / CQ_UNIT_BYTES;
    const bytes = await last.read(0, last.size);
    const dv = new DataView(bytes.buffer);
    let n = 0;
    while (n < this.unitsPerFile && isValid(readUnit(dv, n * CQ_UNIT_BYTES))) n++;
    this.maxOffset = last.start / CQ_UNIT_BYTES + n;
    this.writtenUnits = this.maxOffset;
    for (let k = n - 1; k >= 0; k--) {
      const u = readUnit(dv, k * CQ_UNIT_BYTES);
      if (!isFiller(u)) {
        this.maxPhyOffset = u.phyOffset;
        break;
      }
    }
    if (n === 0 && this.segments.segments.length > 1) await this.recomputeMaxPhy();
    // Stale bytes after the end would confuse the next load; zero them now.
    if (n < this.unitsPerFile) await last.zeroFrom(n * CQ_UNIT_BYTES);
  }

  private async recomputeMaxPhy(): Promise<void> {
    this.maxPhyOffset = -1;
    for (let k = this.maxOffset - 1; k >= Math.max(this.minOffset, this.maxOffset - 2); k--) {
      const u = await this.unitAt(k);
      if (u && !isFiller(u)) {
        this.maxPhyOffset = u.phyOffset;
        return;
      }
    }
  }

  /**
   * Appends the unit for queue offset `queueOffset`. A unit already present is a duplicate
   * (recovery replays) and is ignored; a gap is filled with filler units.
   * Runs on the dispatch path only.
   */
  append(phyOffset: number, size: number, tagsCode: number, queueOffset: number): boolean {
    if (queueOffset < this.maxOffset) return false;
    if (this.maxOffset === 0 && this.segments.segments.length === 0 && queueOffset > 0) {
      // A queue rebuilt after retention starts where its file would start.
      const fileStartUnit = queueOffset - (queueOffset % this.unitsPerFile);
      this.maxOffset = fileStartUnit;
      this.writtenUnits = fileStartUnit;
      this.minOffset = queueOffset;
    }
    while (this.maxOffset < queueOffset) this.put(0, FILLER_SIZE, 0);
    this.put(phyOffset, size, tagsCode);
    this.maxPhyOffset = phyOffset;
    return true;
  }

  private put(phyOffset: number, size: number, tagsCode: number): void {
    const at = (this.maxOffset - this.writtenUnits) * CQ_UNIT_BYTES;
    if (at + CQ_UNIT_BYTES > this.pending.length) {
      const grown = new Uint8Array(this.pending.length * 2);
      grown.set(this.pending);
      this.pending = grown;
      this.pendingDv = new DataView(grown.buffer);
    }
    writeI64(this.pendingDv, at + CQ_UNIT.phyOffset[0], phyOffset);
    this.pendingDv.setInt32(at + CQ_UNIT.size[0], size);
    writeI64(this.pendingDv, at + CQ_UNIT.tagsCode[0], tagsCode);
    this.maxOffset++;
  }

  private flushing: Promise<void> | undefined;

  /** Writes pending units to their files (creating files as needed) and syncs them. */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
    this.flushing = this.flushOnce().finally(() => {
      this.flushing = undefined;
    });
    await this.flushing;
  }

  private async flushOnce(): Promise<void> {
    const upTo = this.maxOffset;
    const from = this.writtenUnits;
    if (upTo === from) return;
    const bytes = this.pending.slice(0, (upTo - from) * CQ_UNIT_BYTES);
    const touched = new Set<ReturnType<SegmentList["ensure"]>>();
    let unit = from;
    while (unit < upTo) {
      const seg = this.segments.ensure(unit * CQ_UNIT_BYTES);
      const segEndUnit = seg.end / CQ_UNIT_BYTES;
      const n = Math.min(upTo, segEndUnit) - unit;
      const off = (unit - from) * CQ_UNIT_BYTES;
      await seg.write([bytes.subarray(off, off + n * CQ_UNIT_BYTES)], unit * CQ_UNIT_BYTES - seg.start);
      touched.add(seg);
      unit += n;
    }
    for (const s of touched) await s.datasync();
    // Drop the written units from the front of the pending buffer (appends may have added more).
    const done = (upTo - from) * CQ_UNIT_BYTES;
    this.pending.copyWithin(0, done, (this.maxOffset - from) * CQ_UNIT_BYTES);
    this.writtenUnits = upTo;
  }

  /**
   * Up to `max` units from `offset`, never crossing a file boundary (as RocketMQ reads one
   * mapped file at a time); to be read, never written: units of the files may be a view of the
   * units cache's window (units-cache.ts), those not yet written a copy (the pending buffer moves).
   */
  async readUnits(offset: number, max: number): Promise<Uint8Array> {
    if (offset < this.minOffset || offset >= this.maxOffset || max <= 0) return new Uint8Array(0);
    const fileEnd = offset - (offset % this.unitsPerFile) + this.unitsPerFile;
    const end = Math.min(this.maxOffset, offset + max, fileEnd);
    if (offset >= this.writtenUnits) {
      const a = (offset - this.writtenUnits) * CQ_UNIT_BYTES;
      return this.pending.slice(a, a + (end - offset) * CQ_UNIT_BYTES);
    }
    const fileUpTo = Math.min(end, this.writtenUnits);
    const cached = this.cache?.get(this, offset, fileUpTo);
    if (cached) return cached;
    const seg = this.segments.find(offset * CQ_UNIT_BYTES);
    if (!seg) return new Uint8Array(0);
    // A scanning read reads ahead, within the file and the written units, for the reads after it.
    const ahead =
      this.cache && max >= UNITS_CACHE_WINDOW_READ_MIN
        ? Math.min(fileEnd, this.writtenUnits, fileUpTo + UNITS_CACHE_WINDOW_UNITS)
        : fileUpTo;
    const cuts = this.cuts;
    let bytes: Uint8Array;
    try {
      bytes = await seg.read(offset * CQ_UNIT_BYTES - seg.start, (ahead - offset) * CQ_UNIT_BYTES);
    } catch {
      return new Uint8Array(0);
    }
    if (ahead === fileUpTo) return bytes;
    if (cuts === this.cuts) this.cache?.put(this, offset, bytes);
    return bytes.subarray(0, (fileUpTo - offset) * CQ_UNIT_BYTES);
  }

  async unitAt(offset: number): Promise<CqUnit | undefined> {
    const b = await this.readUnits(offset, 1);
    return b.length === CQ_UNIT_BYTES ? readUnit(new DataView(b.buffer, b.byteOffset), 0) : undefined;
  }

  /** First queue offset in [lo, hi) whose unit satisfies `pred` (monotone), or hi. */
  private async searchFirst(lo: number, hi: number, pred: (u: CqUnit) => boolean): Promise<number> {
    while (lo < hi) {
      const mid = Math.floor((lo + hi) / 2);
      const u = await this.unitAt(mid);
      if (u && pred(u)) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }

  /** Removes units pointing at or beyond `phyEnd` (recovery: the CommitLog was cut there). */
  async truncateFromPhy(phyEnd: number): Promise<void> {
    if (this.maxPhyOffset < phyEnd) return;
    this.cuts++;
    this.cache?.drop(this);
    const cut = await this.searchFirst(
      this.minOffset,
      this.maxOffset,
      (u) => !isFiller(u) && u.phyOffset >= phyEnd,
    );
    if (cut >= this.writtenUnits) {
      this.maxOffset = cut;
    } else {
      this.maxOffset = cut;
      this.writtenUnits = cut;
      await this.segments.truncateFrom(cut * CQ_UNIT_BYTES);
    }
    if (this.minOffset > this.maxOffset) this.minOffset = this.maxOffset;
    await this.recomputeMaxPhy();
  }

  /**
   * Retention (spec §5.6): deletes whole files whose last unit points below `clMinOffset` (never
   * the newest) and moves minOffset to the first unit whose message still exists.
   */
  async deleteExpired(clMinOffset: number): Promise<number> {
    let deleted = 0;
    while (this.segments.segments.length > 1) {
      const first = this.segments.first!;
      const lastUnit = await this.unitAt(first.end / CQ_UNIT_BYTES - 1);
      if (!lastUnit || lastUnit.phyOffset >= clMinOffset) break;
      await this.segments.deleteFirst();
      deleted++;
    }
    const from = Math.max(this.minOffset, this.segments.minOffset(0) / CQ_UNIT_BYTES);
    this.minOffset = await this.searchFirst(
      from,
      this.maxOffset,
      (u) => !isFiller(u) && u.phyOffset >= clMinOffset,
    );
    return deleted;
  }

  async close(): Promise<void> {
    await this.segments.closeAll();
  }

  async destroy(): Promise<void> {
    this.cuts++;
    this.cache?.drop(this);
    await this.segments.destroyAll();
    this.maxOffset = this.minOffset = this.writtenUnits = 0;
    this.maxPhyOffset = -1;
  }
}
