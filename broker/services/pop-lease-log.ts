/**
 * The POP in-flight table on disk (spec pop-timer-filter §A.18, "in-flight table instead of
 * CK/ACK timer messages"), under `<storePathRootDir>/pop/`:
 *
 *   leases-<seq, 20 digits>.log   a snapshot of the table, SNAPSHOT_END, then every change since
 *
 * Design: an append-only log with checkpointing by rotation. Each change (pop, ack, change,
 * revive) is one framed, CRC-checked record (pop-lease-records.ts) queued in memory and written
 * by one writer, so callers never wait on I/O in their turn and concurrent changes share one write
 * (group commit); `append` resolves once its record reached the OS, which is what survives a
 * kill -9. Every writer waits for its records (pop, ack and change before they reply, the reviver
 * after each chunk), so the queue is bounded by the requests in flight. When the file outgrows the table, `rotate` starts file seq+1 with a snapshot of the
 * live table taken at that instant; the old file is deleted once the new snapshot is written and
 * synced. Recovery reads the newest file whose snapshot is whole (a crash mid-rotation leaves the
 * older file, which holds everything up to the rotation) and replays it up to the first torn or
 * damaged record. Files are not synced per write: like the CommitLog's async flush, a power loss
 * may cost the last moments, a process crash costs nothing that `append` resolved.
 */
import { writeSync } from "node:fs";
import { type FileHandle, mkdir, open, readdir, readFile, unlink } from "node:fs/promises";
import { join } from "node:path";
import type { Logger } from "pino";
import {
  decodeLeaseRecords,
  encodeLeaseRecord,
  type LeaseRecord,
  LeaseRecordType,
} from "./pop-lease-records.ts";

/**
 * Writes up to this size go to the page cache on the calling thread (as the CommitLog's writeNow):
 * a buffered write of a few KiB is a copy costing microseconds, where the thread-pool hop of an
 * async write costs tens, and each POP and ack waits for its record's write. Larger writes (a
 * snapshot) stay async.
 */
const WRITE_NOW_BYTES_MAX = 256 * 1024;

const FILE_PATTERN = /^leases-(\d{20})\.log$/;
const fileName = (seq: number) => `leases-${String(seq).padStart(20, "0")}.log`;

interface Rotation {
  readonly snapshot: Uint8Array[];
  readonly seq: number;
}

interface Deferred {
  readonly promise: Promise<void>;
  resolve(): void;
}

function deferred(): Deferred {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

export interface RecoveredLog {
  /** Records of the newest whole file, snapshot first, in write order. */
  readonly records: LeaseRecord[];
  /** Files found, for the log line. */
  readonly files: number;
}

export class LeaseLog {
  private fh: FileHandle | null = null;
  private seq = 0;
  /** Bytes written to the current file. */
  private written = 0;
  private queue: (Uint8Array | Rotation)[] = [];
  private queuedBytes = 0;
  private tail = deferred();
  private flushing: Promise<void> = Promise.resolve();
  private running = false;
  /** Resolves when the write under way (not the ones queued after it) is done. */
  private writing: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    readonly dir: string,
    private readonly log: Logger,
  ) {}

  /** Bytes in the current file, snapshot included, plus what is queued for it. */
  get size(): number {
    return this.written + this.queuedBytes;
  }

  /** Reads the newest whole file. Call once, before `rotate` opens the first file to write. */
  async recover(): Promise<RecoveredLog> {
    await mkdir(this.dir, { recursive: true });
    const seqs = (await readdir(this.dir))
      .map((f) => FILE_PATTERN.exec(f)?.[1])
      .filter((s): s is string => s !== undefined)
      .map(Number)
      .sort((a, b) => b - a);
    this.seq = seqs[0] ?? 0;
    for (const seq of seqs) {
      const { records } = decodeLeaseRecords(await readFile(join(this.dir, fileName(seq))));
      const end = records.findIndex((r) => r.type === LeaseRecordType.SNAPSHOT_END);
      if (end >= 0) return { records, files: seqs.length };
      this.log.warn({ file: fileName(seq) }, "POP lease log without a whole snapshot: using an older one");
    }
    return { records: [], files: seqs.length };
  }

  /** Queues one record; resolves once it is written. */
  append(r: LeaseRecord): Promise<void> {
    return this.enqueue(encodeLeaseRecord(r));
  }

  /**
   * Starts a new file holding `snapshot` (records of the live table as of now): everything
   * appended before this call goes to the old file, everything after to the new one.
   */
  rotate(snapshot: readonly LeaseRecord[]): Promise<void> {
    const bytes = snapshot.map(encodeLeaseRecord);
    bytes.push(encodeLeaseRecord({ type: LeaseRecordType.SNAPSHOT_END }));
    this.seq++;
    const rotation: Rotation = { snapshot: bytes, seq: this.seq };
    this.queue.push(rotation);
    for (const b of bytes) this.queuedBytes += b.length;
    return this.kick();
  }

  /** Everything queued so far, written. */
  flush(): Promise<void> {
    if (this.queue.length > 0) return this.kick();
    // Only what the writer already took is pending: wait for that write, not for the writer to
    // run dry (under steady load it never would).
    return this.running ? this.writing : Promise.resolve();
  }

  async close(): Promise<void> {
    await this.flush();
    await this.flushing;
    this.closed = true;
    await this.fh
      ?.datasync()
      .catch((err: unknown) => this.log.warn({ err, dir: this.dir }, "POP lease log not synced at close"));
    await this.fh?.close();
    this.fh = null;
  }

  private enqueue(bytes: Uint8Array): Promise<void> {
    this.queue.push(bytes);
    this.queuedBytes += bytes.length;
    return this.kick();
  }

  private kick(): Promise<void> {
    const p = this.tail.promise;
    if (!this.running) {
      this.running = true;
      // From the next macrotask: records of every request handled in this turn share one write.
      this.flushing = new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.drain());
    }
    return p;
  }

  /** The one writer: takes everything queued, writes it in order, resolves its waiters; repeats. */
  private async drain(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        const items = this.queue;
        const done = this.tail;
        this.writing = done.promise;
        this.queue = [];
        this.tail = deferred();
        let run: Uint8Array[] = [];
        try {
          for (const item of items) {
            if (item instanceof Uint8Array) {
              run.push(item);
              continue;
            }
            await this.write(run);
            run = [];
            await this.switchTo(item);
          }
          await this.write(run);
        } catch (err) {
          // Waiters must not hang on a disk error: they go on, the loss is logged.
          this.log.error(
            { err, dir: this.dir },
            "POP lease log rotation failed: leases may not survive a crash",
          );
          // What was taken is written or lost: only what is queued since counts.
          this.queuedBytes = 0;
          for (const item of this.queue) {
            if (item instanceof Uint8Array) this.queuedBytes += item.length;
            else for (const b of item.snapshot) this.queuedBytes += b.length;
          }
        }
        done.resolve();
      }
    } finally {
      this.running = false;
    }
  }

  private async write(chunks: Uint8Array[]): Promise<void> {
    if (chunks.length === 0) return;
    const buf = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
    this.queuedBytes -= buf.length;
    if (this.closed || !this.fh) {
      this.log.error({ bytes: buf.length }, "POP lease log is not open: records dropped");
      return;
    }
    try {
      let off = 0;
      if (buf.length <= WRITE_NOW_BYTES_MAX) {
        while (off < buf.length) off += writeSync(this.fh.fd, buf, off, buf.length - off);
      }
      while (off < buf.length) {
        const { bytesWritten } = await this.fh.write(buf, off, buf.length - off);
        off += bytesWritten;
      }
      this.written += buf.length;
    } catch (err) {
      this.log.error({ err, dir: this.dir }, "POP lease log write failed: leases may not survive a crash");
    }
  }

  private async switchTo(r: Rotation): Promise<void> {
    const old = this.fh;
    const next = await open(join(this.dir, fileName(r.seq)), "w");
    this.fh = next;
    this.written = 0;
    await this.write(r.snapshot);
    try {
      await next.datasync();
    } catch (err) {
      // Not known to be on disk: keep the older files, which recovery falls back to.
      this.log.error({ err, dir: this.dir }, "POP lease log snapshot not synced; older log files kept");
      await old?.close();
      return;
    }
    await old?.close();
    // Only now is the new file the recovery point; older ones can go.
    for (const f of await readdir(this.dir)) {
      const m = FILE_PATTERN.exec(f);
      if (m && Number(m[1]) < r.seq) await unlink(join(this.dir, f)).catch(() => {});
    }
  }
}
