/**
 * Retention (spec §5.6): deletes expired CommitLog files oldest first, never the newest, then
 * trims consume queues and index files to the new CommitLog minimum.
 */
import type { Logger } from "../../src/log.ts";
import type { CommitLog } from "./commitlog.ts";
import type { ConsumeQueueStore } from "./consume-queue-store.ts";
import type { IndexService } from "./index-service.ts";
import type { StoreOptions } from "./store-options.ts";

export type RetentionOptions = Pick<
  StoreOptions,
  | "fileReservedTime"
  | "deleteWhen"
  | "diskMaxUsedSpaceRatio"
  | "diskSpaceCleanForciblyRatio"
  | "deleteFileBatchMax"
>;

/** Is the local hour of `now` one of `deleteWhen`'s `;`-separated hours? */
export function isDeleteHour(deleteWhen: string, now: number): boolean {
  const hour = new Date(now).getHours();
  return deleteWhen.split(";").some((h) => h.trim() !== "" && Number(h) === hour);
}

/** `diskSpaceCleanForciblyRatio` clamped to [30, 85] percent (spec §5.6). */
export function forciblyRatio(o: RetentionOptions): number {
  return Math.min(85, Math.max(30, o.diskSpaceCleanForciblyRatio));
}

export interface RetentionRun {
  readonly commitLogFiles: number;
  readonly consumeQueueFiles: number;
  readonly indexFiles: number;
}

/**
 * One retention run. `diskUsedPercent` is the CommitLog partition's usage; `flushedOffset` is
 * where the CommitLog is durable up to. `force` (the admin trigger) deletes expired files
 * regardless of hour and usage.
 */
export async function runRetention(
  o: RetentionOptions,
  cl: CommitLog,
  cqs: ConsumeQueueStore,
  index: IndexService | undefined,
  now: number,
  diskUsedPercent: number,
  flushedOffset: number,
  force: boolean,
  log: Logger,
): Promise<RetentionRun> {
  const timeUp = force || isDeleteHour(o.deleteWhen, now);
  const spaceFull = diskUsedPercent > o.diskMaxUsedSpaceRatio;
  const cleanImmediately = diskUsedPercent > forciblyRatio(o);
  let deleted = 0;
  if (timeUp || spaceFull) {
    const reserveMs = o.fileReservedTime * 3_600_000;
    while (deleted < o.deleteFileBatchMax && cl.segments.segments.length > 1) {
      const first = cl.segments.first!;
      // Files are only ever deleted once dispatch and the flusher have passed them: the flusher
      // would fail for good syncing a file deleted under it, and every put would be refused.
      if (first.end > cl.dispatchedOffset || first.end > flushedOffset) break;
      const expired = (await first.mtimeMs()) + reserveMs <= now;
      if (!expired && !cleanImmediately) break;
      await cl.segments.deleteFirst();
      deleted++;
    }
  }
  if (deleted > 0) log.info({ deleted, minOffset: cl.minOffset }, "retention: deleted commitlog files");
  const consumeQueueFiles = await cqs.deleteExpired(cl.minOffset);
  const indexFiles = (await index?.deleteExpired(cl.minOffset)) ?? 0;
  return { commitLogFiles: deleted, consumeQueueFiles, indexFiles };
}
