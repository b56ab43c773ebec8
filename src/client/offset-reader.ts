/**
 * Reads a queue by offset with no group state (what the gateway's replay endpoints need): one
 * PULL_MESSAGE that may long-poll, never commits an offset, and carries its own subscription, plus
 * the offset of a timestamp. Java's DefaultMQPullConsumer#pullBlockIfNotFound plays the same part.
 */
import { PullSysFlag } from "../protocol/headers/pull.ts";
import type { PullStatus } from "./broker-api.ts";
import type { ClientInstance } from "./client-instance.ts";
import { decodeMessages, type MessageExt } from "./message.ts";
import type { MessageQueue } from "./message-queue.ts";

/** Java's CONSUMER_TIMEOUT_MILLIS_WHEN_SUSPEND beyond the hold: the answer's own travel time. */
const ANSWER_MARGIN_MS = 5000;

export interface OffsetRead {
  /** The first offset to read. */
  offset: number;
  /** At most this many messages (the broker may send fewer). */
  maxMessages: number;
  /** Hold the pull up to this long when nothing is there yet; 0 answers at once. */
  waitMs: number;
  /** The group the broker sees; no offset is committed for it. */
  group: string;
  /** A tag expression (`TagA || TagB`); default every message. */
  tags?: string;
}

export interface OffsetPage {
  status: PullStatus;
  messages: MessageExt[];
  /** Where the next read starts. */
  nextOffset: number;
  minOffset: number;
  maxOffset: number;
}

/** One read of `mq` at `r.offset`; an offset out of range answers OFFSET_ILLEGAL with the bounds. */
export async function readAtOffset(
  client: ClientInstance,
  mq: MessageQueue,
  r: OffsetRead,
): Promise<OffsetPage> {
  const addr = await client.masterAddr(mq.brokerName, mq.topic);
  const suspend = r.waitMs > 0 ? PullSysFlag.SUSPEND : 0;
  const result = await client.broker.pull(
    addr,
    {
      consumerGroup: r.group,
      topic: mq.topic,
      queueId: mq.queueId,
      queueOffset: r.offset,
      maxMsgNums: r.maxMessages,
      sysFlag: PullSysFlag.SUBSCRIPTION | suspend,
      commitOffset: 0,
      suspendTimeoutMillis: r.waitMs,
      subscription: r.tags ?? "*",
      expressionType: "TAG",
      subVersion: 0,
    },
    r.waitMs + client.options.mqClientApiTimeoutMs + (r.waitMs > 0 ? ANSWER_MARGIN_MS : 0),
  );
  const messages = result.body ? decodeMessages(result.body, mq.brokerName) : [];
  return {
    status: result.status,
    // A tag filter is applied by tag hash on the broker; the exact test is the client's (as Java's).
    messages: r.tags && r.tags !== "*" ? messages.filter((m) => tagMatches(r.tags!, m.tags)) : messages,
    nextOffset: result.nextBeginOffset,
    minOffset: result.minOffset,
    maxOffset: result.maxOffset,
  };
}

function tagMatches(expression: string, tag: string | undefined): boolean {
  if (tag === undefined) return false;
  return expression.split("||").some((t) => t.trim() === tag);
}

/** The first offset of `mq` whose message was stored at or after `timestamp` (SEARCH_OFFSET_BY_TIMESTAMP). */
export async function offsetAtTime(
  client: ClientInstance,
  mq: MessageQueue,
  timestamp: number,
): Promise<number> {
  const addr = await client.masterAddr(mq.brokerName, mq.topic);
  return client.broker.searchOffset(addr, mq.topic, mq.queueId, timestamp);
}
