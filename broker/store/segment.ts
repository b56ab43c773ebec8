/**
 * One fixed-size, preallocated store file (a CommitLog or ConsumeQueue segment, spec §5.1, §6.1),
 * named by the 20-digit offset of its first byte. Created sparse at full size, so unwritten
 * bytes read as zeros, which is how recovery finds the end of the data (spec §5.5).
 */
import { constants, writevSync } from "node:fs";
import { type FileHandle, mkdir, open, stat, unlink } from "node:fs/promises";
import { dirname, join } from "node:path";
import { closedOnFailure, OpenAttempt } from "./open-attempt.ts";
import { uninitialized } from "./read-buffers.ts";

/** `UtilAll.offset2FileName`: 20-digit zero-padded decimal. */
export function offsetToFileName(offset: number): string {
  return String(offset).padStart(20, "0");
}

export class Segment {
  private handle: FileHandle | undefined;
  private closed = false;
  private isDestroyed = false;
  private readonly opening: OpenAttempt;

  private constructor(
    readonly start: number,
    readonly size: number,
    readonly path: string,
    create: boolean,
    /** The previous segment while this one is being created (see `create`). */
    private after?: Segment,
  ) {
    this.opening = new OpenAttempt(() => (create ? this.createFile() : this.openFile()));
  }

  /**
   * Settles when the file exists at full size; writes and reads wait for it. A failed creation
   * (descriptors exhausted, say) is attempted again by the next caller, not cached for good.
   */
  get ready(): Promise<void> {
    return this.opening.ready;
  }

  /**
   * Starts creating `<dir>/<20-digit start>`; the returned segment is usable at once. With
   * `after` (the previous segment), the file is created only once that one exists, so neither a
   * crash nor a failed creation leaves a gap before a later file: only the last file may be short.
   */
  static create(dir: string, start: number, size: number, after?: Segment): Segment {
    return new Segment(start, size, join(dir, offsetToFileName(start)), true, after);
  }

  static open(dir: string, start: number, size: number): Segment {
    return new Segment(start, size, join(dir, offsetToFileName(start)), false);
  }

  get end(): number {
    return this.start + this.size;
  }

  private async createFile(): Promise<void> {
    if (this.after && !this.after.destroyed) await this.after.ready;
    await mkdir(dirname(this.path), { recursive: true });
    const fh = await open(this.path, constants.O_RDWR | constants.O_CREAT, 0o644);
    await closedOnFailure(fh, async () => {
      const st = await fh.stat();
      if (st.size < this.size) await fh.truncate(this.size);
      // The size and the directory entry must be durable before data written into the file can be.
      await fh.sync();
      await syncDir(dirname(this.path));
    });
    this.handle = fh;
    this.after = undefined;
  }

  private async openFile(): Promise<void> {
    const fh = await open(this.path, "r+");
    await closedOnFailure(fh, async () => {
      const st = await fh.stat();
      if (st.size < this.size) await fh.truncate(this.size);
    });
    this.handle = fh;
  }

  private async fh(): Promise<FileHandle> {
    await this.ready;
    if (this.closed || !this.handle) throw new Error(`segment ${this.path} is closed`);
    return this.handle;
  }

  /** Writes `bufs` back to back at `pos` (relative to the file), retrying short writes. */
  async write(bufs: Uint8Array[], pos: number): Promise<void> {
    const fh = await this.fh();
    let at = pos;
    const rest = bufs.filter((b) => b.length > 0);
    while (rest.length > 0) {
      const { bytesWritten } = await fh.writev(rest, at);
      at += bytesWritten;
      let n = bytesWritten;
      while (rest.length > 0 && n >= rest[0]!.length) n -= rest.shift()!.length;
      if (rest.length > 0 && n > 0) rest[0] = rest[0]!.subarray(n);
    }
  }

  /**
   * `write`, done on the calling thread: a buffered write is a copy into the page cache (what
   * Java's put does into its mapped file) and costs a few microseconds, where the thread-pool hop
   * of `write` costs tens. Throws if the file is not open yet; the caller falls back to `write`.
   */
  writeNow(bufs: Uint8Array[], pos: number): void {
    const fd = this.handle?.fd;
    if (fd === undefined || this.closed) throw new Error(`segment ${this.path} is not open`);
    let at = pos;
    const rest = bufs.filter((b) => b.length > 0);
    while (rest.length > 0) {
      const n0 = writevSync(fd, rest, at);
      at += n0;
      let n = n0;
      while (rest.length > 0 && n >= rest[0]!.length) n -= rest.shift()!.length;
      if (rest.length > 0 && n > 0) rest[0] = rest[0]!.subarray(n);
    }
  }

  /** True once the file is open for `writeNow`. */
  get isOpen(): boolean {
    return this.handle !== undefined && !this.closed;
  }

  /** Reads `len` bytes at `pos` (relative to the file); bytes past the end read as zeros. */
  async read(pos: number, len: number): Promise<Uint8Array> {
    const out = uninitialized(len);
    await this.readInto(out, 0, pos, len);
    return out;
  }

  /**
   * Reads `len` bytes at `pos` (relative to the file) into `target` from `at`, so a caller can
   * gather several reads in one buffer; bytes past the end of the file are written as zeros, so
   * every byte of the range is set even in a buffer that was not zero-filled.
   */
  async readInto(target: Uint8Array, at: number, pos: number, len: number): Promise<void> {
    const fh = await this.fh();
    let got = 0;
    while (got < len) {
      const { bytesRead } = await fh.read(target, at + got, len - got, pos + got);
      if (bytesRead === 0) break;
      got += bytesRead;
    }
    if (got < len) target.fill(0, at + got, at + len);
  }

  async datasync(): Promise<void> {
    await (await this.fh()).datasync();
  }

  /** Zeroes everything from `pos` on by cutting the file and re-extending it (a sparse hole). */
  async zeroFrom(pos: number): Promise<void> {
    const fh = await this.fh();
    await fh.truncate(pos);
    await fh.truncate(this.size);
    await fh.sync();
  }

  async mtimeMs(): Promise<number> {
    return (await stat(this.path)).mtimeMs;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.opening.settled();
    await this.handle?.close().catch(() => {});
  }

  /** Deleted: nothing in it needs writing or syncing any more. */
  get destroyed(): boolean {
    return this.isDestroyed;
  }

  async destroy(): Promise<void> {
    this.isDestroyed = true;
    await this.close();
    await unlink(this.path).catch(() => {});
  }
}

/** fsyncs a directory so a file created or removed in it survives a power loss. */
export async function syncDir(dir: string): Promise<void> {
  const d = await open(dir, "r");
  try {
    await d.sync();
  } finally {
    await d.close();
  }
}
