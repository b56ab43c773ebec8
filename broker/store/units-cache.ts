/**
 * Recently read ConsumeQueue units, so the POPs and pulls that walk a queue 32 messages at a time
 * find the next units in memory instead of reading the file again (one thread-pool hop less per
 * read; Java reads them from its mapped file). A scanning read (max ≥ WINDOW_READ_MIN units) reads
 * a window of WINDOW_UNITS past its own end; a later read inside that window is a view of it.
 * Units in files never change but by a cut (truncateFromPhy) or deletion, which drop the queue's
 * window. Bounded: one window per queue, at most QUEUES_MAX queues (least recently read dropped),
 * so at most QUEUES_MAX × (a read's own units + WINDOW_UNITS) × 20 bytes: 6 MiB for the 800-unit
 * scans of a pull or POP (maxFilterMessageSize / 20).
 */

/** Units a window reaches past what its read asked for. */
export const UNITS_CACHE_WINDOW_UNITS = 1600;
/** Reads of fewer units (binary searches by time or offset) neither read ahead nor fill the cache. */
export const UNITS_CACHE_WINDOW_READ_MIN = 32;
/** Queues whose window is kept. */
export const UNITS_CACHE_QUEUES_MAX = 128;

interface Window {
  /** Queue offset of the first unit held. */
  readonly from: number;
  readonly bytes: Uint8Array;
}

export class UnitsCache {
  /** Insertion order is recency: a hit or a fill moves the queue to the end. */
  private readonly windows = new Map<object, Window>();

  constructor(
    readonly unitBytes: number,
    private readonly queuesMax = UNITS_CACHE_QUEUES_MAX,
  ) {}

  /**
   * Units [from, to) of `queue` if its window holds them all: a view, not a copy. A window's bytes
   * are never written (a fill or a cut replaces or drops the whole window), and every reader only
   * reads units; the copy it was cost a POP of 32 an 800-unit (16 KB) allocation and copy.
   */
  get(queue: object, from: number, to: number): Uint8Array | undefined {
    const w = this.windows.get(queue);
    if (!w || from < w.from || to * this.unitBytes > w.from * this.unitBytes + w.bytes.length)
      return undefined;
    this.windows.delete(queue);
    this.windows.set(queue, w);
    const a = (from - w.from) * this.unitBytes;
    return w.bytes.subarray(a, a + (to - from) * this.unitBytes);
  }

  /** Keeps `bytes` (units from `from` on, read from the queue's files) as the queue's window. */
  put(queue: object, from: number, bytes: Uint8Array): void {
    this.windows.delete(queue);
    this.windows.set(queue, { from, bytes });
    if (this.windows.size > this.queuesMax) this.windows.delete(this.windows.keys().next().value!);
  }

  drop(queue: object): void {
    this.windows.delete(queue);
  }

  /** Bytes held (for the bound above). */
  get bytes(): number {
    let n = 0;
    for (const w of this.windows.values()) n += w.bytes.length;
    return n;
  }
}
