/**
 * Writes appended CommitLog bytes to their files and makes them durable (spec §5.3).
 * One serial loop: write every pending chunk (one writev per segment), then fdatasync when the
 * policy says so. Every put waits until its bytes are written (handed to the kernel): a process
 * crash then loses nothing acknowledged, as Java's mapped-file put does, and a record becomes
 * visible to pulls only once written. SYNC_FLUSH puts also wait for the fdatasync that covers
 * them; puts that arrive while a round runs share the next round (group commit).
 */
import type { Logger } from "../../src/log.ts";
import type { CommitLog } from "./commitlog.ts";
import { OffsetWaiters } from "./offset-waiters.ts";
import type { Segment } from "./segment.ts";
import type { FlushDiskType } from "./store-options.ts";

/** Resolves after the event loop has run one macrotask turn (I/O completions included). */
function nextTurn(): Promise<void> {
  return new Promise((r) => setImmediate(r));
}

export interface FlusherOptions {
  readonly flushDiskType: FlushDiskType;
  readonly flushIntervalCommitLog: number;
  /** How long a put waits for its write (and, SYNC_FLUSH, its sync) before it is answered as not stored. */
  readonly syncFlushTimeout: number;
  readonly syncFlushWaitersMax: number;
  /**
   * ASYNC_FLUSH: written bytes that may stay unsynced before a sync starts without waiting for
   * `flushIntervalCommitLog`. Under a burst the disk then works while appends go on, instead of
   * one long sync of the whole burst afterwards; it also bounds what a power loss can take.
   */
  readonly asyncFlushBytes: number;
}

/**
 * A write round up to this size is done on the event loop (`Segment.writeNow`): a page-cache
 * copy of a few microseconds, against tens for a thread-pool write, and every put waits for it.
 * Larger rounds (bursts) go to the thread pool, where the hop is spread over many puts.
 */
const WRITE_NOW_BYTES_MAX = 256 * 1024;

/**
 * A write on the event loop slower than this means the kernel is throttling writers (dirty pages
 * over its limit) or a journal commit holds it: the loop must not stall with it, so writes go to the
 * thread pool for a short while. Brief, because a single slow write (a journal commit) is common.
 */
const WRITE_NOW_SLOW_MS = 2;
const WRITE_NOW_PAUSE_MS = 20;

/** Delay before retrying after a failed write or sync. */
const RETRY_AFTER_ERROR_MS = 1000;

/**
 * Write waiters are bounded by the store's write buffer (`writeBufferBytesMax`), not by count:
 * every put waits for its write.
 */
const WRITE_WAITERS_MAX = Number.MAX_SAFE_INTEGER;

export class CommitLogFlusher {
  /** One past the last durable byte. */
  flushedOffset: number;
  /** Store time of the last durable record (checkpoint `physicMsgTimestamp`). */
  flushedStoreTimestamp = 0;
  /** Write calls (one writev per segment per round), bytes they carried, and fdatasyncs issued. */
  readonly counters = { writes: 0, writtenBytes: 0, syncs: 0 };
  /** Called after each round that wrote bytes, with `cl.writtenOffset` moved past them. */
  onWritten: () => void = () => {};
  /** The last write-round error, cleared by the next successful round. */
  private roundError: Error | undefined;
  /** The last background-sync error, cleared only by the next successful sync. */
  private syncError: Error | undefined;

  /** The last write or sync error not yet followed by a success; the store refuses puts meanwhile. */
  get lastError(): Error | undefined {
    return this.roundError ?? this.syncError;
  }
  /** Puts waiting for their bytes to be written. */
  private readonly writeWaiters: OffsetWaiters;
  /** SYNC_FLUSH puts waiting for their bytes to be durable. */
  private readonly syncWaiters: OffsetWaiters;
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
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private writtenStoreTimestamp = 0;
  /** Until then, writes go to the thread pool (see WRITE_NOW_SLOW_MS). */
  private writeNowPausedUntil = 0;

  constructor(
    private readonly cl: CommitLog,
    private readonly opts: FlusherOptions,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {
    this.flushedOffset = cl.maxOffset;
    this.writeWaiters = new OffsetWaiters(opts.syncFlushTimeout, WRITE_WAITERS_MAX, now);
    this.syncWaiters = new OffsetWaiters(opts.syncFlushTimeout, opts.syncFlushWaitersMax, now);
  }

  get waiterCount(): number {
    return this.syncWaiters.count;
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
   * True once bytes up to `offset` are written (handed to the kernel); false if
   * `syncFlushTimeout` passes first (the writes keep failing). `offset` must already be appended.
   */
  waitWritten(offset: number): Promise<boolean> {
    const p = this.writeWaiters.wait(offset, this.cl.writtenOffset);
    this.kick();
    return p;
  }

  /**
   * True once bytes up to `offset` are durable; false if `syncFlushTimeout` passes first.
   * `offset` must already be appended: the put joins the group of the next write round.
   */
  waitFlushed(offset: number): Promise<boolean> {
    const p = this.syncWaiters.wait(offset, this.flushedOffset);
    this.kick();
    return p;
  }

  /**
   * Makes puts wait for one event-loop turn. Puts that never await I/O (callers in one burst)
   * run as an unbroken chain of microtasks, in which the loop's writes never complete; the store
   * calls this each time it starts a new chunk, so writing overlaps appending.
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
          this.retryLater();
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

  private retryLater(): void {
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => this.requestSync(), RETRY_AFTER_ERROR_MS);
    this.retryTimer.unref?.();
  }

  stop(): void {
    clearInterval(this.interval);
    clearTimeout(this.retryTimer);
    this.syncAgain = false;
    this.writeWaiters.failAll();
    this.syncWaiters.failAll();
  }

  /** Clears `active` in the same turn as it decides to stop, so a kick is never lost. */
  private async loop(): Promise<void> {
    for (;;) {
      this.again = false;
      try {
        // SYNC_FLUSH: puts completed by the previous sync (and the rest of a burst) add their
        // records during this turn, so they share one write and fdatasync instead of trickling.
        // ASYNC_FLUSH: a put waits for nothing but its write, so the round starts at once; puts
        // arriving while it runs share the next one.
        if (this.opts.flushDiskType === "SYNC_FLUSH" || this.syncWaiters.pending) await nextTurn();
        else await null;
        this.writeWaiters.closeOpen();
        this.syncWaiters.closeOpen();
        await this.writePending();
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
        this.retryLater();
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

  /** Writes the appended bytes not yet written, then tells the store and the waiting puts. */
  private async writePending(): Promise<void> {
    const target = this.cl.maxOffset;
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
      let bytes = 0;
      for (const b of g.bufs) bytes += b.length;
      // While a background sync runs, a write may wait for it inside the kernel (ext4 holds the
      // file while it allocates and writes back): never on the event loop then.
      const writeNow =
        bytes <= WRITE_NOW_BYTES_MAX &&
        seg.isOpen &&
        !this.backgroundSync &&
        this.now() >= this.writeNowPausedUntil;
      if (writeNow) {
        const t0 = performance.now();
        seg.writeNow(g.bufs, g.pos);
        if (performance.now() - t0 > WRITE_NOW_SLOW_MS) {
          this.writeNowPausedUntil = this.now() + WRITE_NOW_PAUSE_MS;
        }
      } else {
        await seg.write(g.bufs, g.pos);
      }
      this.counters.writes++;
      this.counters.writtenBytes += bytes;
      for (const [chunk, upTo] of g.marks) chunk!.written = upTo;
      this.dirty.add(seg);
    }
    this.cl.writtenOffset = target;
    // The checkpoint's store time must not name a record whose tail is still in memory.
    this.writtenStoreTimestamp = ts;
    this.onWritten();
    this.writeWaiters.complete(target);
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
    this.syncWaiters.complete(target);
  }
}
