/**
 * An ordered run of contiguous segments in one directory (RocketMQ's MappedFileQueue): lookup by
 * offset, roll, truncate, and oldest-first deletion.
 */
import { mkdir, readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { Segment } from "./segment.ts";

const SEGMENT_NAME = /^\d{20}$/;

export class SegmentList {
  readonly segments: Segment[] = [];

  constructor(
    readonly dir: string,
    readonly segmentSize: number,
  ) {}

  /** Opens the existing segments. A gap between files or a wrong-sized non-last file is an error. */
  async load(): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    const names = (await readdir(this.dir)).filter((n) => SEGMENT_NAME.test(n)).sort();
    for (const [i, name] of names.entries()) {
      const start = Number(name);
      const { size } = await stat(join(this.dir, name));
      const last = i === names.length - 1;
      if (size !== this.segmentSize && !(last && size < this.segmentSize)) {
        throw new Error(`${join(this.dir, name)} is ${size} bytes, expected ${this.segmentSize}`);
      }
      const prev = this.segments.at(-1);
      if (prev && prev.end !== start) throw new Error(`gap before ${join(this.dir, name)}`);
      if (start % this.segmentSize !== 0) throw new Error(`${name} is not a multiple of the segment size`);
      const seg = Segment.open(this.dir, start, this.segmentSize);
      await seg.ready;
      this.segments.push(seg);
    }
  }

  get first(): Segment | undefined {
    return this.segments[0];
  }

  get last(): Segment | undefined {
    return this.segments.at(-1);
  }

  /** Offset of the first byte still held, or `fallback` when there are no segments. */
  minOffset(fallback = 0): number {
    return this.segments[0]?.start ?? fallback;
  }

  /** The segment holding byte `offset`, if any. */
  find(offset: number): Segment | undefined {
    const segs = this.segments;
    let lo = 0;
    let hi = segs.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const s = segs[mid]!;
      if (offset < s.start) hi = mid - 1;
      else if (offset >= s.end) lo = mid + 1;
      else return s;
    }
    return undefined;
  }

  /** Adds the segment starting at `start` (which must follow the last one, or begin the list). */
  add(start: number): Segment {
    const last = this.last;
    if (last && last.end !== start) throw new Error(`segment ${start} does not follow ${last.start}`);
    const seg = Segment.create(this.dir, start, this.segmentSize, last);
    this.segments.push(seg);
    return seg;
  }

  /** Segment containing `offset`, created (with any missing predecessors) if needed. */
  ensure(offset: number): Segment {
    const found = this.find(offset);
    if (found) return found;
    const base = offset - (offset % this.segmentSize);
    if (!this.last) return this.add(base);
    while (this.last!.end <= base) this.add(this.last!.end);
    return this.find(offset)!;
  }

  /** Drops everything at and after `offset`: later files are deleted, the holding one zeroed. */
  async truncateFrom(offset: number): Promise<void> {
    while (this.last && this.last.start >= offset) await this.segments.pop()!.destroy();
    const holding = this.last;
    if (holding && offset < holding.end) await holding.zeroFrom(offset - holding.start);
  }

  /** Removes and deletes the first segment. */
  async deleteFirst(): Promise<void> {
    await this.segments.shift()?.destroy();
  }

  async closeAll(): Promise<void> {
    for (const s of this.segments) await s.close();
  }

  async destroyAll(): Promise<void> {
    while (this.segments.length > 0) await this.segments.pop()!.destroy();
  }
}
