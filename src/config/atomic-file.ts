/**
 * Whole-file replacement that never leaves a torn file: the new content goes to a temp file, is
 * fsynced, and is renamed over the old one; a failure at any step leaves the old file as it was.
 */
import { constants } from "node:fs";
import * as fsPromises from "node:fs/promises";
import { dirname } from "node:path";

/** The file-system calls atomicWriteFile makes; tests pass versions that fail on purpose. */
export interface AtomicWriteFs {
  mkdir: typeof fsPromises.mkdir;
  open: typeof fsPromises.open;
  copyFile: typeof fsPromises.copyFile;
  rename: typeof fsPromises.rename;
  unlink: typeof fsPromises.unlink;
}

export interface AtomicWriteOptions {
  /** Copy the previous version to `<path>.bak` first (RocketMQ's ConfigManager does). */
  readonly backup?: boolean;
  readonly fs?: AtomicWriteFs;
}

/** Opened with these flags and mode, the temp file starts empty whatever a failed write left. */
const TEMP_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC;
const FILE_MODE = 0o644;

export async function atomicWriteFile(
  path: string,
  data: string | Uint8Array,
  options: AtomicWriteOptions = {},
): Promise<void> {
  const fs = options.fs ?? fsPromises;
  const dir = dirname(path);
  await fs.mkdir(dir, { recursive: true });
  const tmp = `${path}.tmp`;
  try {
    const fh = await fs.open(tmp, TEMP_FLAGS, FILE_MODE);
    try {
      await fh.writeFile(data);
      await fh.sync();
    } finally {
      await fh.close();
    }
    // A missing previous version (first write) is not a failure.
    if (options.backup) await fs.copyFile(path, `${path}.bak`).catch(() => {});
    await fs.rename(tmp, path);
  } catch (err) {
    // Nothing half-written stays behind; the old file was never touched.
    await fs.unlink(tmp).catch(() => {});
    throw err;
  }
  // The rename is durable once the directory entry is; a failure here leaves a whole new file.
  const d = await fs.open(dir, "r");
  try {
    await d.sync();
  } finally {
    await d.close();
  }
}
