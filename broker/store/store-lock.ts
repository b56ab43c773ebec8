/**
 * The store's `lock` file (spec §5.4): one process at a time may open a store directory, since
 * two appenders on one CommitLog would overwrite each other's records. The lock is the kernel's
 * (`flock`, exclusive, non-blocking) on `storePathRootDir/lock`, so a killed broker never leaves
 * it behind, and a second store opened on the same directory, even in the same process, is refused.
 * RocketMQ takes an fcntl lock on the file's first byte; flock is the lock Bun can take without a
 * C struct, and both fail the second opener the same way.
 */
import { type FileHandle, open } from "node:fs/promises";
import { join } from "node:path";

const LOCK_EX = 2;
const LOCK_NB = 4;

type Flock = (fd: number, op: number) => number;

/** libc's flock through Bun's FFI, or undefined where it cannot be loaded (the store then runs unlocked). */
async function loadFlock(): Promise<Flock | undefined> {
  const libcName =
    process.platform === "linux" ? "libc.so.6" : process.platform === "darwin" ? "libc.dylib" : undefined;
  if (!libcName || typeof Bun === "undefined") return undefined;
  try {
    const { dlopen, FFIType } = await import("bun:ffi");
    const lib = dlopen(libcName, { flock: { args: [FFIType.i32, FFIType.i32], returns: FFIType.i32 } });
    return (fd, op) => lib.symbols.flock(fd, op);
  } catch {
    return undefined;
  }
}

let flock: Promise<Flock | undefined> | undefined;

export class StoreLockedError extends Error {
  constructor(readonly path: string) {
    super(`Lock failed, MQ already started: ${path} is held by another store`);
  }
}

export class StoreLock {
  private constructor(
    private readonly fh: FileHandle,
    /** False where no OS lock could be taken (the file is still written, as RocketMQ does). */
    readonly held: boolean,
  ) {}

  /** Takes the lock of the store at `root`, or throws StoreLockedError. */
  static async acquire(root: string): Promise<StoreLock> {
    const path = join(root, "lock");
    const fh = await open(path, "a+");
    flock ??= loadFlock();
    const lockFn = await flock;
    if (lockFn && lockFn(fh.fd, LOCK_EX | LOCK_NB) !== 0) {
      await fh.close();
      throw new StoreLockedError(path);
    }
    await fh.truncate(0);
    await fh.write("lock", 0);
    return new StoreLock(fh, lockFn !== undefined);
  }

  /** Releases the lock (closing the file releases it). */
  async release(): Promise<void> {
    await this.fh.close().catch(() => {});
  }
}
