/**
 * POP consumption on the wire (spec pop-timer-filter §A.4–A.10): the POP_MESSAGE (200050),
 * ACK_MESSAGE (200051), CHANGE_MESSAGE_INVISIBLETIME (200053), PEEK_MESSAGE (200052),
 * NOTIFICATION (200054) and POLLING_INFO (200055) headers, the receipt handle
 * (Java's ExtraInfoUtil, carried as property POP_CK and as `extraInfo`), and the offset-info
 * strings of the POP response.
 *
 * Receipt handle, fields joined by one space (§A.6):
 *
 *   ckQueueOffset popTime invisibleTime reviveQid retryFlag brokerName queueId msgQueueOffset [commitLogOffset]
 *   0             1       2             3         4         5          6       7               8 (proxy only)
 *
 * Offset infos (§A.5.2), entries joined by ";":
 *
 *   startOffsetInfo  <flag> <queueId> <startOffset>
 *   msgOffsetInfo    <flag> <queueId> <o1>,<o2>,…
 *   orderCountInfo   <flag> qo<queueId>%<offset> <count>  …then  <flag> <queueId> <minCount>
 */
import { defineHeader, field, type HeaderOf } from "../../remoting/custom-header.ts";
import { RETRY_GROUP_TOPIC_PREFIX } from "../topic-names.ts";

export const PopMessageRequestHeader = defineHeader({
  consumerGroup: field.string(),
  topic: field.string(),
  queueId: field.int(),
  maxMsgNums: field.int(),
  invisibleTime: field.long(),
  pollTime: field.long(),
  bornTime: field.long(),
  initMode: field.int(),
  expType: field.string().optional(),
  exp: field.string().optional(),
  order: field.bool().optional(),
  attemptId: field.string().optional(),
});
export type PopMessageRequestHeader = HeaderOf<typeof PopMessageRequestHeader.fields>;

export const PopMessageResponseHeader = defineHeader({
  popTime: field.long(),
  invisibleTime: field.long(),
  reviveQid: field.int(),
  restNum: field.long(),
  startOffsetInfo: field.string().optional(),
  msgOffsetInfo: field.string().optional(),
  orderCountInfo: field.string().optional(),
});
export type PopMessageResponseHeader = HeaderOf<typeof PopMessageResponseHeader.fields>;

export const AckMessageRequestHeader = defineHeader({
  consumerGroup: field.string(),
  topic: field.string(),
  queueId: field.int(),
  extraInfo: field.string(),
  offset: field.long(),
});
export type AckMessageRequestHeader = HeaderOf<typeof AckMessageRequestHeader.fields>;

export const ChangeInvisibleTimeRequestHeader = defineHeader({
  consumerGroup: field.string(),
  topic: field.string(),
  queueId: field.int(),
  extraInfo: field.string(),
  offset: field.long(),
  invisibleTime: field.long(),
});
export type ChangeInvisibleTimeRequestHeader = HeaderOf<typeof ChangeInvisibleTimeRequestHeader.fields>;

export const ChangeInvisibleTimeResponseHeader = defineHeader({
  popTime: field.long(),
  invisibleTime: field.long(),
  reviveQid: field.int(),
});
export type ChangeInvisibleTimeResponseHeader = HeaderOf<typeof ChangeInvisibleTimeResponseHeader.fields>;

/** PEEK_MESSAGE (200052); the reply reuses PopMessageResponseHeader, only restNum meaningful. */
export const PeekMessageRequestHeader = defineHeader({
  topic: field.string(),
  queueId: field.int(),
  maxMsgNums: field.int(),
  consumerGroup: field.string(),
});
export type PeekMessageRequestHeader = HeaderOf<typeof PeekMessageRequestHeader.fields>;

/** NOTIFICATION (200054): "has this group anything to pop?", long-polled like POP. */
export const NotificationRequestHeader = defineHeader({
  consumerGroup: field.string(),
  topic: field.string(),
  queueId: field.int(),
  pollTime: field.long(),
  bornTime: field.long(),
  order: field.bool().optional(),
  attemptId: field.string().optional(),
});
export type NotificationRequestHeader = HeaderOf<typeof NotificationRequestHeader.fields>;

export const NotificationResponseHeader = defineHeader({
  hasMsg: field.bool(),
  pollingFull: field.bool(),
});
export type NotificationResponseHeader = HeaderOf<typeof NotificationResponseHeader.fields>;

/** POLLING_INFO (200055): how many POPs are parked under `<topic>@<group>@<queueId>`. */
export const PollingInfoRequestHeader = defineHeader({
  consumerGroup: field.string(),
  topic: field.string(),
  queueId: field.int(),
});
export type PollingInfoRequestHeader = HeaderOf<typeof PollingInfoRequestHeader.fields>;

export const PollingInfoResponseHeader = defineHeader({
  pollingNum: field.int(),
});
export type PollingInfoResponseHeader = HeaderOf<typeof PollingInfoResponseHeader.fields>;

/** Java's ConsumeInitMode. */
export const ConsumeInitMode = { MIN: 0, MAX: 1 } as const;

/** Largest maxMsgNums a POP may ask for. */
export const POP_BATCH_MAX = 32;
/**
 * Largest invisibleTime a POP or CHANGE_MESSAGE_INVISIBLETIME may ask for: the proxy's
 * maxInvisibleTimeMills (spec §A.17). Java's broker takes any value; this one answers
 * INVALID_PARAMETER outside 0…12 h rather than keep a lease for years.
 */
export const POP_INVISIBLE_TIME_MAX_MS = 12 * 60 * 60 * 1000;

export function invisibleTimeRemark(invisibleTime: number): string {
  return `invisibleTime[${invisibleTime}] is illegal, it must be in [0, ${POP_INVISIBLE_TIME_MAX_MS}] ms`;
}

/** reviveQid of an ordered POP (KeyBuilder.POP_ORDER_REVIVE_QUEUE). */
export const POP_ORDER_REVIVE_QUEUE = 999;

/** Retry flag of a handle or offset-info entry: which topic the message was read from. */
export const PopRetryFlag = { NORMAL: "0", RETRY_V1: "1", RETRY_V2: "2" } as const;
export type PopRetryFlag = (typeof PopRetryFlag)[keyof typeof PopRetryFlag];

/** `%RETRY%<group>_<topic>`, the default POP retry topic (KeyBuilder.buildPopRetryTopicV1). */
export function popRetryTopicV1(topic: string, group: string): string {
  return `${RETRY_GROUP_TOPIC_PREFIX}${group}_${topic}`;
}

/** `%RETRY%<group>+<topic>`, with enableRetryTopicV2. */
export function popRetryTopicV2(topic: string, group: string): string {
  return `${RETRY_GROUP_TOPIC_PREFIX}${group}+${topic}`;
}

/** The flag a client derives from a message's topic (§A.5.4): `+` after the prefix ⇒ V2. */
export function retryFlagOfTopic(topic: string): PopRetryFlag {
  if (!topic.startsWith(RETRY_GROUP_TOPIC_PREFIX)) return PopRetryFlag.NORMAL;
  return topic.includes("+", RETRY_GROUP_TOPIC_PREFIX.length) ? PopRetryFlag.RETRY_V2 : PopRetryFlag.RETRY_V1;
}

/** The topic a handle's message lives in (ExtraInfoUtil.getRealTopic). */
export function realTopicOf(flag: string, topic: string, group: string): string {
  if (flag === PopRetryFlag.RETRY_V1) return popRetryTopicV1(topic, group);
  if (flag === PopRetryFlag.RETRY_V2) return popRetryTopicV2(topic, group);
  return topic;
}

export interface ReceiptHandle {
  readonly ckQueueOffset: number;
  readonly popTime: number;
  readonly invisibleTime: number;
  readonly reviveQid: number;
  readonly retryFlag: string;
  readonly brokerName: string;
  readonly queueId: number;
  readonly queueOffset: number;
  /** Field 8, present in the proxy's handles only. */
  readonly commitLogOffset?: number;
}

/** A handle that does not have 8 well-formed fields. */
export class ReceiptHandleError extends Error {}

export function encodeReceiptHandle(h: ReceiptHandle): string {
  const base = `${h.ckQueueOffset} ${h.popTime} ${h.invisibleTime} ${h.reviveQid} ${h.retryFlag} ${h.brokerName} ${h.queueId} ${h.queueOffset}`;
  return h.commitLogOffset === undefined ? base : `${base} ${h.commitLogOffset}`;
}

function integer(text: string | undefined, what: string, handle: string): number {
  if (text === undefined || !/^[+-]?\d+$/.test(text)) {
    throw new ReceiptHandleError(`receipt handle field ${what} is not an integer: "${handle}"`);
  }
  return Number(text);
}

/** Reads fields by position as Java's getters do; fields past the ninth are ignored. */
export function decodeReceiptHandle(text: string): ReceiptHandle {
  const f = text.split(" ");
  if (f.length < 8)
    throw new ReceiptHandleError(`receipt handle has ${f.length} fields, 8 needed: "${text}"`);
  return {
    ckQueueOffset: integer(f[0], "ckQueueOffset", text),
    popTime: integer(f[1], "popTime", text),
    invisibleTime: integer(f[2], "invisibleTime", text),
    reviveQid: integer(f[3], "reviveQid", text),
    retryFlag: f[4]!,
    brokerName: f[5]!,
    queueId: integer(f[6], "queueId", text),
    queueOffset: integer(f[7], "queueOffset", text),
    ...(f.length > 8 ? { commitLogOffset: integer(f[8], "commitLogOffset", text) } : {}),
  };
}

/** The messages one queue read contributed to a POP response. */
export interface QueueOffsets {
  readonly flag: string;
  readonly queueId: number;
  readonly startOffset: number;
  /** Queue offsets in body order. */
  readonly offsets: readonly number[];
}

export function encodeStartOffsetInfo(entries: readonly QueueOffsets[]): string {
  return entries.map((e) => `${e.flag} ${e.queueId} ${e.startOffset}`).join(";");
}

export function encodeMsgOffsetInfo(entries: readonly QueueOffsets[]): string {
  return entries.map((e) => `${e.flag} ${e.queueId} ${e.offsets.join(",")}`).join(";");
}

function entriesOf(info: string): string[][] {
  if (info === "") return [];
  return info.split(";").map((entry) => {
    const parts = entry.split(" ");
    if (parts.length !== 3) throw new ReceiptHandleError(`offset info entry needs 3 parts: "${entry}"`);
    return parts;
  });
}

/** `<flag>@<queueId>` → start offset, as the client parses startOffsetInfo. */
export function parseStartOffsetInfo(info: string): Map<string, number> {
  const m = new Map<string, number>();
  for (const [flag, q, start] of entriesOf(info)) m.set(`${flag}@${q}`, integer(start, "startOffset", info));
  return m;
}

/** `<flag>@<queueId>` → queue offsets in body order. */
export function parseMsgOffsetInfo(info: string): Map<string, number[]> {
  const m = new Map<string, number[]>();
  for (const [flag, q, list] of entriesOf(info)) {
    m.set(
      `${flag}@${q}`,
      list!.split(",").map((o) => integer(o, "msgOffset", info)),
    );
  }
  return m;
}

/** One queue of an ordered POP: delivery counts per offset (only those > 0 are listed). */
export interface QueueOrderCounts {
  readonly flag: string;
  readonly queueId: number;
  readonly counts: ReadonlyMap<number, number>;
  /** 0 when any offset of the batch has no count, else the smallest count. */
  readonly minCount: number;
}

export function encodeOrderCountInfo(entries: readonly QueueOrderCounts[]): string {
  const parts: string[] = [];
  for (const e of entries) {
    for (const [offset, count] of e.counts) {
      if (count > 0) parts.push(`${e.flag} qo${e.queueId}%${offset} ${count}`);
    }
    parts.push(`${e.flag} ${e.queueId} ${e.minCount}`);
  }
  return parts.join(";");
}

/** Keys `<flag>@qo<queueId>%<offset>` and `<flag>@<queueId>` → count, as the client parses it. */
export function parseOrderCountInfo(info: string): Map<string, number> {
  const m = new Map<string, number>();
  for (const [flag, key, count] of entriesOf(info)) m.set(`${flag}@${key}`, integer(count, "count", info));
  return m;
}
