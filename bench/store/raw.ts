/** Raw-disk ceilings for the store benchmark: the same bytes written sequentially, grouped like the store. */
import { mkdtemp, open, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

export async function benchDir(): Promise<{ path: string; [Symbol.asyncDispose](): Promise<void> }> {
  // The bench writes where the tests do; pass TMPDIR to measure another disk.
  const path = await mkdtemp(join(tmpdir(), "rocketbun-bench-"));
  return { path, [Symbol.asyncDispose]: () => rm(path, { recursive: true, force: true }) };
}

/**
 * Writes `n` records of `recordBytes` in groups of `group` records per write; with `sync`, one
 * fdatasync per group, else one at the end. Returns MB/s.
 */
export async function rawWrite(
  path: string,
  recordBytes: number,
  n: number,
  group: number,
  sync: boolean,
): Promise<number> {
  const fh = await open(path, "w");
  const buf = new Uint8Array(recordBytes * group).fill(0x62);
  const t0 = performance.now();
  let pos = 0;
  for (let done = 0; done < n; done += group) {
    const k = Math.min(group, n - done) * recordBytes;
    await fh.write(buf, 0, k, pos);
    pos += k;
    if (sync) await fh.datasync();
  }
  await fh.datasync();
  const secs = (performance.now() - t0) / 1000;
  await fh.close();
  await rm(path);
  return pos / secs / 2 ** 20;
}

export function fmt(n: number): string {
  return Math.round(n).toLocaleString("en-US");
}
