/**
 * The file-backed MessageStore (RocketMQ's DefaultMessageStore): composes CommitLog, flusher,
 * dispatch, consume queues, index, checkpoint, recovery and retention over the spec §11.4 layout.
 */
import { existsSync } from "node:fs";
import { mkdir, unlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type Logger, logger } from "../../src/log.ts";
import { isConsumeQueueDispatched, type PreparedRecord } from "../../src/protocol/message/index.ts";
import { AppendResult } from "./append-result.ts";
import { Checkpoint } from "./checkpoint.ts";
import { CommitLog } from "./commitlog.ts";
import { CommitLogFlusher } from "./commitlog-flush.ts";
import { ConsumeQueueStore } from "./consume-queue-store.ts";
import { diskUsedPercent } from "./disk-usage.ts";
import { Dispatcher, type MessageArrivedListener } from "./dispatch.ts";
import { dispatchRequestOf } from "./dispatch-request.ts";
import { IndexService } from "./index-service.ts";
import type {
  GetMessageResult,
  MessageFilter,
  MessageStore,
  MessageToStore,
  PutMessageResult,
  QueryMessageResult,
  QueueUnit,
  StoreDiskUsage,
  StoreRuntimeStats,
} from "./message-store.ts";
import { prepareForStore, sameQueue, waitStoreMsgOk } from "./put-message.ts";
import {
  getMessageFrom,
  type LogView,
  offsetByTime,
  readQueueUnitsOf,
  recordStoreTimestamp,
} from "./reads.ts";
import { RecordReader } from "./record-reader.ts";
import { type RecoveryReport, recover } from "./recovery.ts";
import { runRetention } from "./retention.ts";
import { BoundaryType, PutMessageStatus } from "./status.ts";
import { StoreLock } from "./store-lock.ts";
import { commitLogDir, DEFAULT_STORE_OPTIONS, parseDelayLevels, type StoreOptions } from "./store-options.ts";
import { StoreStats } from "./store-stats.ts";

export interface FileStoreDeps {
  readonly log?: Logger;
  readonly now?: () => number;
  /** Used percent (0..100) of the partition holding `dir`; statfs by default. */
  readonly diskUsedPercent?: (dir: string) => Promise<number>;
  /** Milliseconds between recovery progress lines; tests set it small. */
  readonly recoveryProgressIntervalMs?: number;
}

export class FileMessageStore implements MessageStore {
  readonly options: StoreOptions;
  readonly cl: CommitLog;
  readonly cqs: ConsumeQueueStore;
  readonly index: IndexService | undefined;
  readonly checkpoint: Checkpoint;
  readonly dispatcher: Dispatcher;
  readonly flusher: CommitLogFlusher;
  readonly reader: RecordReader;
  recoveryReport: RecoveryReport | undefined;
  private readonly log: Logger;
  private readonly now: () => number;
  private readonly diskUsedPercent: (dir: string) => Promise<number>;
  private readonly recoveryProgressIntervalMs: number | undefined;
  private readonly queueOffsets = new Map<string, number[]>();
  private readonly timers: ReturnType<typeof setInterval>[] = [];
  private diskFull = false;
  private running = false;
  private logicsFlushing: Promise<void> | undefined;
  private readonly stats = new StoreStats();
  private chunksSeen = 0;
  private storeLock: StoreLock | undefined;

  constructor(
    options: Partial<StoreOptions> & Pick<StoreOptions, "storePathRootDir">,
    deps: FileStoreDeps = {},
  ) {
    this.options = { ...DEFAULT_STORE_OPTIONS, ...options };
    const o = this.options;
    this.log = deps.log ?? logger("store");
    this.now = deps.now ?? Date.now;
    this.diskUsedPercent = deps.diskUsedPercent ?? diskUsedPercent;
    this.recoveryProgressIntervalMs = deps.recoveryProgressIntervalMs;
    this.cl = new CommitLog(commitLogDir(o), o.mappedFileSizeCommitLog);
    this.cqs = new ConsumeQueueStore(join(o.storePathRootDir, "consumequeue"), o.mappedFileSizeConsumeQueue);
    this.index = o.messageIndexEnable
      ? new IndexService(
          join(o.storePathRootDir, "index"),
          o.maxHashSlotNum,
          o.maxIndexNum,
          this.log,
          this.now,
        )
      : undefined;
    this.checkpoint = new Checkpoint(join(o.storePathRootDir, "checkpoint"));
    this.dispatcher = new Dispatcher(this.cqs, this.index, parseDelayLevels(o.messageDelayLevel), (err) =>
      this.log.error({ err }, "message-arrived listener threw"),
    );
    this.flusher = new CommitLogFlusher(this.cl, o, this.log, this.now);
    this.flusher.onWritten = () => this.dispatcher.reput(this.cl);
    this.reader = new RecordReader(this.cl, this.index, o.readSpanBytesMax);
  }

  private get abortPath(): string {
    return join(this.options.storePathRootDir, "abort");
  }

  /**
   * Takes the store's lock, then recovers and starts the background work. Throws
   * StoreLockedError if another store holds the directory.
   */
  async open(): Promise<void> {
    await mkdir(this.options.storePathRootDir, { recursive: true });
    this.storeLock = await StoreLock.acquire(this.options.storePathRootDir);
    if (!this.storeLock.held)
      this.log.warn("no OS file lock on this platform: nothing stops a second store on this directory");
    try {
      await this.openLocked();
    } catch (err) {
      await this.releaseLock();
      throw err;
    }
  }

  /** Releases the directory lock; shutdown does this, and so does a test simulating a crash. */
  async releaseLock(): Promise<void> {
    await this.storeLock?.release();
    this.storeLock = undefined;
  }

  private async openLocked(): Promise<void> {
    const o = this.options;
    const abnormal = existsSync(this.abortPath);
    await this.checkpoint.load();
    await this.cl.segments.load();
    await this.cqs.load();
    await this.index?.load();
    const started = performance.now();
    this.recoveryReport = await recover(
      {
        cl: this.cl,
        cqs: this.cqs,
        index: this.index,
        checkpoint: this.checkpoint,
        dispatcher: this.dispatcher,
        checkCrc: o.checkCRCOnRecover,
        log: this.log,
        progressIntervalMs: this.recoveryProgressIntervalMs,
      },
      abnormal,
    );
    for (const cq of this.cqs.all()) this.queueOffsetsOf(cq.topic)[cq.queueId] = cq.maxOffset;
    this.cl.lastStoreTimestamp = Math.max(
      this.cl.lastStoreTimestamp,
      this.checkpoint.values.physicMsgTimestamp,
    );
    await this.flushLogics();
    this.log.info({ ...this.recoveryReport, ms: Math.round(performance.now() - started) }, "store recovered");
    // The abort file marks "running": present at the next start means we did not shut down cleanly.
    await writeFile(this.abortPath, String(process.pid));
    this.flusher.start();
    this.every(o.flushIntervalConsumeQueue, () => {
      this.cl.trimSpareBuffers();
      return this.flushLogics();
    });
    this.every(o.cleanResourceInterval, () => this.deleteExpiredFiles(false).then(() => undefined));
    await this.checkDisk();
    this.running = true;
    this.stats.boot = this.now();
  }

  private every(ms: number, fn: () => Promise<void>): void {
    const t = setInterval(() => {
      fn().catch((err) => this.log.error({ err }, "store background task failed"));
    }, ms);
    t.unref?.();
    this.timers.push(t);
  }

  private async checkDisk(): Promise<number> {
    const used = await this.diskUsedPercent(this.cl.segments.dir).catch(() => -1);
    const warning = Math.min(90, Math.max(35, this.options.diskSpaceWarningLevelRatio));
    const full = used > warning;
    if (full !== this.diskFull)
      this.log.warn({ used }, full ? "disk full: refusing puts" : "disk usable again");
    this.diskFull = full;
    return used;
  }

  /** Why puts are refused right now, if they are. */
  private unavailable(): PutMessageStatus | undefined {
    if (!this.running || this.diskFull || this.flusher.lastError)
      return PutMessageStatus.SERVICE_NOT_AVAILABLE;
    return undefined;
  }

  putMessage(msg: MessageToStore): Promise<PutMessageResult> {
    return this.put([msg], waitStoreMsgOk(msg));
  }

  async putMessages(batch: readonly MessageToStore[]): Promise<PutMessageResult> {
    if (!sameQueue(batch)) return { status: PutMessageStatus.MESSAGE_ILLEGAL };
    return this.put(batch, waitStoreMsgOk(batch[0]!));
  }

  /**
   * Appends at once when nothing holds puts back; otherwise waits for the flusher's turn or for
   * the write buffer to drain first. Not an async function: the common path allocates no
   * coroutine, only the promise it returns.
   */
  private put(msgs: readonly MessageToStore[], wait: boolean): Promise<PutMessageResult> {
    if (this.flusher.gate || this.cl.bufferedBytes > this.options.writeBufferBytesMax)
      return this.putWhenReady(msgs, wait);
    try {
      return this.append(msgs, wait);
    } catch (err) {
      // As an async function would: a failure is a rejected promise, never a throw at the caller.
      return Promise.reject(err);
    }
  }

  private async putWhenReady(msgs: readonly MessageToStore[], wait: boolean): Promise<PutMessageResult> {
    if (this.flusher.gate) await this.flusher.gate;
    if (this.cl.bufferedBytes > this.options.writeBufferBytesMax && !this.unavailable())
      await this.flusher.waitBufferBelow(this.options.writeBufferBytesMax);
    return this.append(msgs, wait);
  }

  /** Assigns offsets and places the bytes in one synchronous run (the serial append path). */
  private append(msgs: readonly MessageToStore[], wait: boolean): Promise<PutMessageResult> {
    const refused = this.unavailable();
    if (refused) return Promise.resolve(this.fail(refused));
    const preps: PreparedRecord[] = [];
    for (const m of msgs) {
      const p = prepareForStore(m, this.options.maxMessageSize);
      if (typeof p === "string") return Promise.resolve(this.fail(p));
      preps.push(p);
    }
    const first = msgs[0]!;
    const dispatched = isConsumeQueueDispatched(preps[0]!.sysFlag);
    const offsets = dispatched ? this.queueOffsetsOf(first.topic) : undefined;
    const queueOffset = offsets ? (offsets[first.queueId] ?? 0) : 0;
    const storeTimestamp = this.cl.nextStoreTimestamp(this.now());
    const phy = this.cl.append(preps, queueOffset, dispatched, storeTimestamp);
    if (phy === undefined) return Promise.resolve(this.fail(PutMessageStatus.MESSAGE_ILLEGAL));
    if (offsets) offsets[first.queueId] = queueOffset + msgs.length;
    let wrote = 0;
    for (let i = 0; i < preps.length; i++) {
      const p = preps[i]!;
      const m = msgs[i]!;
      const size = p.totalSize;
      this.dispatcher.enqueue(
        dispatchRequestOf(
          m.topic,
          m.queueId,
          phy + wrote,
          size,
          storeTimestamp,
          dispatched ? queueOffset + i : 0,
          p.sysFlag,
          m.preparedTransactionOffset,
          m.properties,
          this.dispatcher.delayLevelsMs,
        ),
      );
      wrote += size;
    }
    this.stats.puts += msgs.length;
    this.stats.putBytes += wrote;
    if (this.cl.chunksStarted !== this.chunksSeen) {
      this.chunksSeen = this.cl.chunksStarted;
      this.flusher.yieldTurn();
    }
    const sizes = preps.length > 1 ? preps.map((p) => p.totalSize) : undefined;
    const result = new AppendResult(
      first.storeHost,
      phy,
      wrote,
      queueOffset,
      storeTimestamp,
      msgs.length,
      sizes,
    );
    // Acknowledged only once written (ASYNC_FLUSH) or durable (SYNC_FLUSH, when the producer
    // waits for the store): an acknowledged message survives a process crash in either mode.
    const end = phy + wrote;
    const stored =
      this.options.flushDiskType === "SYNC_FLUSH" && wait
        ? this.flusher.waitFlushed(end)
        : this.flusher.waitWritten(end);
    return stored.then((ok) =>
      ok
        ? { status: PutMessageStatus.PUT_OK, result }
        : { status: PutMessageStatus.FLUSH_DISK_TIMEOUT, result },
    );
  }

  /** Next queue offset per queue id of a topic (queue ids are small, dense integers). */
  private queueOffsetsOf(topic: string): number[] {
    let offsets = this.queueOffsets.get(topic);
    if (offsets === undefined) {
      offsets = [];
      this.queueOffsets.set(topic, offsets);
    }
    return offsets;
  }

  private fail(status: PutMessageStatus): PutMessageResult {
    this.stats.putFailed++;
    return { status };
  }

  /** Flushes consume queues and index, then records how far they reach in the checkpoint. */
  async flushLogics(): Promise<void> {
    while (this.logicsFlushing) await this.logicsFlushing;
    this.logicsFlushing = this.flushLogicsOnce().finally(() => {
      this.logicsFlushing = undefined;
    });
    await this.logicsFlushing;
  }

  private async flushLogicsOnce(): Promise<void> {
    const logicsTs = this.dispatcher.logicsMsgTimestamp;
    const indexTs = this.index?.files.at(-1)?.endTimestamp ?? 0;
    await this.cqs.flushAll();
    await this.index?.flush();
    await this.checkpoint.advance(
      this.flusher.flushedStoreTimestamp,
      logicsTs,
      indexTs,
      this.flusher.flushedOffset,
    );
  }

  async getMessage(
    _group: string,
    topic: string,
    queueId: number,
    offset: number,
    maxMsgNums: number,
    maxBytes: number,
    filter?: MessageFilter,
  ): Promise<GetMessageResult> {
    const cl = this.cl;
    const view: LogView = { minOffset: cl.minOffset, readRecords: (spans) => this.reader.readRecords(spans) };
    const r = await getMessageFrom(
      this.cqs.find(topic, queueId),
      view,
      offset,
      maxMsgNums,
      maxBytes,
      filter,
      this.options,
    );
    if (r.messages.length > 0) {
      this.stats.getsFound++;
      this.stats.transferred += r.messages.length;
    }
    return r;
  }

  getMaxOffsetInQueue(topic: string, queueId: number): number {
    return this.cqs.find(topic, queueId)?.maxOffset ?? 0;
  }

  getMinOffsetInQueue(topic: string, queueId: number): number {
    return this.cqs.find(topic, queueId)?.minOffset ?? 0;
  }

  async getCommitLogOffsetInQueue(topic: string, queueId: number, offset: number): Promise<number> {
    return (await this.cqs.find(topic, queueId)?.unitAt(offset))?.phyOffset ?? 0;
  }

  async getMessageStoreTimeStamp(topic: string, queueId: number, offset: number): Promise<number> {
    const u = await this.cqs.find(topic, queueId)?.unitAt(offset);
    if (!u || u.phyOffset < this.cl.minOffset) return -1;
    const [rec] = await this.reader.readRecords([[u.phyOffset, u.size]]);
    return rec ? recordStoreTimestamp(rec) : -1;
  }

  async getOffsetInQueueByTime(
    topic: string,
    queueId: number,
    timestamp: number,
    boundary = BoundaryType.LOWER,
  ) {
    const cq = this.cqs.find(topic, queueId);
    if (!cq) return 0;
    const at = (o: number) => this.getMessageStoreTimeStamp(topic, queueId, o);
    return offsetByTime(cq.minOffset, cq.maxOffset, at, timestamp, boundary);
  }

  async getEarliestMessageTime(topic: string, queueId: number): Promise<number> {
    return this.getMessageStoreTimeStamp(topic, queueId, this.getMinOffsetInQueue(topic, queueId));
  }

  async getDiskUsedPercents(): Promise<StoreDiskUsage> {
    const [commitLog, consumeQueue] = await Promise.all([
      this.diskUsedPercent(this.cl.segments.dir).catch(() => -1),
      this.diskUsedPercent(this.cqs.dir).catch(() => -1),
    ]);
    return { commitLogDir: this.cl.segments.dir, commitLog, consumeQueue };
  }

  async getEarliestMessageTimeInStore(): Promise<number> {
    const rec = await this.lookMessageByOffset(this.cl.minOffset);
    return rec ? recordStoreTimestamp(rec) : -1;
  }

  readQueueUnits(topic: string, queueId: number, offset: number, max: number): Promise<QueueUnit[]> {
    return readQueueUnitsOf(this.cqs.find(topic, queueId), offset, max);
  }

  readRecords(spans: readonly (readonly [number, number])[]): Promise<(Uint8Array | undefined)[]> {
    return this.reader.readRecords(spans);
  }

  lookMessageByOffset(phyOffset: number): Promise<Uint8Array | undefined> {
    return this.reader.lookMessageByOffset(phyOffset);
  }

  async queryMessage(
    topic: string,
    key: string,
    maxNum: number,
    begin: number,
    end: number,
  ): Promise<QueryMessageResult> {
    return this.reader.queryMessage(topic, key, Math.min(maxNum, this.options.maxMsgsNumBatch), begin, end);
  }

  onMessageArrived(listener: MessageArrivedListener): () => void {
    this.dispatcher.listeners.add(listener);
    return () => this.dispatcher.listeners.delete(listener);
  }

  getMinPhyOffset(): number {
    return this.cl.minOffset;
  }

  getMaxPhyOffset(): number {
    return this.cl.maxOffset;
  }

  getTopicQueues(): Map<string, number[]> {
    return this.cqs.topicQueues();
  }

  async flush(): Promise<void> {
    await this.flusher.flushAll();
    await this.flushLogics();
  }

  async deleteTopics(topics: Iterable<string>): Promise<number> {
    let n = 0;
    for (const t of topics) {
      this.queueOffsets.delete(t);
      if (await this.cqs.deleteTopic(t)) n++;
    }
    return n;
  }

  async deleteExpiredFiles(force = false): Promise<number> {
    const used = await this.checkDisk();
    const r = await runRetention(
      this.options,
      this.cl,
      this.cqs,
      this.index,
      this.now(),
      used,
      this.flusher.flushedOffset,
      force,
      this.log,
    );
    return r.commitLogFiles;
  }

  cleanExpiredConsumeQueues(): Promise<number> {
    return this.cqs.deleteExpired(this.cl.minOffset);
  }

  getRuntimeStats(): StoreRuntimeStats {
    return this.stats.snapshot(this.cl, this.flusher.flushedOffset);
  }

  async shutdown(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    for (const t of this.timers) clearInterval(t);
    await this.flusher.flushAll();
    this.flusher.stop();
    this.dispatcher.reput(this.cl);
    await this.flushLogics();
    await this.index?.close();
    await this.cqs.closeAll();
    await this.cl.close();
    await this.checkpoint.close();
    await unlink(this.abortPath).catch(() => {});
    await this.releaseLock();
  }
}
