/**
 * Writes appended CommitLog bytes to their files and makes them durable (spec §5.3).
 * One serial loop: write every pending chunk (one writev per segment), then fdatasync when the
 * policy says so. SYNC_FLUSH waiters are completed in offset order after each sync, so all puts
 * that arrive during one fsync share the next one (group commit).
 */
import type { Logger } from "../../src/log.ts";
import type { CommitLog } from "./commitlog.ts";
import type { Segment } from "./segment.ts";
import type { FlushDiskType } from "./store-options.ts";

interface Waiter {
  readonly offset: number;
  readonly deadline: number;
  readonly resolve: (durable: boolean) => void;
}

export interface FlusherOptions {
  readonly flushDiskType: FlushDiskType;
  readonly flushIntervalCommitLog: number;
  readonly syncFlushTimeout: number;
  readonly syncFlushWaitersMax: number;
}

/** Delay before retrying after a failed write or sync. */
const RETRY_AFTER_ERROR_MS = 1000;

export class CommitLogFlusher {
  /** One past the last durable byte. */
  flushedOffset: number;
  /** Store time of the last durable record (checkpoint `physicMsgTimestamp`). */
  flushedStoreTimestamp = 0;
  /** Write calls (one writev per segment per round), bytes they carried, and fdatasyncs issued. */
  readonly counters = { writes: 0, writtenBytes: 0, syncs: 0 };
  /** The last write or sync error, cleared by the next success; the store refuses puts meanwhile. */
  lastError: Error | undefined;
  private readonly waiters: Waiter[] = [];
  private running: Promise<void> | undefined;
  /** Set and cleared synchronously by the loop itself, so no wake-up falls between two turns. */
  private active = false;
  private again = false;
  private syncRequested = false;
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
    return this.waiters.length;
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

  /** True once bytes up to `offset` are durable; false if `syncFlushTimeout` passes first. */
  waitFlushed(offset: number): Promise<boolean> {
    if (offset <= this.flushedOffset) return Promise.resolve(true);
    if (this.waiters.length >= this.opts.syncFlushWaitersMax) return Promise.resolve(false);
    return new Promise((resolve) => {
      this.waiters.push({ offset, deadline: this.now() + this.opts.syncFlushTimeout, resolve });
      if (this.waiters.length === 1) this.armTimeout();
      this.kick();
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
    while (this.flushedOffset < this.cl.maxOffset || this.active) {
      this.requestSync();
      await this.running;
      if (this.lastError) throw this.lastError;
    }
  }

  stop(): void {
    clearInterval(this.interval);
    clearTimeout(this.timeoutTimer);
    clearTimeout(this.retryTimer);
    for (const w of this.waiters.splice(0)) w.resolve(false);
  }

  /** Clears `active` in the same turn as it decides to stop, so a kick is never lost. */
  private async loop(): Promise<void> {
    for (;;) {
      this.again = false;
      try {
        await this.writePending();
        const sync = this.opts.flushDiskType === "SYNC_FLUSH" || this.syncRequested;
        if (sync && this.flushedOffset < this.cl.writtenOffset) await this.sync();
        this.syncRequested = false;
        this.lastError = undefined;
      } catch (err) {
        this.lastError = err as Error;
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

  private async writePending(): Promise<void> {
    const target = this.cl.maxOffset;
    const ts = this.cl.lastStoreTimestamp;
    // Group the unwritten parts of the chunks by segment; chunks of one segment are contiguous.
    const bySeg = new Map<Segment, { pos: number; bufs: Uint8Array[]; marks: [typeof c, number][] }>();
    let c: (typeof this.cl.chunks)[number] | undefined;
    for (c of this.cl.chunks) {
      const upTo = c.used;
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
    if (bySeg.size > 0 || this.cl.writtenOffset < target) {
      this.cl.writtenOffset = target;
      this.writtenStoreTimestamp = ts;
      this.cl.releaseChunks();
    }
  }

  private async sync(): Promise<void> {
    const target = this.cl.writtenOffset;
    const ts = this.writtenStoreTimestamp;
    const segs = [...this.dirty];
    this.dirty.clear();
    try {
      for (const s of segs) {
        await s.datasync();
        this.counters.syncs++;
      }
    } catch (err) {
      for (const s of segs) this.dirty.add(s);
      throw err;
    }
    this.flushedOffset = target;
    this.flushedStoreTimestamp = ts;
    let n = 0;
    while (n < this.waiters.length && this.waiters[n]!.offset <= target) this.waiters[n++]!.resolve(true);
    if (n > 0) {
      this.waiters.splice(0, n);
      this.armTimeout();
    }
  }

  /** One timer for the oldest waiter; waiters are in offset order, hence in deadline order. */
  private armTimeout(): void {
    clearTimeout(this.timeoutTimer);
    const front = this.waiters[0];
    if (!front) return;
    this.timeoutTimer = setTimeout(
      () => {
        const now = this.now();
        let n = 0;
        while (n < this.waiters.length && this.waiters[n]!.deadline <= now) this.waiters[n++]!.resolve(false);
        this.waiters.splice(0, n);
        this.armTimeout();
      },
      Math.max(0, front.deadline - this.now()),
    );
    this.timeoutTimer.unref?.();
  }
}
