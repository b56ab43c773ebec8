/**
 * An in-memory MessageStore with the file store's behaviour (same record codec, same read path,
 * same dispatch rules), for fast processor tests. Nothing is persisted; no retention.
 */

import {
  decodeRecord,
  isConsumeQueueDispatched,
  MessageConst,
  type PreparedRecord,
  readI64,
  splitKeys,
  writeI64,
  writeRecord,
} from "../../src/protocol/message/index.ts";
import { AppendResult } from "./append-result.ts";
import { CQ_UNIT, CQ_UNIT_BYTES } from "./consume-queue.ts";
import type { MessageArrivedListener } from "./dispatch.ts";
import { tagsCodeFor } from "./dispatch-request.ts";
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
import { prepareForStore, sameQueue } from "./put-message.ts";
import { getMessageFrom, offsetByTime, readQueueUnitsOf, recordStoreTimestamp } from "./reads.ts";
import { BoundaryType, PutMessageStatus } from "./status.ts";
import { DEFAULT_STORE_OPTIONS, parseDelayLevels, type StoreOptions } from "./store-options.ts";

class MemoryQueue {
  minOffset = 0;
  maxOffset = 0;
  private units = new Uint8Array(64 * CQ_UNIT_BYTES);

  append(phy: number, size: number, tagsCode: number): void {
    const at = this.maxOffset * CQ_UNIT_BYTES;
    if (at + CQ_UNIT_BYTES > this.units.length) {
      const grown = new Uint8Array(this.units.length * 2);
      grown.set(this.units);
      this.units = grown;
    }
    const dv = new DataView(this.units.buffer);
    writeI64(dv, at + CQ_UNIT.phyOffset[0], phy);
    dv.setInt32(at + CQ_UNIT.size[0], size);
    writeI64(dv, at + CQ_UNIT.tagsCode[0], tagsCode);
    this.maxOffset++;
  }

  async readUnits(offset: number, max: number): Promise<Uint8Array> {
    const end = Math.min(this.maxOffset, offset + max);
    return this.units.slice(offset * CQ_UNIT_BYTES, Math.max(offset, end) * CQ_UNIT_BYTES);
  }

  phyAt(offset: number): number | undefined {
    if (offset < this.minOffset || offset >= this.maxOffset) return undefined;
    return readI64(new DataView(this.units.buffer), offset * CQ_UNIT_BYTES + CQ_UNIT.phyOffset[0]);
  }
}

export class MemoryMessageStore implements MessageStore {
  readonly options: StoreOptions;
  private readonly records = new Map<number, Uint8Array>();
  private readonly queues = new Map<string, Map<number, MemoryQueue>>();
  private readonly keys = new Map<string, number[]>();
  private readonly listeners = new Set<MessageArrivedListener>();
  private readonly delayLevels: number[];
  private maxPhy = 0;
  private lastStoreTimestamp = 0;
  private puts = 0;
  private putBytes = 0;
  private boot = 0;

  constructor(
    options: Partial<StoreOptions> = {},
    private readonly now: () => number = Date.now,
  ) {
    this.options = { ...DEFAULT_STORE_OPTIONS, ...options };
    this.delayLevels = parseDelayLevels(this.options.messageDelayLevel);
  }

  async open(): Promise<void> {
    this.boot = this.now();
  }

  private queue(topic: string, queueId: number, create: boolean): MemoryQueue | undefined {
    let qs = this.queues.get(topic);
    if (!qs && create) {
      qs = new Map();
      this.queues.set(topic, qs);
    }
    let q = qs?.get(queueId);
    if (!q && qs && create) {
      q = new MemoryQueue();
      qs.set(queueId, q);
    }
    return q;
  }

  putMessage(msg: MessageToStore): Promise<PutMessageResult> {
    return this.putMessages([msg]);
  }

  async putMessages(batch: readonly MessageToStore[]): Promise<PutMessageResult> {
    if (!sameQueue(batch)) return { status: PutMessageStatus.MESSAGE_ILLEGAL };
    const preps: PreparedRecord[] = [];
    for (const m of batch) {
      const p = prepareForStore(m, this.options.maxMessageSize);
      if (typeof p === "string") return { status: p };
      preps.push(p);
    }
    const first = batch[0]!;
    const dispatched = isConsumeQueueDispatched(preps[0]!.sysFlag);
    const q = this.queue(first.topic, first.queueId, true)!;
    const queueOffset = dispatched ? q.maxOffset : 0;
    this.lastStoreTimestamp = Math.max(this.now(), this.lastStoreTimestamp);
    const storeTimestamp = this.lastStoreTimestamp;
    const wroteOffset = this.maxPhy;
    for (const [i, p] of preps.entries()) {
      const phy = this.maxPhy;
      const rec = new Uint8Array(p.totalSize);
      const recordQueueOffset = dispatched ? queueOffset + i : 0;
      writeRecord(rec, new DataView(rec.buffer), 0, p, recordQueueOffset, phy, storeTimestamp);
      this.records.set(phy, rec);
      this.maxPhy += rec.length;
      this.dispatch(rec, phy, recordQueueOffset, dispatched, q);
    }
    this.puts += batch.length;
    this.putBytes += this.maxPhy - wroteOffset;
    const sizes = preps.length > 1 ? preps.map((p) => p.totalSize) : undefined;
    const result = new AppendResult(
      first.storeHost,
      wroteOffset,
      this.maxPhy - wroteOffset,
      queueOffset,
      storeTimestamp,
      batch.length,
      sizes,
    );
    return { status: PutMessageStatus.PUT_OK, result };
  }

  /** The same rules as the file store's dispatch (spec §6.2-6.4). */
  private dispatch(
    rec: Uint8Array,
    phy: number,
    queueOffset: number,
    dispatched: boolean,
    q: MemoryQueue,
  ): void {
    const d = decodeRecord(rec);
    const tagsCode = tagsCodeFor(d.topic, d.properties, d.storeTimestamp, this.delayLevels);
    const uniq = d.properties.get(MessageConst.UNIQ_KEY);
    for (const k of [...(uniq ? [uniq] : []), ...splitKeys(d.properties.get(MessageConst.KEYS))]) {
      const key = `${d.topic}#${k}`;
      this.keys.set(key, [...(this.keys.get(key) ?? []), phy]);
    }
    if (!dispatched) return;
    q.append(phy, rec.length, tagsCode);
    for (const l of this.listeners)
      l(d.topic, d.queueId, queueOffset + 1, tagsCode, d.storeTimestamp, d.properties);
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
    const log = {
      minOffset: 0,
      readRecords: async (spans: readonly (readonly [number, number])[]) =>
        spans.map(([p]) => this.records.get(p)),
    };
    return getMessageFrom(
      this.queue(topic, queueId, false),
      log,
      offset,
      maxMsgNums,
      maxBytes,
      filter,
      this.options,
    );
  }

  getMaxOffsetInQueue(topic: string, queueId: number): number {
    return this.queue(topic, queueId, false)?.maxOffset ?? 0;
  }

  getMinOffsetInQueue(topic: string, queueId: number): number {
    return this.queue(topic, queueId, false)?.minOffset ?? 0;
  }

  async getCommitLogOffsetInQueue(topic: string, queueId: number, offset: number): Promise<number> {
    return this.queue(topic, queueId, false)?.phyAt(offset) ?? 0;
  }

  async getMessageStoreTimeStamp(topic: string, queueId: number, offset: number): Promise<number> {
    const phy = this.queue(topic, queueId, false)?.phyAt(offset);
    const rec = phy === undefined ? undefined : this.records.get(phy);
    return rec ? recordStoreTimestamp(rec) : -1;
  }

  async getOffsetInQueueByTime(
    topic: string,
    queueId: number,
    timestamp: number,
    boundary = BoundaryType.LOWER,
  ) {
    const q = this.queue(topic, queueId, false);
    if (!q) return 0;
    const at = (o: number) => this.getMessageStoreTimeStamp(topic, queueId, o);
    return offsetByTime(q.minOffset, q.maxOffset, at, timestamp, boundary);
  }

  getEarliestMessageTime(topic: string, queueId: number): Promise<number> {
    return this.getMessageStoreTimeStamp(topic, queueId, this.getMinOffsetInQueue(topic, queueId));
  }

  /** No partition holds a memory store: unknown (-1), as Java answers for a path it cannot read. */
  async getDiskUsedPercents(): Promise<StoreDiskUsage> {
    return { commitLogDir: "", commitLog: -1, consumeQueue: -1 };
  }

  async getEarliestMessageTimeInStore(): Promise<number> {
    const rec = this.records.get(0);
    return rec ? recordStoreTimestamp(rec) : -1;
  }

  async readQueueUnits(topic: string, queueId: number, offset: number, max: number): Promise<QueueUnit[]> {
    return readQueueUnitsOf(this.queue(topic, queueId, false), offset, max);
  }

  async readRecords(spans: readonly (readonly [number, number])[]): Promise<(Uint8Array | undefined)[]> {
    return spans.map(([p, size]) => {
      const rec = this.records.get(p);
      return rec?.length === size ? rec : undefined;
    });
  }

  async lookMessageByOffset(phyOffset: number): Promise<Uint8Array | undefined> {
    return this.records.get(phyOffset);
  }

  async queryMessage(
    topic: string,
    key: string,
    maxNum: number,
    begin: number,
    end: number,
  ): Promise<QueryMessageResult> {
    const max = Math.min(maxNum, this.options.maxMsgsNumBatch);
    const hits = (this.keys.get(`${topic}#${key}`) ?? []).slice().reverse();
    const messages = hits
      .map((p) => this.records.get(p)!)
      .filter((r) => {
        const t = recordStoreTimestamp(r);
        return t >= begin && t <= end;
      })
      .slice(0, max);
    return {
      messages,
      indexLastUpdateTimestamp: this.lastStoreTimestamp,
      indexLastUpdatePhyoffset: this.maxPhy,
    };
  }

  onMessageArrived(listener: MessageArrivedListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  getMinPhyOffset(): number {
    return 0;
  }

  getMaxPhyOffset(): number {
    return this.maxPhy;
  }

  getTopicQueues(): Map<string, number[]> {
    const m = new Map<string, number[]>();
    for (const [t, qs] of this.queues)
      m.set(
        t,
        [...qs.keys()].sort((a, b) => a - b),
      );
    return m;
  }

  async flush(): Promise<void> {}

  async deleteTopics(topics: Iterable<string>): Promise<number> {
    let n = 0;
    for (const t of topics) if (this.queues.delete(t)) n++;
    return n;
  }

  async deleteExpiredFiles(): Promise<number> {
    return 0;
  }

  /** Nothing expires in memory. */
  async cleanExpiredConsumeQueues(): Promise<number> {
    return 0;
  }

  getRuntimeStats(): StoreRuntimeStats {
    return {
      putMessageTimesTotal: this.puts,
      putMessageSizeTotal: this.putBytes,
      putMessageFailedTimes: 0,
      getMessageTimesTotalFound: 0,
      getMessageTransferredMsgCount: 0,
      commitLogMinOffset: 0,
      commitLogMaxOffset: this.maxPhy,
      dispatchBehindBytes: 0,
      remainHowManyDataToFlush: 0,
      bootTimestamp: this.boot,
    };
  }

  async shutdown(): Promise<void> {}
}
