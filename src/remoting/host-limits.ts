/**
 * What the host lets this process hold (open descriptors, memory), read from Linux's /proc and
 * cgroup files, and the server limits derived from it when the configuration leaves them at 0.
 * Off Linux the files are missing and the fallbacks below apply.
 */
import { readdirSync, readFileSync } from "node:fs";
import { totalmem } from "node:os";

/**
 * Descriptors kept back from client connections for everything else the process opens: store
 * segments (one per commit-log file and per consume-queue file in use), index files, the
 * checkpoint, outbound connections, stdio. A quarter of the limit, at least 64.
 */
export const DESCRIPTOR_RESERVE_FRACTION = 0.25;
export const DESCRIPTOR_RESERVE_MIN = 64;
/** Used when the descriptor limit cannot be read (not Linux). */
export const FALLBACK_CONNECTIONS_MAX = 10_000;

/**
 * Share of the process's memory that buffers held for clients (unsent responses, partial frames,
 * held pulls) may use; the rest is for the store, the heap and garbage not yet collected.
 */
export const BUFFER_MEMORY_FRACTION = 0.25;
export const BUFFER_BYTES_AUTO_MIN = 64 * 1024 * 1024;
export const BUFFER_BYTES_AUTO_MAX = 1024 * 1024 * 1024;

/** A cgroup limit at or above this means "no limit" (cgroup v1 writes 2^63 rounded to pages). */
const CGROUP_UNLIMITED_BYTES = 2 ** 60;

/** The soft "Max open files" of a /proc/<pid>/limits text; undefined when absent or unlimited. */
export function parseOpenFilesLimit(limitsText: string): number | undefined {
  const line = limitsText.split("\n").find((l) => l.startsWith("Max open files"));
  const soft = line?.slice("Max open files".length).trim().split(/\s+/)[0];
  const n = Number(soft);
  return Number.isInteger(n) && n > 0 ? n : undefined;
}

/** This process's soft RLIMIT_NOFILE (Bun raises it to the hard limit at start-up). */
export function readOpenFilesLimit(): number | undefined {
  const text = readOptional("/proc/self/limits");
  return text === undefined ? undefined : parseOpenFilesLimit(text);
}

/** Descriptors this process has open now; undefined off Linux. Costs one directory read. */
export function countOpenDescriptors(): number | undefined {
  try {
    return readdirSync("/proc/self/fd").length;
  } catch {
    return undefined;
  }
}

/** Memory this process may use: its cgroup's limit (v2, then v1) if there is one, else RAM. */
export function readMemoryLimitBytes(): number {
  const ram = totalmem();
  for (const path of ["/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"]) {
    const n = Number(readOptional(path)?.trim());
    if (Number.isFinite(n) && n > 0 && n < CGROUP_UNLIMITED_BYTES) return Math.min(n, ram);
  }
  return ram;
}

/** Client connections the servers of a process may hold with `openFilesLimit` descriptors. */
export function connectionsMaxFor(openFilesLimit: number | undefined): number {
  if (openFilesLimit === undefined) return FALLBACK_CONNECTIONS_MAX;
  const reserve = Math.max(DESCRIPTOR_RESERVE_MIN, Math.ceil(openFilesLimit * DESCRIPTOR_RESERVE_FRACTION));
  return Math.max(1, openFilesLimit - reserve);
}

/** Bytes the servers of a process may buffer for clients with `memoryBytes` to live in. */
export function bufferBytesMaxFor(memoryBytes: number): number {
  const share = Math.floor(memoryBytes * BUFFER_MEMORY_FRACTION);
  return Math.min(BUFFER_BYTES_AUTO_MAX, Math.max(BUFFER_BYTES_AUTO_MIN, share));
}

function readOptional(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}
