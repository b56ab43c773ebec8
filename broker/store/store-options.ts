/**
 * The message store's configuration keys, under RocketMQ's MessageStoreConfig property names
 * (spec §5.3, §5.6, §6, §11.2), so the broker's full config object is structurally assignable.
 */

export type FlushDiskType = "ASYNC_FLUSH" | "SYNC_FLUSH";

export interface StoreOptions {
  /** Root of the store tree (spec §11.4). */
  readonly storePathRootDir: string;
  /** CommitLog directory; empty means `<storePathRootDir>/commitlog`. */
  readonly storePathCommitLog: string;
  /** Bytes per CommitLog file (spec §5.1). */
  readonly mappedFileSizeCommitLog: number;
  /** Bytes per ConsumeQueue file; rounded down to whole 20-byte units (spec §6.1). */
  readonly mappedFileSizeConsumeQueue: number;
  readonly flushDiskType: FlushDiskType;
  /** ASYNC_FLUSH: milliseconds between fsyncs of the CommitLog (spec §5.3). */
  readonly flushIntervalCommitLog: number;
  /** Milliseconds between ConsumeQueue/index/checkpoint flushes (spec §5.3). */
  readonly flushIntervalConsumeQueue: number;
  /**
   * A put waits at most this long for its write (and, SYNC_FLUSH, its sync) before it is answered
   * FLUSH_DISK_TIMEOUT (spec §5.3); only a failing or stalled disk makes it wait that long.
   */
  readonly syncFlushTimeout: number;
  /** Hours a CommitLog file is kept after its last write (spec §5.6). */
  readonly fileReservedTime: number;
  /** `;`-separated local hours in which time-based deletion runs, e.g. "04" (spec §5.6). */
  readonly deleteWhen: string;
  /** Disk usage percent that triggers deletion regardless of the hour (spec §5.6). */
  readonly diskMaxUsedSpaceRatio: number;
  /** Disk usage percent above which even unexpired files are deleted (clamped to 30..85). */
  readonly diskSpaceCleanForciblyRatio: number;
  /** Disk usage percent above which puts answer SERVICE_NOT_AVAILABLE (clamped to 35..90). */
  readonly diskSpaceWarningLevelRatio: number;
  /** Milliseconds between retention runs. */
  readonly cleanResourceInterval: number;
  /** Files deleted per retention run at most. */
  readonly deleteFileBatchMax: number;
  /** Largest message body in bytes (spec §1.7). */
  readonly maxMessageSize: number;
  readonly messageIndexEnable: boolean;
  /** Entries per index file (spec §6.4). */
  readonly maxIndexNum: number;
  /** Hash slots per index file (spec §6.4). */
  readonly maxHashSlotNum: number;
  /** Most hits a key query returns (spec §6.4 `maxMsgsNumBatch`). */
  readonly maxMsgsNumBatch: number;
  /** Verify body CRCs during recovery (spec §4.4). */
  readonly checkCRCOnRecover: boolean;
  /** Delay levels, e.g. "1s 5s 10s"; used for SCHEDULE_TOPIC_XXXX tags codes (spec §9.5). */
  readonly messageDelayLevel: string;
  /** Minimum ConsumeQueue bytes a pull scans (spec §7.5). */
  readonly maxFilterMessageSize: number;
  /** Appended but not yet written bytes at most; puts wait for the writer above it. */
  readonly writeBufferBytesMax: number;
  /** Puts waiting for a SYNC_FLUSH at most; more answer OS_PAGE_CACHE_BUSY. */
  readonly syncFlushWaitersMax: number;
  /** ASYNC_FLUSH: unsynced written bytes that start a sync at once (see CommitLogFlusher). */
  readonly asyncFlushBytes: number;
  /** Largest single CommitLog read a pull issues, in bytes. */
  readonly readSpanBytesMax: number;
}

/** RocketMQ's defaults (spec §5.3, §5.6, §11.2), rooted at `./store` until the broker sets the path. */
export const DEFAULT_STORE_OPTIONS: StoreOptions = {
  storePathRootDir: "store",
  storePathCommitLog: "",
  mappedFileSizeCommitLog: 1024 * 1024 * 1024,
  mappedFileSizeConsumeQueue: 300_000 * 20,
  flushDiskType: "ASYNC_FLUSH",
  flushIntervalCommitLog: 500,
  flushIntervalConsumeQueue: 1000,
  syncFlushTimeout: 5000,
  fileReservedTime: 72,
  deleteWhen: "04",
  diskMaxUsedSpaceRatio: 75,
  diskSpaceCleanForciblyRatio: 85,
  diskSpaceWarningLevelRatio: 90,
  cleanResourceInterval: 10_000,
  deleteFileBatchMax: 10,
  maxMessageSize: 4 * 1024 * 1024,
  messageIndexEnable: true,
  maxIndexNum: 20_000_000,
  maxHashSlotNum: 5_000_000,
  maxMsgsNumBatch: 64,
  checkCRCOnRecover: true,
  messageDelayLevel: "1s 5s 10s 30s 1m 2m 3m 4m 5m 6m 7m 8m 9m 10m 20m 30m 1h 2h",
  maxFilterMessageSize: 16_000,
  writeBufferBytesMax: 256 * 1024 * 1024,
  syncFlushWaitersMax: 100_000,
  asyncFlushBytes: 16 * 1024 * 1024,
  readSpanBytesMax: 4 * 1024 * 1024,
};

export function commitLogDir(o: StoreOptions): string {
  return o.storePathCommitLog || `${o.storePathRootDir}/commitlog`;
}

/** Delay level (1-based) → milliseconds, parsed from `messageDelayLevel` (spec §9.4). */
export function parseDelayLevels(text: string): number[] {
  const unit: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
  return text
    .trim()
    .split(/\s+/)
    .filter((t) => t.length > 0)
    .map((t) => {
      const n = Number(t.slice(0, -1));
      const u = unit[t.slice(-1)];
      if (!Number.isFinite(n) || u === undefined) throw new Error(`bad delay level: ${t}`);
      return n * u;
    });
}
