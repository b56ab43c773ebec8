/**
 * One IndexFile (spec §6.4): a hash table on disk mapping `topic#key` to CommitLog offsets.
 *
 *   header (40 bytes) | hashSlotNum × i32 slot | indexNum × 20-byte entry
 *
 * Slot value = number of the newest entry in that slot (0 = empty); entries chain backwards
 * through `prevIndex`. Entry #0 is never used, so indexCount starts at 1.
 * While a file is being filled its slot table is kept in memory, as the big-endian bytes the file
 * holds, and the dirty 4 KiB pages of it (in runs of adjacent pages), new entries and the header
 * are written on flush.
 */
import { constants } from "node:fs";
import { type FileHandle, open, unlink } from "node:fs/promises";
import { javaStringHashFrom, readI64, writeI64 } from "../../src/protocol/message/index.ts";
import { closedOnFailure, OpenAttempt } from "./open-attempt.ts";

export const INDEX_HEADER = {
  beginTimestamp: [0, 8],
  endTimestamp: [8, 8],
  beginPhyOffset: [16, 8],
  endPhyOffset: [24, 8],
  hashSlotCount: [32, 4],
  indexCount: [36, 4],
} as const;
export const INDEX_HEADER_BYTES = 40;
export const INDEX_SLOT_BYTES = 4;
export const INDEX_ENTRY = {
  keyHash: [0, 4],
  phyOffset: [4, 8],
  timeDiff: [12, 4],
  prevIndex: [16, 4],
} as const;
export const INDEX_ENTRY_BYTES = 20;

const SLOTS_PER_PAGE = 1024;
const INT_MAX = 0x7fffffff;

/** `abs(key.hashCode())`, with `abs(Integer.MIN_VALUE)` taken as 0 (spec §6.4). */
export function indexKeyHash(key: string): number {
  return indexKeyHashFrom(0, key);
}

/** `indexKeyHash(prefix + key)` given `seed = javaStringHash(prefix)`. */
export function indexKeyHashFrom(seed: number, key: string): number {
  const h = javaStringHashFrom(seed, key);
  return h === -0x80000000 ? 0 : Math.abs(h);
}

export function indexFileBytes(slotNum: number, indexNum: number): number {
  return INDEX_HEADER_BYTES + slotNum * INDEX_SLOT_BYTES + indexNum * INDEX_ENTRY_BYTES;
}

export class IndexFile {
  beginTimestamp = 0;
  endTimestamp = 0;
  beginPhyOffset = 0;
  endPhyOffset = 0;
  hashSlotCount = 0;
  indexCount = 1;
  private fh: FileHandle | undefined;
  /** Opening or creating the file; a failed attempt is made again by the next caller. */
  private readonly opening: OpenAttempt;
  /** In memory while the file is being filled; dropped once sealed and flushed. */
  private slots: Uint8Array | undefined;
  private slotsDv: DataView | undefined;
  /** One flag per 4 KiB page of the slot table; `dirtyCount` of them are set. */
  private dirty: Uint8Array;
  private dirtyCount = 0;
  private flushedCount = 1;
  /**
   * Where a flush copies the dirty slot pages it writes, kept between flushes of a busy file: a
   * fresh copy of a busy table is tens of MiB of new memory per flush, and its page faults and
   * zeroing fell on the put path. Dropped by a flush that finds no dirty page (an idle file).
   */
  private slotsCopy: Uint8Array | undefined;
  private pending = new Uint8Array(64 * INDEX_ENTRY_BYTES);
  private pendingDv = new DataView(this.pending.buffer);
  private flushing: Promise<void> | undefined;

  constructor(
    readonly path: string,
    readonly slotNum: number,
    readonly indexNum: number,
    create: boolean,
  ) {
    this.dirty = new Uint8Array(Math.ceil(slotNum / SLOTS_PER_PAGE));
    if (create) this.setSlots(new Uint8Array(slotNum * INDEX_SLOT_BYTES));
    this.opening = new OpenAttempt(() => (create ? this.createFile() : this.openFile()));
  }

  /** Settles when the file is open. */
  get ready(): Promise<void> {
    return this.opening.ready;
  }

  get isFull(): boolean {
    return this.indexCount >= this.indexNum;
  }

  private async createFile(): Promise<void> {
    const fh = await open(this.path, constants.O_RDWR | constants.O_CREAT, 0o644);
    await closedOnFailure(fh, async () => {
      await fh.truncate(indexFileBytes(this.slotNum, this.indexNum));
      await fh.sync();
    });
    this.fh = fh;
  }

  private async openFile(): Promise<void> {
    const fh = await open(this.path, "r+");
    const h = new Uint8Array(INDEX_HEADER_BYTES);
    await closedOnFailure(fh, () => fh.read(h, 0, h.length, 0));
    this.fh = fh;
    const dv = new DataView(h.buffer);
    this.beginTimestamp = readI64(dv, INDEX_HEADER.beginTimestamp[0]);
    this.endTimestamp = readI64(dv, INDEX_HEADER.endTimestamp[0]);
    this.beginPhyOffset = readI64(dv, INDEX_HEADER.beginPhyOffset[0]);
    this.endPhyOffset = readI64(dv, INDEX_HEADER.endPhyOffset[0]);
    this.hashSlotCount = dv.getInt32(INDEX_HEADER.hashSlotCount[0]);
    this.indexCount = Math.max(1, dv.getInt32(INDEX_HEADER.indexCount[0]));
    this.flushedCount = this.indexCount;
  }

  /** Loads the slot table so the file can take more entries. */
  async activate(): Promise<void> {
    await this.ready;
    const bytes = new Uint8Array(this.slotNum * INDEX_SLOT_BYTES);
    await this.fh!.read(bytes, 0, bytes.length, INDEX_HEADER_BYTES);
    this.setSlots(bytes);
  }

  /** Adds one key; false if the file is full. Runs on the dispatch path only (file active). */
  put(key: string, phyOffset: number, storeTimestamp: number): boolean {
    return this.putHash(indexKeyHash(key), phyOffset, storeTimestamp);
  }

  /** `put` for a key whose `indexKeyHash` is already known. */
  putHash(keyHash: number, phyOffset: number, storeTimestamp: number): boolean {
    const slots = this.slotsDv;
    if (this.isFull || !slots) return false;
    const slot = keyHash % this.slotNum;
    let prev = slots.getInt32(slot * INDEX_SLOT_BYTES);
    if (prev <= 0 || prev > this.indexCount) prev = 0;
    let timeDiff = 0;
    if (this.beginTimestamp > 0)
      timeDiff = Math.min(INT_MAX, Math.max(0, Math.floor((storeTimestamp - this.beginTimestamp) / 1000)));
    const at = (this.indexCount - this.flushedCount) * INDEX_ENTRY_BYTES;
    if (at + INDEX_ENTRY_BYTES > this.pending.length) {
      const grown = new Uint8Array(this.pending.length * 2);
      grown.set(this.pending);
      this.pending = grown;
      this.pendingDv = new DataView(grown.buffer);
    }
    const dv = this.pendingDv;
    dv.setInt32(at + INDEX_ENTRY.keyHash[0], keyHash);
    writeI64(dv, at + INDEX_ENTRY.phyOffset[0], phyOffset);
    dv.setInt32(at + INDEX_ENTRY.timeDiff[0], timeDiff);
    dv.setInt32(at + INDEX_ENTRY.prevIndex[0], prev);
    slots.setInt32(slot * INDEX_SLOT_BYTES, this.indexCount);
    const page = (slot / SLOTS_PER_PAGE) | 0;
    if (this.dirty[page] === 0) {
      this.dirty[page] = 1;
      this.dirtyCount++;
    }
    if (prev === 0) this.hashSlotCount++;
    if (this.indexCount <= 1) {
      this.beginPhyOffset = phyOffset;
      this.beginTimestamp = storeTimestamp;
    }
    this.indexCount++;
    this.endPhyOffset = phyOffset;
    this.endTimestamp = storeTimestamp;
    return true;
  }

  async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
    this.flushing = this.flushOnce().finally(() => {
      this.flushing = undefined;
    });
    await this.flushing;
  }

  private async flushOnce(): Promise<void> {
    await this.ready;
    const fh = this.fh!;
    const from = this.flushedCount;
    const upTo = this.indexCount;
    if (upTo === from && this.dirtyCount === 0) return;
    const entries = this.pending.slice(0, (upTo - from) * INDEX_ENTRY_BYTES);
    // Copied in the same turn as `upTo` is read: slots set while the writes run may name entries
    // that this flush does not write.
    const runs = this.takeDirtyRuns();
    const entriesPos = INDEX_HEADER_BYTES + this.slotNum * INDEX_SLOT_BYTES;
    await fh.write(entries, 0, entries.length, entriesPos + from * INDEX_ENTRY_BYTES);
    for (const [at, bytes] of runs) await fh.write(bytes, 0, bytes.length, INDEX_HEADER_BYTES + at);
    // The header goes last: a header never counts entries that are not on disk.
    const h = new Uint8Array(INDEX_HEADER_BYTES);
    const hv = new DataView(h.buffer);
    writeI64(hv, INDEX_HEADER.beginTimestamp[0], this.beginTimestamp);
    writeI64(hv, INDEX_HEADER.endTimestamp[0], this.endTimestamp);
    writeI64(hv, INDEX_HEADER.beginPhyOffset[0], this.beginPhyOffset);
    writeI64(hv, INDEX_HEADER.endPhyOffset[0], this.endPhyOffset);
    hv.setInt32(INDEX_HEADER.hashSlotCount[0], this.hashSlotCount);
    hv.setInt32(INDEX_HEADER.indexCount[0], upTo);
    await fh.write(h, 0, h.length, 0);
    await fh.datasync();
    this.pending.copyWithin(0, entries.length, (this.indexCount - from) * INDEX_ENTRY_BYTES);
    this.flushedCount = upTo;
  }

  /**
   * Copies of the dirty runs of adjacent slot-table pages, each with its byte position in the
   * table, and clears the marks: a busy file has most pages dirty, so this is a few large writes.
   */
  private takeDirtyRuns(): [number, Uint8Array][] {
    const runs: [number, Uint8Array][] = [];
    const slots = this.slots;
    if (!slots || this.dirtyCount === 0) {
      this.slotsCopy = undefined;
      return runs;
    }
    // Flushes run one at a time (see flush), so no write still reads the copy from the last one.
    this.slotsCopy ??= new Uint8Array(slots.length);
    const copy = this.slotsCopy;
    const pageBytes = SLOTS_PER_PAGE * INDEX_SLOT_BYTES;
    const d = this.dirty;
    for (let p = 0; p < d.length; p++) {
      if (d[p] === 0) continue;
      let q = p;
      while (q < d.length && d[q] === 1) d[q++] = 0;
      const from = p * pageBytes;
      const to = Math.min(q * pageBytes, slots.length);
      copy.set(slots.subarray(from, to), from);
      runs.push([from, copy.subarray(from, to)]);
      p = q;
    }
    this.dirtyCount = 0;
    return runs;
  }

  /** Flushes and frees the in-memory slot table; the file answers queries from disk after. */
  async seal(): Promise<void> {
    await this.flush();
    this.setSlots(undefined);
    this.slotsCopy = undefined;
  }

  private setSlots(bytes: Uint8Array | undefined): void {
    this.slots = bytes;
    this.slotsDv = bytes && new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  private async slotValue(slot: number): Promise<number> {
    if (this.slotsDv) return this.slotsDv.getInt32(slot * INDEX_SLOT_BYTES);
    const b = new Uint8Array(INDEX_SLOT_BYTES);
    await this.fh!.read(b, 0, b.length, INDEX_HEADER_BYTES + slot * INDEX_SLOT_BYTES);
    return new DataView(b.buffer).getInt32(0);
  }

  private async entry(n: number): Promise<DataView> {
    if (n >= this.flushedCount) {
      const at = (n - this.flushedCount) * INDEX_ENTRY_BYTES;
      return new DataView(this.pending.slice(at, at + INDEX_ENTRY_BYTES).buffer);
    }
    const b = new Uint8Array(INDEX_ENTRY_BYTES);
    await this.fh!.read(
      b,
      0,
      b.length,
      INDEX_HEADER_BYTES + this.slotNum * INDEX_SLOT_BYTES + n * INDEX_ENTRY_BYTES,
    );
    return new DataView(b.buffer);
  }

  /** Does [begin, end] overlap this file's time range? */
  overlaps(begin: number, end: number): boolean {
    return this.beginTimestamp <= end && this.endTimestamp >= begin;
  }

  /** Appends to `out` the offsets stored under `key` within [begin, end], newest first (spec §6.4). */
  async query(key: string, maxNum: number, begin: number, end: number, out: number[]): Promise<void> {
    await this.ready;
    const keyHash = indexKeyHash(key);
    let n = await this.slotValue(keyHash % this.slotNum);
    const count = this.indexCount;
    if (n <= 0 || n >= count) return;
    for (let steps = 0; out.length < maxNum && steps < count; steps++) {
      const e = await this.entry(n);
      const time = this.beginTimestamp + e.getInt32(INDEX_ENTRY.timeDiff[0]) * 1000;
      if (e.getInt32(INDEX_ENTRY.keyHash[0]) === keyHash && time >= begin && time <= end) {
        out.push(readI64(e, INDEX_ENTRY.phyOffset[0]));
      }
      const prev = e.getInt32(INDEX_ENTRY.prevIndex[0]);
      if (prev <= 0 || prev >= count || prev === n || time < begin) return;
      n = prev;
    }
  }

  async close(): Promise<void> {
    await this.opening.settled();
    await this.fh?.close().catch(() => {});
    this.fh = undefined;
  }

  async destroy(): Promise<void> {
    await this.close();
    await unlink(this.path).catch(() => {});
  }
}
