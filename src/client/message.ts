/**
 * Messages as the client sees them: what a caller sends (Message) and what a consumer receives
 * (MessageExt), and the translation of both to and from the wire (properties string, stored
 * record), following the Java client's rules for tags, keys, delay level, WAIT and UNIQ_KEY.
 */
import {
  type DecodedRecord,
  decodeProperties,
  encodeProperties,
  formatHostAddress,
  KEY_SEPARATOR,
  MessageConst,
  NAME_VALUE_SEPARATOR,
  PROPERTY_SEPARATOR,
  splitKeys,
} from "../protocol/message/index.ts";
import {
  DLQ_GROUP_TOPIC_PREFIX,
  groupNameProblem,
  NOT_ALLOWED_SEND_TOPICS,
  RETRY_GROUP_TOPIC_PREFIX,
  topicNameProblem,
} from "../protocol/topic-names.ts";
import { setOwn } from "../remoting/own-property.ts";
import { receivedBody } from "./compression.ts";
import { clientError } from "./errors.ts";
import { readMessages } from "./record-reader.ts";

export { DLQ_GROUP_TOPIC_PREFIX, RETRY_GROUP_TOPIC_PREFIX };
/** Java's Validators: a body above 4 MiB is refused client-side. */
export const MESSAGE_BODY_BYTES_MAX = 4 * 1024 * 1024;

export function retryTopic(group: string): string {
  return RETRY_GROUP_TOPIC_PREFIX + group;
}

/** What a producer sends. */
export interface Message {
  topic: string;
  body: Uint8Array | string;
  tags?: string;
  /** One key or several; stored space separated in KEYS. */
  keys?: string | readonly string[];
  /** Delay level 1..18 (spec broker §9.4); 0 or absent sends at once. */
  delayLevel?: number;
  /** WAIT: whether the broker answers only after the store is flushed (default true). */
  waitStoreMsgOK?: boolean;
  /** User properties; names reserved by RocketMQ are refused. */
  properties?: Readonly<Record<string, string>>;
  /** The user flag stored verbatim. */
  flag?: number;
  /** RocketMQ 5 timer: deliver this many ms after the broker stores it (TIMER_DELAY_MS). */
  timerDelayMs?: number;
  /** RocketMQ 5 timer: deliver at this epoch millisecond (TIMER_DELIVER_MS). */
  timerDeliverMs?: number;
}

/**
 * A consumed message (Java's MessageExt after client-side decoding). Pulled messages are
 * PulledMessage instances, whose string-derived fields are getters (see pulled-message.ts).
 */
export interface MessageExt {
  topic: string;
  body: Uint8Array;
  tags: string | undefined;
  keys: string[];
  /** UNIQ_KEY when present, otherwise the offset id (as the Java client exposes it). */
  msgId: string;
  /** The broker's offset message id (spec broker §3.1). */
  offsetMsgId: string;
  /**
   * A committed transactional message's transaction id (its UNIQ_KEY), as Java's pull path sets it
   * for messages with TRAN_MSG=true (spec broker §10.2); absent on other messages.
   */
  transactionId?: string;
  properties: Record<string, string>;
  queueId: number;
  queueOffset: number;
  commitLogOffset: number;
  brokerName: string;
  bornTimestamp: number;
  bornHost: string;
  storeTimestamp: number;
  storeHost: string;
  reconsumeTimes: number;
  flag: number;
  sysFlag: number;
  bodyCrc: number;
  storeSize: number;
}

/** Java's MessageConst.STRING_HASH_SET (5.x): names a user may not set through `properties`. */
const RESERVED = new Set<string>([
  "TRACE_ON",
  "MSG_REGION",
  "KEYS",
  "TAGS",
  "WAIT",
  "DELAY",
  "RETRY_TOPIC",
  "REAL_TOPIC",
  "REAL_QID",
  "TRAN_MSG",
  "PGROUP",
  "MIN_OFFSET",
  "MAX_OFFSET",
  "BUYER_ID",
  "ORIGIN_MESSAGE_ID",
  "TRANSFER_FLAG",
  "CORRECTION_FLAG",
  "MQ2_FLAG",
  "RECONSUME_TIME",
  "UNIQ_KEY",
  "MAX_RECONSUME_TIMES",
  "CONSUME_START_TIME",
  "POP_CK",
  "POP_CK_OFFSET",
  "1ST_POP_TIME",
  "TRAN_PREPARED_QUEUE_OFFSET",
  "DUP_INFO",
  "EXTEND_UNIQ_INFO",
  "INSTANCE_ID",
  "CORRELATION_ID",
  "REPLY_TO_CLIENT",
  "TTL",
  "ARRIVE_TIME",
  "PUSH_REPLY_TIME",
  "CLUSTER",
  "MSG_TYPE",
  "INNER_MULTI_QUEUE_OFFSET",
  "TIMER_DELAY_MS",
  "TIMER_DELAY_SEC",
  "TIMER_DELIVER_MS",
  "TIMER_ENQUEUE_MS",
  "TIMER_DEQUEUE_MS",
  "TIMER_ROLL_TIMES",
  "TIMER_OUT_MS",
  "TIMER_DEL_UNIQKEY",
  "TIMER_DELAY_LEVEL",
  "__BORNHOST",
  "BORN_TIMESTAMP",
  "DLQ_ORIGIN_TOPIC",
  "DLQ_ORIGIN_MESSAGE_ID",
  "CHECK_IMMUNITY_TIME_IN_SECONDS",
]);

const utf8 = new TextEncoder();

export function bodyBytes(body: Uint8Array | string): Uint8Array {
  return typeof body === "string" ? utf8.encode(body) : body;
}

/** The keys as the KEYS property holds them. */
export function keysValue(keys: string | readonly string[] | undefined): string | undefined {
  if (keys === undefined) return undefined;
  const joined = (typeof keys === "string" ? keys : keys.join(KEY_SEPARATOR)).trim();
  return joined.length > 0 ? joined : undefined;
}

/**
 * The properties string of an outgoing message, in the order the Java client puts them: user
 * properties, then KEYS, TAGS, WAIT (Message's constructor), DELAY, and UNIQ_KEY (set at send).
 */
export function encodeMessageProperties(msg: Message, uniqKey: string): string {
  const pieces: string[] = [];
  messagePropertyPieces(msg, uniqKey, pieces);
  return pieces.join("");
}

/**
 * Appends to `out` the pieces whose concatenation is `encodeMessageProperties(msg, uniqKey)`:
 * batch items are written piece by piece into the batch body, never joined into a string first
 * (joining and then transcoding the joined string cost more than the rest of a batch item).
 */
export function messagePropertyPieces(msg: Message, uniqKey: string, out: string[]): void {
  const user = msg.properties;
  if (user !== undefined) {
    for (const name in user) {
      if (!Object.hasOwn(user, name)) continue;
      if (RESERVED.has(name))
        throw clientError(`the property<${name}> is used by system, input another please`);
      const value = user[name]!;
      if (name.length === 0 || value.length === 0) continue;
      out.push(name, NAME_VALUE_SEPARATOR, value, PROPERTY_SEPARATOR);
    }
  }
  const keys = keysValue(msg.keys);
  if (keys !== undefined) out.push(KEYS_ENTRY, keys, PROPERTY_SEPARATOR);
  if (msg.tags !== undefined && msg.tags.length > 0) out.push(TAGS_ENTRY, msg.tags, PROPERTY_SEPARATOR);
  const wait = msg.waitStoreMsgOK ?? true;
  if (wait === true) out.push(WAIT_TRUE_ENTRY);
  else out.push(WAIT_ENTRY, String(wait), PROPERTY_SEPARATOR);
  if (msg.delayLevel !== undefined && msg.delayLevel > 0)
    out.push(DELAY_ENTRY, String(msg.delayLevel), PROPERTY_SEPARATOR);
  // Java's Message.setDelayTimeMs / setDeliverTimeMs: system properties, so not through `properties`.
  if (msg.timerDelayMs !== undefined)
    out.push(MessageConst.TIMER_DELAY_MS, NAME_VALUE_SEPARATOR, String(msg.timerDelayMs), PROPERTY_SEPARATOR);
  if (msg.timerDeliverMs !== undefined)
    out.push(
      MessageConst.TIMER_DELIVER_MS,
      NAME_VALUE_SEPARATOR,
      String(msg.timerDeliverMs),
      PROPERTY_SEPARATOR,
    );
  if (uniqKey.length > 0) out.push(UNIQ_KEY_ENTRY, uniqKey, PROPERTY_SEPARATOR);
}

const KEYS_ENTRY = MessageConst.KEYS + NAME_VALUE_SEPARATOR;
const TAGS_ENTRY = MessageConst.TAGS + NAME_VALUE_SEPARATOR;
const WAIT_TRUE_ENTRY = MessageConst.WAIT + NAME_VALUE_SEPARATOR + "true" + PROPERTY_SEPARATOR;
const WAIT_ENTRY = MessageConst.WAIT + NAME_VALUE_SEPARATOR;
const DELAY_ENTRY = MessageConst.DELAY + NAME_VALUE_SEPARATOR;
/** How the last entry of an outgoing message's properties begins; `uniqKey` and a separator follow. */
export const UNIQ_KEY_ENTRY = MessageConst.UNIQ_KEY + NAME_VALUE_SEPARATOR;

/** The last answer of `commonPropertiesBytes`, and what it was for. */
let commonTags: string | undefined;
let commonWait: boolean | undefined;
let commonBytes: Uint8Array | undefined;

/**
 * The UTF-8 of `encodeMessageProperties(msg, "")` (every entry but UNIQ_KEY, which comes last) when
 * the message has no user properties, keys or delay, as most have; undefined for any other. The
 * last answer is kept: a batch's messages mostly share their tags, and each then costs one copy of
 * these bytes instead of a transcode of its pieces. The array is shared: callers never write it.
 */
export function commonPropertiesBytes(msg: Message): Uint8Array | undefined {
  if (msg.properties !== undefined || msg.keys !== undefined || (msg.delayLevel ?? 0) > 0) return undefined;
  if (msg.timerDelayMs !== undefined || msg.timerDeliverMs !== undefined) return undefined;
  const wait = msg.waitStoreMsgOK ?? true;
  if (msg.tags !== commonTags || wait !== commonWait || commonBytes === undefined) {
    commonBytes = utf8.encode(encodeMessageProperties(msg, ""));
    commonTags = msg.tags;
    commonWait = wait;
  }
  return commonBytes;
}

/** Java's Validators.checkGroup, with the broker's rules: a producer or consumer group name. */
export function validateGroup(group: string): void {
  const problem = groupNameProblem(group);
  if (problem !== null) throw clientError(problem);
}

/** The last topic that passed the name rules: a producer mostly sends to a few topics. */
let lastLegalTopic = "";

/** Java's Validators.checkMessage: a legal topic one may send to, a non-empty body within the limit. */
export function validateMessage(msg: Message, body: Uint8Array, bodyBytesMax = MESSAGE_BODY_BYTES_MAX): void {
  if (msg.topic !== lastLegalTopic) {
    if (!msg.topic) throw clientError("the specified topic is blank");
    const problem = topicNameProblem(msg.topic);
    if (problem !== null) throw clientError(problem);
    if (NOT_ALLOWED_SEND_TOPICS.has(msg.topic))
      throw clientError(`Sending message to topic[${msg.topic}] is forbidden.`);
    lastLegalTopic = msg.topic;
  }
  if (body.length === 0) throw clientError("the message body length is zero");
  if (body.length > bodyBytesMax) {
    throw clientError(`the message body size over max value, MAX: ${bodyBytesMax}`);
  }
}

/** Every record of a pull/query body, decoded and turned into MessageExt. */
export function decodeMessages(body: Uint8Array, brokerName: string): MessageExt[] {
  return readMessages(body, brokerName);
}

export function toMessageExt(r: DecodedRecord, brokerName: string): MessageExt {
  const properties = Object.fromEntries(r.properties) as Record<string, string>;
  // A body that does not inflate is handed over as stored, still flagged compressed.
  const stored = r.body.slice();
  const { body, sysFlag } = receivedBody(stored, r.sysFlag) ?? { body: stored, sysFlag: r.sysFlag };
  const uniq = properties[MessageConst.UNIQ_KEY];
  const transactionId = transactionIdOf(properties);
  return {
    ...(transactionId !== undefined ? { transactionId } : {}),
    topic: r.topic,
    body,
    tags: properties[MessageConst.TAGS],
    keys: splitKeys(properties[MessageConst.KEYS]),
    msgId: uniq ?? r.msgId,
    offsetMsgId: r.msgId,
    properties,
    queueId: r.queueId,
    queueOffset: r.queueOffset,
    commitLogOffset: r.physicalOffset,
    brokerName,
    bornTimestamp: r.bornTimestamp,
    bornHost: formatHostAddress(r.bornHost),
    storeTimestamp: r.storeTimestamp,
    storeHost: formatHostAddress(r.storeHost),
    reconsumeTimes: r.reconsumeTimes,
    flag: r.flag,
    sysFlag,
    bodyCrc: r.bodyCrc,
    storeSize: r.storeSize,
  };
}

/** UNIQ_KEY of a message whose TRAN_MSG is "true" (Java's PullAPIWrapper#processPullResult). */
export function transactionIdOf(properties: Readonly<Record<string, string>>): string | undefined {
  return properties[MessageConst.TRAN_MSG]?.toLowerCase() === "true"
    ? properties[MessageConst.UNIQ_KEY]
    : undefined;
}

/** User properties of a received message: everything except the keys RocketMQ reserves. */
export function userProperties(msg: MessageExt): Record<string, string> {
  // A loop, not entries/filter/fromEntries: every message a gateway hands out passes here.
  const out: Record<string, string> = {};
  const props = msg.properties;
  for (const k of Object.keys(props)) {
    if (!RESERVED.has(k)) setOwn(out, k, props[k]!);
  }
  return out;
}

/** A consumed message from a retry topic is shown under its original topic (Java resetRetryAndNamespace). */
export function restoreRetryTopic(msg: MessageExt, group: string): void {
  if (!msg.topic.startsWith(RETRY_GROUP_TOPIC_PREFIX) || msg.topic !== retryTopic(group)) return;
  const original = msg.properties[MessageConst.RETRY_TOPIC];
  if (original !== undefined) msg.topic = original;
}

export { decodeProperties, encodeProperties };
