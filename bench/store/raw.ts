/** Raw-disk ceilings for the store benchmark: the same bytes written sequentially, grouped like the store. */
import { mkdtemp, open, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

export async function benchDir(): Promise<{ path: string; [Symbol.asyncDispose](): Promise<void> }> {
  // The bench writes where the tests do; pass TMPDIR to measure another disk.
  const path = await mkdtemp(join(tmpdir(), "rocketbun-bench-"));
  return { path, [Symbol.asyncDispose]: () => rm(path, { recursive: true, force: true }) };
}

/** How the store handed a run's bytes to the OS: the flusher's counters over that run. */
export interface WritePattern {
  readonly bytes: number;
  readonly writes: number;
  readonly syncs: number;
}

/**
 * Replays `p` on a fresh file: `p.bytes` in `p.writes` equal sequential writes, with `p.syncs`
 * fdatasyncs spread evenly between them and the last one after the last write (the store's run
 * also ends with one). Returns MB/s.
 */
export async function rawWrite(path: string, p: WritePattern): Promise<number> {
  const fh = await open(path, "w");
  const writes = Math.max(1, p.writes);
  const syncs = Math.max(1, Math.min(p.syncs, writes));
  const size = Math.ceil(p.bytes / writes);
  const buf = new Uint8Array(size).fill(0x62);
  const t0 = performance.now();
  let pos = 0;
  let synced = 0;
  for (let w = 1; w <= writes; w++) {
    const k = Math.min(size, p.bytes - pos);
    if (k > 0) await fh.write(buf, 0, k, pos);
    pos += k;
    // Sync after write w when the even spread says the next sync is due.
    if (Math.floor((w * syncs) / writes) > synced) {
      await fh.datasync();
      synced++;
    }
  }
  const secs = (performance.now() - t0) / 1000;
  await fh.close();
  await rm(path);
  return pos / secs / 2 ** 20;
}

export function fmt(n: number): string {
  return Math.round(n).toLocaleString("en-US");
}
