/**
 * Writes appended CommitLog bytes to their files and makes them durable (spec §5.3).
 * One serial loop: write every pending chunk (one writev per segment), then fdatasync when the
 * policy says so. SYNC_FLUSH puts wait on a shared group: every put appended before a round
 * starts writing joins that round's group and is completed by its fdatasync (group commit).
 */
import type { Logger } from "../../src/log.ts";
import type { CommitLog } from "./commitlog.ts";
import type { Segment } from "./segment.ts";
import type { FlushDiskType } from "./store-options.ts";

/** The puts one write round will make durable; all share one promise. */
interface FlushGroup {
  /** Largest end offset of a member; the group completes once `flushedOffset` reaches it. */
  target: number;
  /** The latest member's deadline: no member is timed out before its own deadline. */
  deadline: number;
  members: number;
  readonly promise: Promise<boolean>;
  readonly resolve: (durable: boolean) => void;
}

const DURABLE = Promise.resolve(true);
const NOT_DURABLE = Promise.resolve(false);

/** Resolves after the event loop has run one macrotask turn (I/O completions included). */
function nextTurn(): Promise<void> {
  return new Promise((r) => setImmediate(r));
}

export interface FlusherOptions {
  readonly flushDiskType: FlushDiskType;
  readonly flushIntervalCommitLog: number;
  readonly syncFlushTimeout: number;
  readonly syncFlushWaitersMax: number;
  /**
   * ASYNC_FLUSH: how long appended bytes may wait before they are written (not synced). Writing
   * after every put costs a thread-pool write per message at low rates; a short delay batches them.
   * It bounds what a killed process loses, as Java's commitIntervalCommitLog does for its
   * transient store pool.
   */
  readonly asyncWriteDelayMs: number;
  /**
   * ASYNC_FLUSH: written bytes that may stay unsynced before a sync starts without waiting for
   * `flushIntervalCommitLog`. Under a burst the disk then works while appends go on, instead of
   * one long sync of the whole burst afterwards; it also bounds what a power loss can take.
   */
  readonly asyncFlushBytes: number;
}

/** The OS page: the unit a burst's writes end on (see `writePending`). */
const PAGE_BYTES = 4096;

/** Pending bytes that are written at once, whatever the delay. */
const WRITE_NOW_BYTES = 256 * 1024;

/** Delay before retrying after a failed write or sync. */
const RETRY_AFTER_ERROR_MS = 1000;

export class CommitLogFlusher {
  /** One past the last durable byte. */
  flushedOffset: number;
  /** Store time of the last durable record (checkpoint `physicMsgTimestamp`). */
  flushedStoreTimestamp = 0;
  /** Write calls (one writev per segment per round), bytes they carried, and fdatasyncs issued. */
  readonly counters = { writes: 0, writtenBytes: 0, syncs: 0 };
  /** The last write-round error, cleared by the next successful round. */
  private roundError: Error | undefined;
  /** The last background-sync error, cleared only by the next successful sync. */
  private syncError: Error | undefined;

  /** The last write or sync error not yet followed by a success; the store refuses puts meanwhile. */
  get lastError(): Error | undefined {
    return this.roundError ?? this.syncError;
  }
  /** Groups in offset order; the last may still be open (taking members). */
  private readonly groups: FlushGroup[] = [];
  /** The group new SYNC_FLUSH puts join; closed when a write round takes its bytes. */
  private open: FlushGroup | undefined;
  private waiters = 0;
  /** Set while puts should let the event loop turn before appending more (see `yieldTurn`). */
  gate: Promise<void> | undefined;
  private running: Promise<void> | undefined;
  /** Set and cleared synchronously by the loop itself, so no wake-up falls between two turns. */
  private active = false;
  private again = false;
  private syncRequested = false;
  /** The ASYNC_FLUSH sync in flight, if any (see `syncInBackground`). */
  private backgroundSync: Promise<void> | undefined;
  private syncAgain = false;
  private readonly dirty = new Set<Segment>();
  private bufferWaiters: (() => void)[] = [];
  private interval: ReturnType<typeof setInterval> | undefined;
  private timeoutTimer: ReturnType<typeof setTimeout> | undefined;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private writtenStoreTimestamp = 0;

  constructor(
    private readonly cl: CommitLog,
    private readonly opts: FlusherOptions,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {
    this.flushedOffset = cl.maxOffset;
  }

  get waiterCount(): number {
    return this.waiters;
  }

  start(): void {
    this.flushedOffset = this.cl.writtenOffset;
    if (this.opts.flushDiskType === "ASYNC_FLUSH") {
      this.interval = setInterval(() => this.requestSync(), this.opts.flushIntervalCommitLog);
      this.interval.unref?.();
    }
  }

  /** Something was appended: write it soon. Coalesces calls made in one turn. */
  kick(): void {
    if (this.active) {
      this.again = true;
      return;
    }
    this.active = true;
    this.running = this.loop();
  }

  requestSync(): void {
    this.syncRequested = true;
    this.kick();
  }

  /**
   * True once bytes up to `offset` are durable; false if `syncFlushTimeout` passes first.
   * `offset` must already be appended: the put joins the group of the next write round.
   */
  waitFlushed(offset: number): Promise<boolean> {
    if (offset <= this.flushedOffset) return DURABLE;
    if (this.waiters >= this.opts.syncFlushWaitersMax) return NOT_DURABLE;
    let g = this.open;
    const first = this.groups.length === 0;
    if (!g) {
      let resolve!: (durable: boolean) => void;
      const promise = new Promise<boolean>((r) => {
        resolve = r;
      });
      g = { target: 0, deadline: 0, members: 0, promise, resolve };
      this.open = g;
      this.groups.push(g);
    }
    g.target = Math.max(g.target, offset);
    g.deadline = this.now() + this.opts.syncFlushTimeout;
    g.members++;
    this.waiters++;
    if (first) this.armTimeout();
    this.kick();
    return g.promise;
  }

  /**
   * Makes puts wait for one event-loop turn. Puts that never await I/O (ASYNC_FLUSH, callers
   * in one burst) run as an unbroken chain of microtasks, in which the loop's writes never
   * complete; the store calls this each time it starts a new chunk, so writing overlaps appending.
   */
  yieldTurn(): void {
    this.gate ??= nextTurn().then(() => {
      this.gate = undefined;
    });
  }

  /** Resolves once the unwritten backlog is at most `bytes`. */
  async waitBufferBelow(bytes: number): Promise<void> {
    while (this.cl.bufferedBytes > bytes) {
      this.kick();
      await new Promise<void>((r) => this.bufferWaiters.push(r));
    }
  }

  /** Writes and syncs everything appended so far. */
  async flushAll(): Promise<void> {
    while (this.flushedOffset < this.cl.maxOffset || this.active || this.backgroundSync) {
      this.requestSync();
      await this.running;
      await this.backgroundSync;
      if (this.lastError) throw this.lastError;
    }
  }

  /** Written but not yet durable. */
  private get unsyncedBytes(): number {
    return this.cl.writtenOffset - this.flushedOffset;
  }

  /**
   * ASYNC_FLUSH: an fdatasync that runs beside the writes instead of between them, so a slow sync
   * never stalls writing (the backlog would grow behind it). One at a time; a request made while
   * one runs starts another when it ends, covering what was written meanwhile.
   */
  private syncInBackground(): void {
    if (this.unsyncedBytes <= 0) return;
    if (this.backgroundSync) {
      this.syncAgain = true;
      return;
    }
    this.backgroundSync = this.sync()
      .then(
        () => {
          this.syncError = undefined;
        },
        (err: unknown) => {
          this.syncError = err as Error;
          this.log.error({ err }, "commitlog sync failed; retrying");
          clearTimeout(this.retryTimer);
          this.retryTimer = setTimeout(() => this.requestSync(), RETRY_AFTER_ERROR_MS);
          this.retryTimer.unref?.();
        },
      )
      .finally(() => {
        this.backgroundSync = undefined;
        if (this.syncAgain) {
          this.syncAgain = false;
          this.syncInBackground();
        }
      });
  }

  stop(): void {
    clearInterval(this.interval);
    clearTimeout(this.timeoutTimer);
    clearTimeout(this.retryTimer);
    this.open = undefined;
    this.waiters = 0;
    this.syncAgain = false;
    for (const g of this.groups.splice(0)) g.resolve(false);
  }

  /** Clears `active` in the same turn as it decides to stop, so a kick is never lost. */
  private async loop(): Promise<void> {
    for (;;) {
      this.again = false;
      try {
        // Puts completed by the previous sync (and the rest of a burst of appends) add their
        // records during this turn, so they share one write and fdatasync instead of trickling.
        if (this.opts.flushDiskType === "SYNC_FLUSH" || this.groups.length > 0) await nextTurn();
        else if (
          !this.syncRequested &&
          this.opts.asyncWriteDelayMs > 0 &&
          this.cl.bufferedBytes < WRITE_NOW_BYTES
        ) {
          await new Promise((r) => setTimeout(r, this.opts.asyncWriteDelayMs));
        }
        this.open = undefined;
        // A burst (ASYNC_FLUSH, too much pending to take the write delay) writes whole pages; the
        // tail page follows after the delay once the burst is over.
        await this.writePending(
          this.opts.flushDiskType === "ASYNC_FLUSH" &&
            !this.syncRequested &&
            this.cl.bufferedBytes >= WRITE_NOW_BYTES,
        );
        if (this.opts.flushDiskType === "SYNC_FLUSH") {
          // Group commit: the waiting puts are completed by this very sync.
          if (this.flushedOffset < this.cl.writtenOffset) await this.sync();
        } else if (this.syncRequested || this.unsyncedBytes >= this.opts.asyncFlushBytes) {
          this.syncInBackground();
        }
        this.syncRequested = false;
        this.roundError = undefined;
      } catch (err) {
        this.roundError = err as Error;
        this.log.error({ err }, "commitlog flush failed; retrying");
        clearTimeout(this.retryTimer);
        this.retryTimer = setTimeout(() => this.requestSync(), RETRY_AFTER_ERROR_MS);
        this.retryTimer.unref?.();
        this.active = false;
        return;
      } finally {
        for (const r of this.bufferWaiters.splice(0)) r();
      }
      if (!this.again && this.cl.writtenOffset >= this.cl.maxOffset && !this.syncRequested) {
        this.active = false;
        return;
      }
    }
  }

  /**
   * Writes the appended bytes not yet written. `wholePages`: stop at the last 4 KiB boundary and
   * keep the partly filled page for the next round. A write into a page that a running sync is
   * writing back waits for that I/O, so during a burst, with syncs running beside the writes
   * (`syncInBackground`), rewriting the tail page would stall the writer behind each sync.
   */
  private async writePending(wholePages = false): Promise<void> {
    const end = this.cl.maxOffset;
    const target = wholePages ? end - (end % PAGE_BYTES) : end;
    if (target <= this.cl.writtenOffset) return;
    const ts = this.cl.lastStoreTimestamp;
    // Group the unwritten parts of the chunks by segment; chunks of one segment are contiguous.
    const bySeg = new Map<Segment, { pos: number; bufs: Uint8Array[]; marks: [typeof c, number][] }>();
    let c: (typeof this.cl.chunks)[number] | undefined;
    for (c of this.cl.chunks) {
      const upTo = Math.min(c.used, target - c.start);
      if (c.written >= upTo) continue;
      let g = bySeg.get(c.seg);
      if (!g) {
        g = { pos: c.start + c.written - c.seg.start, bufs: [], marks: [] };
        bySeg.set(c.seg, g);
      }
      g.bufs.push(c.buf.subarray(c.written, upTo));
      g.marks.push([c, upTo]);
    }
    for (const [seg, g] of bySeg) {
      await seg.write(g.bufs, g.pos);
      this.counters.writes++;
      for (const b of g.bufs) this.counters.writtenBytes += b.length;
      for (const [chunk, upTo] of g.marks) chunk!.written = upTo;
      this.dirty.add(seg);
    }
    this.cl.writtenOffset = target;
    // The checkpoint's store time must not name a record whose tail is still in memory.
    if (target === end) this.writtenStoreTimestamp = ts;
    this.cl.releaseChunks();
  }

  private async sync(): Promise<void> {
    const target = this.cl.writtenOffset;
    const ts = this.writtenStoreTimestamp;
    const segs = [...this.dirty];
    this.dirty.clear();
    try {
      for (const s of segs) {
        // A deleted file has nothing left to make durable; retrying it would fail forever.
        if (s.destroyed) continue;
        await s.datasync();
        this.counters.syncs++;
      }
    } catch (err) {
      for (const s of segs) if (!s.destroyed) this.dirty.add(s);
      throw err;
    }
    this.flushedOffset = target;
    this.flushedStoreTimestamp = ts;
    this.completeGroups((g) => g.target <= target, true);
  }

  /** Completes the leading groups that satisfy `done`, in order. */
  private completeGroups(done: (g: FlushGroup) => boolean, durable: boolean): void {
    let n = 0;
    while (n < this.groups.length && done(this.groups[n]!)) {
      const g = this.groups[n++]!;
      if (g === this.open) this.open = undefined;
      this.waiters -= g.members;
      g.resolve(durable);
    }
    if (n > 0) {
      this.groups.splice(0, n);
      this.armTimeout();
    }
  }

  /** One timer for the oldest group; groups are in offset order, hence in deadline order. */
  private armTimeout(): void {
    clearTimeout(this.timeoutTimer);
    const front = this.groups[0];
    if (!front) return;
    this.timeoutTimer = setTimeout(
      () => {
        const now = this.now();
        this.completeGroups((g) => g.deadline <= now, false);
        this.armTimeout();
      },
      Math.max(0, front.deadline - this.now()),
    );
    this.timeoutTimer.unref?.();
  }
}
