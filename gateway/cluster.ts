/**
 * What the gateway's routes need from a RocketMQ cluster, as one interface. `cluster-client.ts`
 * implements it over the native client (in process under `start`, TCP otherwise); tests inject
 * their own (a busy broker, a failing lookup). Lease-based consume is POP underneath: `receive`,
 * `ack` and `changeInvisible` take and give the broker's receipt handles (spec pop-timer-filter §A.6).
 */
import type { QueueLag } from "../src/client/admin-reads.ts";
import type { MessageExt } from "../src/client/message.ts";
import type { ClusterInfo, TopicRouteData } from "../src/protocol/route/index.ts";

export interface OutgoingMessage {
  body: Uint8Array;
  tags?: string;
  keys?: string[];
  properties?: Record<string, string>;
  /** TIMER_DELAY_MS (RocketMQ 5 timer). */
  delayMs?: number;
  /** TIMER_DELIVER_MS, epoch ms (RocketMQ 5 timer). */
  deliverAtMs?: number;
}

export interface SendTarget {
  /** Ordered messages of one key go to one queue (Java's SelectMessageQueueByHash). */
  shardingKey?: string;
}

export interface SendOutcome {
  msgId: string;
  brokerName: string;
  queueId: number;
  queueOffset: number;
  /** SEND_OK, or a stored-but-not-flushed/replicated status. */
  status: string;
}

export interface QueueRef {
  topic: string;
  /** Needed only when several brokers serve the topic. */
  brokerName?: string;
  queueId: number;
}

export interface ReadRequest extends QueueRef {
  offset: number;
  maxMessages: number;
  waitMs: number;
  tags?: string;
}

export interface ReadPage {
  brokerName: string;
  status: string;
  messages: MessageExt[];
  nextOffset: number;
  minOffset: number;
  maxOffset: number;
}

export interface QueueOffsets {
  brokerName: string;
  queueId: number;
  minOffset: number;
  maxOffset: number;
}

export interface CreateTopicRequest {
  topic: string;
  queues: number;
  order: boolean;
}

export interface LeaseRequest {
  group: string;
  topic: string;
  maxMessages: number;
  /** Long-poll budget; 0 answers at once. */
  waitMs: number;
  invisibleMs: number;
  /** Tag expression; absent or "*" for every message. */
  tags?: string;
  /** SQL92 over message properties instead of tags (spec pop-timer-filter Part C). */
  sql?: string;
  /** Ordered POP: a queue's next messages wait until these are acked or expire. */
  ordered?: boolean;
}

/** A message under lease, with the broker's receipt handle. */
export interface LeasedMessage {
  message: MessageExt;
  brokerHandle: string;
}

export interface Cluster {
  /** POP_MESSAGE from one broker of the topic (in turn); [] when none came within waitMs. */
  receive(r: LeaseRequest): Promise<LeasedMessage[]>;
  /**
   * Acks handles of one group and topic (ACK_MESSAGE for one, BATCH_ACK_MESSAGE per broker for
   * several); a stale handle acks nothing and is not an error (the broker answers success).
   */
  ack(group: string, topic: string, brokerHandles: readonly string[]): Promise<void>;
  /** CHANGE_MESSAGE_INVISIBLETIME: visible again `invisibleMs` from now; returns the new handle. */
  changeInvisible(group: string, topic: string, brokerHandle: string, invisibleMs: number): Promise<string>;
  send(topic: string, msg: OutgoingMessage, target: SendTarget): Promise<SendOutcome>;
  read(r: ReadRequest): Promise<ReadPage>;
  /** The first offset at or after `timestamp` in each queue (or in one). */
  offsetsAtTime(
    topic: string,
    timestamp: number,
    queue?: QueueRef,
  ): Promise<{ brokerName: string; queueId: number; offset: number }[]>;
  topics(): Promise<string[]>;
  createTopic(r: CreateTopicRequest): Promise<string[]>;
  route(topic: string): Promise<TopicRouteData>;
  topicStats(topic: string): Promise<QueueOffsets[]>;
  groups(): Promise<string[]>;
  groupLag(group: string, topic?: string): Promise<QueueLag[]>;
  clusterInfo(): Promise<ClusterInfo>;
  messageById(topic: string, msgId: string): Promise<MessageExt | null>;
  messagesByKey(topic: string, key: string, max: number): Promise<MessageExt[]>;
  /** Whether the NameServer answers and knows a broker: what /readyz reports. */
  ready(): Promise<{ ok: boolean; detail: string }>;
  close(): Promise<void>;
}
