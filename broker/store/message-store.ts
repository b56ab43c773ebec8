/**
 * The MessageStore contract the broker's processors call (RocketMQ's MessageStore), shared by
 * the file store and the in-memory store and checked by one conformance suite.
 */
import type { HostAddress } from "../../src/protocol/message/index.ts";
import type { MessageArrivedListener } from "./dispatch.ts";
import type { BoundaryType, GetMessageStatus, PutMessageStatus } from "./status.ts";

export type { MessageArrivedListener };

/** A message as the send processor has it after decoding a send request. */
export interface MessageToStore {
  readonly topic: string;
  readonly queueId: number;
  readonly flag: number;
  readonly body: Uint8Array;
  readonly properties: ReadonlyMap<string, string>;
  /** The encoded properties; derived from `properties` when absent. */
  readonly propertiesString?: string;
  readonly bornTimestamp: number;
  readonly bornHost: HostAddress;
  readonly storeHost: HostAddress;
  readonly sysFlag: number;
  readonly reconsumeTimes: number;
  readonly preparedTransactionOffset: number;
}

export interface AppendMessageResult {
  /** Offset message id (spec §3.1); for a batch, the ids joined by commas (spec §1.9 step 6). */
  readonly msgId: string;
  readonly wroteOffset: number;
  readonly wroteBytes: number;
  /** Queue offset of the (first) message. */
  readonly queueOffset: number;
  readonly storeTimestamp: number;
  readonly msgNum: number;
}

export interface PutMessageResult {
  readonly status: PutMessageStatus;
  readonly result?: AppendMessageResult;
}

/** Tag / SQL filter (RocketMQ's MessageFilter). */
export interface MessageFilter {
  isMatchedByConsumeQueue(tagsCode: number): boolean;
  /** Optional second stage on the stored record bytes (SQL92). */
  isMatchedByCommitLog?(record: Uint8Array): boolean;
}

export interface GetMessageResult {
  readonly status: GetMessageStatus;
  readonly nextBeginOffset: number;
  readonly minOffset: number;
  readonly maxOffset: number;
  /** Stored record bytes, exactly; a pull response body is their concatenation. */
  readonly messages: Uint8Array[];
  readonly bufferTotalSize: number;
  readonly suggestPullingFromSlave: boolean;
}

/** One consume-queue unit (spec §6.1) and the queue offset it sits at. */
export interface QueueUnit {
  readonly queueOffset: number;
  readonly phyOffset: number;
  readonly size: number;
  /** The tag hash; the delivery time in SCHEDULE_TOPIC_XXXX, the due time in rmq_sys_wheel_timer. */
  readonly tagsCode: number;
}

export interface QueryMessageResult {
  readonly messages: Uint8Array[];
  readonly indexLastUpdateTimestamp: number;
  readonly indexLastUpdatePhyoffset: number;
}

export interface StoreRuntimeStats {
  readonly putMessageTimesTotal: number;
  readonly putMessageSizeTotal: number;
  readonly putMessageFailedTimes: number;
  readonly getMessageTimesTotalFound: number;
  readonly getMessageTransferredMsgCount: number;
  readonly commitLogMinOffset: number;
  readonly commitLogMaxOffset: number;
  readonly dispatchBehindBytes: number;
  readonly remainHowManyDataToFlush: number;
  readonly bootTimestamp: number;
}

/** How full the partitions of the CommitLog and the consume queues are, in percents; -1: unknown. */
export interface StoreDiskUsage {
  readonly commitLogDir: string;
  readonly commitLog: number;
  readonly consumeQueue: number;
}

export interface MessageStore {
  /** Loads and recovers. Must be called once before anything else. */
  open(): Promise<void>;
  putMessage(msg: MessageToStore): Promise<PutMessageResult>;
  /** Stores a batch: one record per message, same queue, consecutive queue offsets (spec §1.9). */
  putMessages(batch: readonly MessageToStore[]): Promise<PutMessageResult>;
  getMessage(
    group: string,
    topic: string,
    queueId: number,
    offset: number,
    maxMsgNums: number,
    maxBytes: number,
    filter?: MessageFilter,
  ): Promise<GetMessageResult>;
  /** Next queue offset (= number of units); 0 for an unknown queue (spec §8.3). */
  getMaxOffsetInQueue(topic: string, queueId: number): number;
  getMinOffsetInQueue(topic: string, queueId: number): number;
  /** Physical offset of the message at `offset` in the queue, 0 if none. */
  getCommitLogOffsetInQueue(topic: string, queueId: number, offset: number): Promise<number>;
  /** SEARCH_OFFSET_BY_TIMESTAMP (spec §8.3, 5.x boundary semantics). */
  getOffsetInQueueByTime(
    topic: string,
    queueId: number,
    timestamp: number,
    boundary?: BoundaryType,
  ): Promise<number>;
  /** Store time of the message at `offset`, -1 if none. */
  getMessageStoreTimeStamp(topic: string, queueId: number, offset: number): Promise<number>;
  /** Store time of the oldest message in the queue, -1 if none (spec §8.3 code 32). */
  getEarliestMessageTime(topic: string, queueId: number): Promise<number>;
  /** Store time of the oldest message in the CommitLog, -1 if none. */
  getEarliestMessageTimeInStore(): Promise<number>;
  getDiskUsedPercents(): Promise<StoreDiskUsage>;
  /**
   * Up to `max` units of a consume queue from `offset` (fewer at a file end; from the queue's min
   * offset if `offset` is below it), fillers included, for services that read a queue's tags slot.
   */
  readQueueUnits(topic: string, queueId: number, offset: number, max: number): Promise<QueueUnit[]>;
  /** Records at (phyOffset, size) pairs, undefined where one is gone; nearby ones in one read. */
  readRecords(spans: readonly (readonly [number, number])[]): Promise<(Uint8Array | undefined)[]>;
  /** The stored record at a physical offset (VIEW_MESSAGE_BY_ID). */
  lookMessageByOffset(phyOffset: number): Promise<Uint8Array | undefined>;
  /** QUERY_MESSAGE by key or UNIQ_KEY through the index (spec §6.4, §8.4). */
  queryMessage(
    topic: string,
    key: string,
    maxNum: number,
    begin: number,
    end: number,
  ): Promise<QueryMessageResult>;
  /** Registers a long-polling wake-up; returns the unregister function. */
  onMessageArrived(listener: MessageArrivedListener): () => void;
  getMinPhyOffset(): number;
  getMaxPhyOffset(): number;
  /** Topic → queue ids with a consume queue. */
  getTopicQueues(): Map<string, number[]>;
  /** Makes everything appended so far durable. */
  flush(): Promise<void>;
  /** Removes the topics' consume queues (the CommitLog keeps the records until retention). */
  deleteTopics(topics: Iterable<string>): Promise<number>;
  /** One retention run now (TRIGGER_DELETE_FILES); `force` ignores the hour and the reserve time. */
  deleteExpiredFiles(force?: boolean): Promise<number>;
  /** Drops consume-queue files whose every unit points below the CommitLog's min offset now. */
  cleanExpiredConsumeQueues(): Promise<number>;
  getRuntimeStats(): StoreRuntimeStats;
  shutdown(): Promise<void>;
}
