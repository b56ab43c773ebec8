/**
 * RocketMQ's MessageStoreConfig keys (paths, segment sizes, flushing, retention, roles, index, timer)
 * with their defaults. Java keys RocketBun does not model are accepted and ignored.
 */
import { homedir } from "node:os";
import { join } from "node:path";
import { checkDelayLevels, checkHours, checkNonEmpty } from "./checks.ts";
import { MESSAGE_STORE_CONFIG_IGNORED_KEYS } from "./java-ignored-keys.ts";
import { type ConfigOf, defineSection } from "./schema.ts";

export const DEFAULT_MAPPED_FILE_SIZE_COMMIT_LOG = 1024 * 1024 * 1024;
/** 300 000 consume-queue units of 20 bytes. */
export const DEFAULT_MAPPED_FILE_SIZE_CONSUME_QUEUE = 300_000 * 20;
export const DEFAULT_MAX_MESSAGE_SIZE = 4 * 1024 * 1024;
export const DEFAULT_FLUSH_INTERVAL_COMMIT_LOG_MS = 500;
export const DEFAULT_FILE_RESERVED_TIME_HOURS = 72;
export const DEFAULT_DELETE_WHEN = "04";
export const DEFAULT_DISK_MAX_USED_SPACE_RATIO = 75;
export const DEFAULT_MESSAGE_DELAY_LEVEL = "1s 5s 10s 30s 1m 2m 3m 4m 5m 6m 7m 8m 9m 10m 20m 30m 1h 2h";
export const FLUSH_DISK_TYPES = ["ASYNC_FLUSH", "SYNC_FLUSH"] as const;
export const BROKER_ROLES = ["ASYNC_MASTER", "SYNC_MASTER", "SLAVE"] as const;

/** `<home>/store`, Java's default storePathRootDir. */
export const storePathRootDirUnder = (home: string): string => join(home, "store");

const NO_EFFECT = "accepted for compatibility with RocketMQ files; no effect in RocketBun";
const ms = { min: 1 } as const;

/**
 * Apache rounds timer due times to whole seconds (timerPrecisionMs 1000); RocketBun keeps them to
 * the millisecond by default, so a timer fires within the timer service's wake-up latency.
 */
export const DEFAULT_TIMER_PRECISION_MS = 1;

export const messageStoreConfig = defineSection(
  "messageStoreConfig",
  {
    storePathRootDir: {
      type: "string",
      check: checkNonEmpty,
      default: storePathRootDirUnder(homedir()),
      important: true,
      doc: "store root; defaults to <rocketbunHome>/store",
    },
    storePathCommitLog: {
      type: "string",
      default: "",
      important: true,
      doc: "commit log directory; defaults to <storePathRootDir>/commitlog",
    },
    mappedFileSizeCommitLog: {
      type: "int",
      default: DEFAULT_MAPPED_FILE_SIZE_COMMIT_LOG,
      min: 4096,
      doc: "bytes per commit log segment",
    },
    mappedFileSizeConsumeQueue: {
      type: "int",
      default: DEFAULT_MAPPED_FILE_SIZE_CONSUME_QUEUE,
      min: 20,
      doc: "bytes per consume queue file (rounded to whole 20-byte units)",
    },
    mappedFileSizeTimerLog: {
      type: "int",
      default: 100 * 1024 * 1024,
      min: 4096,
      doc: "bytes per timer log file",
    },
    flushDiskType: {
      type: "enum",
      default: "ASYNC_FLUSH",
      enumValues: FLUSH_DISK_TYPES,
      important: true,
      doc: "SYNC_FLUSH answers a send after fsync; ASYNC_FLUSH flushes in the background",
    },
    flushIntervalCommitLog: {
      type: "int",
      default: DEFAULT_FLUSH_INTERVAL_COMMIT_LOG_MS,
      ...ms,
      important: true,
      doc: "ms between background commit log flushes",
    },
    flushCommitLogLeastPages: { type: "int", default: 4, min: 0, doc: "4 KiB pages needed before a flush" },
    flushCommitLogThoroughInterval: {
      type: "int",
      default: 10_000,
      ...ms,
      doc: "ms after which any dirty page flushes",
    },
    flushCommitLogTimed: {
      type: "bool",
      default: true,
      important: true,
      doc: "flush on a timer, not on wake-up",
    },
    commitIntervalCommitLog: { type: "int", default: 200, ...ms, important: true, doc: NO_EFFECT },
    flushIntervalConsumeQueue: { type: "int", default: 1000, ...ms, doc: "ms between consume queue flushes" },
    flushConsumeQueueLeastPages: { type: "int", default: 2, min: 0, doc: "pages needed before a flush" },
    flushConsumeQueueThoroughInterval: {
      type: "int",
      default: 60_000,
      ...ms,
      doc: "ms after which any dirty page flushes",
    },
    syncFlushTimeout: { type: "int", default: 5000, ...ms, doc: "SYNC_FLUSH wait before FLUSH_DISK_TIMEOUT" },
    putMessageTimeout: { type: "int", default: 8000, ...ms, doc: "ms a put may wait for flush or replicas" },
    fileReservedTime: {
      type: "int",
      default: DEFAULT_FILE_RESERVED_TIME_HOURS,
      min: 0,
      important: true,
      doc: "hours a commit log segment is kept",
    },
    deleteWhen: {
      type: "string",
      default: DEFAULT_DELETE_WHEN,
      important: true,
      check: checkHours,
      doc: "hours of the day when expired files are deleted, separated by ';'",
    },
    diskMaxUsedSpaceRatio: {
      type: "int",
      default: DEFAULT_DISK_MAX_USED_SPACE_RATIO,
      min: 10,
      max: 95,
      doc: "% disk use above which expired files are deleted at any hour",
    },
    diskSpaceWarningLevelRatio: {
      type: "int",
      default: 90,
      min: 0,
      max: 100,
      doc: "% disk use that refuses writes",
    },
    diskSpaceCleanForciblyRatio: {
      type: "int",
      default: 85,
      min: 0,
      max: 100,
      doc: "% disk use that forces cleaning",
    },
    cleanFileForciblyEnable: {
      type: "bool",
      default: true,
      important: true,
      doc: "delete unexpired files when full",
    },
    cleanResourceInterval: { type: "int", default: 10_000, ...ms, doc: "ms between retention checks" },
    deleteCommitLogFilesInterval: {
      type: "int",
      default: 100,
      min: 0,
      doc: "ms between two segment deletions",
    },
    deleteConsumeQueueFilesInterval: {
      type: "int",
      default: 100,
      min: 0,
      doc: "ms between two queue file deletions",
    },
    destroyMapedFileIntervalForcibly: {
      type: "int",
      default: 120_000,
      min: 0,
      doc: "ms before a busy file is forced",
    },
    redeleteHangedFileInterval: {
      type: "int",
      default: 120_000,
      min: 0,
      doc: "ms between retries of a hung delete",
    },
    deleteFileBatchMax: {
      type: "int",
      default: 10,
      min: 1,
      important: true,
      doc: "segments deleted per round",
    },
    maxMessageSize: {
      type: "int",
      default: DEFAULT_MAX_MESSAGE_SIZE,
      min: 1,
      doc: "largest body accepted, bytes",
    },
    maxTopicLength: { type: "int", default: 127, min: 1, max: 32767, doc: "longest topic name accepted" },
    checkCRCOnRecover: { type: "bool", default: true, doc: "verify body CRCs during recovery" },
    maxRecoveryCommitlogFiles: { type: "int", default: 30, min: 1, doc: "segments scanned back on recovery" },
    brokerRole: {
      type: "enum",
      default: "ASYNC_MASTER",
      enumValues: BROKER_ROLES,
      important: true,
      doc: "ASYNC_MASTER, SYNC_MASTER or SLAVE",
    },
    haListenPort: { type: "int", default: 0, min: 0, max: 65535, doc: "HA port; defaults to listenPort + 1" },
    haMasterAddress: { type: "string", default: "", important: true, doc: "a slave's master HA address" },
    messageDelayLevel: {
      type: "string",
      default: DEFAULT_MESSAGE_DELAY_LEVEL,
      check: checkDelayLevels,
      doc: "delay levels 1..n for delayed messages",
    },
    messageIndexEnable: {
      type: "bool",
      default: true,
      important: true,
      doc: "build the key/unique-key index",
    },
    messageIndexSafe: {
      type: "bool",
      default: false,
      important: true,
      doc: "recover the index conservatively",
    },
    maxHashSlotNum: { type: "int", default: 5_000_000, min: 1, doc: "hash slots per index file" },
    maxIndexNum: { type: "int", default: 20_000_000, min: 1, doc: "entries per index file" },
    maxMsgsNumBatch: { type: "int", default: 64, min: 1, doc: "most results of QUERY_MESSAGE" },
    defaultQueryMaxNum: { type: "int", default: 32, min: 1, doc: "QUERY_MESSAGE results when none asked" },
    maxTransferBytesOnMessageInMemory: {
      type: "int",
      default: 256 * 1024,
      min: 1,
      important: true,
      doc: "pull reply bytes when hot",
    },
    maxTransferCountOnMessageInMemory: {
      type: "int",
      default: 32,
      min: 1,
      important: true,
      doc: "pull reply count when hot",
    },
    maxTransferBytesOnMessageInDisk: {
      type: "int",
      default: 64 * 1024,
      min: 1,
      important: true,
      doc: "bytes when cold",
    },
    maxTransferCountOnMessageInDisk: {
      type: "int",
      default: 8,
      min: 1,
      important: true,
      doc: "pull reply count when cold",
    },
    accessMessageInMemoryMaxRatio: {
      type: "int",
      default: 40,
      min: 0,
      max: 100,
      important: true,
      doc: "% of RAM behind the commit log tail counted as hot",
    },
    transientStorePoolEnable: { type: "bool", default: false, important: true, doc: NO_EFFECT },
    transientStorePoolSize: { type: "int", default: 5, min: 0, doc: NO_EFFECT },
    useReentrantLockWhenPutMessage: { type: "bool", default: true, doc: NO_EFFECT },
    warmMapedFileEnable: { type: "bool", default: false, doc: "pre-touch new commit log segments" },
    timerWheelEnable: { type: "bool", default: true, doc: "accept timer (5.x delayed) messages" },
    timerMaxDelaySec: { type: "int", default: 3 * 24 * 3600, min: 1, doc: "longest timer delay, seconds" },
    timerPrecisionMs: {
      type: "int",
      default: DEFAULT_TIMER_PRECISION_MS,
      ...ms,
      doc: "timer due times are rounded up to this (Apache: 1000; 1 = deliver at the due ms)",
    },
    timerFlushIntervalMs: {
      type: "int",
      default: 1000,
      ...ms,
      doc: "longest ms between timer progress writes when idle",
    },
    flushDelayOffsetInterval: {
      type: "int",
      default: 10_000,
      ...ms,
      doc: "longest ms between delayOffset.json writes when idle",
    },
  },
  { ignoredKeys: MESSAGE_STORE_CONFIG_IGNORED_KEYS },
);

export type MessageStoreConfig = ConfigOf<typeof messageStoreConfig>;
