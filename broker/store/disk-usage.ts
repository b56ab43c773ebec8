/**
 * How full the partition holding a store directory is, as Java's
 * UtilAll.getDiskPartitionSpaceUsedPercent answers it: used = total − free blocks, against
 * used + blocks available to an unprivileged writer (so blocks reserved for root count as neither,
 * as `df` shows them), in whole percents rounded up. Retention (`diskMaxUsedSpaceRatio`,
 * `diskSpaceCleanForciblyRatio`), the disk-full guard and GET_BROKER_RUNTIME_INFO's
 * `commitLogDiskRatio` / `consumeQueueDiskRatio` all read this one figure, as Java's do.
 */
import { statfs } from "node:fs/promises";

/** Used share of `dir`'s partition in whole percents rounded up (0–100); -1 when it cannot be read. */
export async function diskUsedPercent(dir: string): Promise<number> {
  try {
    const s = await statfs(dir);
    return usedPercentOf(s.blocks, s.bfree, s.bavail);
  } catch {
    return -1;
  }
}

/** The arithmetic alone, on block counts: total, free (root included) and available to others. */
export function usedPercentOf(blocks: number, free: number, available: number): number {
  const used = blocks - free;
  const entire = used + available;
  if (blocks <= 0 || entire <= 0) return -1;
  return Math.ceil((used * 100) / entire);
}

/** The runtime-info form: a ratio with two decimals ("0.35"), or -1.0 when unknown. */
export function ratioText(percent: number): string {
  const ratio = percent < 0 ? -1 : percent / 100;
  // Java's String.valueOf(double) writes whole numbers with ".0".
  return Number.isInteger(ratio) ? ratio.toFixed(1) : String(ratio);
}
