/**
 * Builds SEND_MESSAGE_V2 / SEND_BATCH_MESSAGE requests as the Java producer does
 * (DefaultMQProducerImpl#sendKernelImpl) and reads their responses (MQClientAPIImpl#processSendResponse).
 */
import { SendMessageRequestHeaderV2, SendMessageResponseHeader } from "../protocol/headers/send.ts";
import {
  decodeProperties,
  encodeProperties,
  MessageConst,
  type UniqueIdGenerator,
} from "../protocol/message/index.ts";
import { type ExtFields, type RemotingCommand, RequestCode, ResponseCode } from "../remoting/index.ts";
import { type BatchBuffers, encodeBatchBody } from "./batch-body.ts";
import { compressZlib, ZLIB_SYS_FLAG } from "./compression.ts";
import { decodeAnswer, MQClientError } from "./errors.ts";
import {
  bodyBytes,
  commonPropertiesBytes,
  encodeMessageProperties,
  type Message,
  messagePropertyPieces,
  RETRY_GROUP_TOPIC_PREFIX,
  validateMessage,
} from "./message.ts";
import type { MessageQueue } from "./message-queue.ts";

export const AUTO_CREATE_TOPIC_KEY = "TBW102";
export const DEFAULT_TOPIC_QUEUE_NUMS = 4;

export type SendStatus = "SEND_OK" | "FLUSH_DISK_TIMEOUT" | "FLUSH_SLAVE_TIMEOUT" | "SLAVE_NOT_AVAILABLE";

export interface SendResult {
  sendStatus: SendStatus;
  /** The client unique id(s) (UNIQ_KEY); comma separated for a batch. */
  msgId: string;
  /** The broker's offset id(s). */
  offsetMsgId: string;
  messageQueue: MessageQueue;
  queueOffset: number;
  transactionId?: string;
  regionId: string;
  traceOn: boolean;
}

/** A message made ready once, before the retry loop: properties, UNIQ_KEY, compressed body. */
export interface PreparedSend {
  topic: string;
  body: Uint8Array;
  flag: number;
  sysFlag: number;
  /** The encoded properties (spec §2.1), UNIQ_KEY included for a single message. */
  properties: string;
  batch: boolean;
  msgId: string;
  /** The caller's message, handed to queue selectors. */
  source: Message;
  /** Requests sent with this body so far (a body sent more than once is never recycled). */
  attempts: number;
  /** A request-reply answer (MSG_TYPE=reply): sent as SEND_REPLY_MESSAGE_V2 (325), as Java does. */
  reply?: boolean;
}

export interface PrepareOptions {
  /** A generator's `into` lets batches write ids in place (see encodeBatchBody). */
  nextUniqueId: (() => string) | UniqueIdGenerator;
  /** Where batch bodies come from (and go back to after a send; see Producer.sendBatch). */
  batchBuffers?: BatchBuffers;
  compressOverBytes: number;
  compressLevel: number;
  bodyBytesMax: number;
}

export function prepareSingle(msg: Message, o: PrepareOptions): PreparedSend {
  let body = bodyBytes(msg.body);
  validateMessage(msg, body, o.bodyBytesMax);
  const msgId = o.nextUniqueId();
  const properties = encodeMessageProperties(msg, msgId);
  let sysFlag = 0;
  if (body.length >= o.compressOverBytes) {
    // Only when it shrinks (unlike Java's producer): an incompressible body grows under zlib, and
    // a 4 MiB one would then be refused by the broker as over maxMessageSize.
    const compressed = compressZlib(body, o.compressLevel);
    if (compressed.length < body.length) {
      body = compressed;
      sysFlag |= ZLIB_SYS_FLAG;
    }
  }
  return {
    topic: msg.topic,
    body,
    flag: msg.flag ?? 0,
    sysFlag,
    properties,
    batch: false,
    msgId,
    source: msg,
    attempts: 0,
  };
}

/**
 * A batch: one topic, same WAIT, no delay, no retry topic; each item gets its own UNIQ_KEY and
 * batches are never compressed (spec broker §1.9).
 */
export function prepareBatch(msgs: readonly Message[], o: PrepareOptions): PreparedSend {
  const first = msgs[0];
  if (!first) throw new MQClientError({ code: ResponseCode.INVALID_PARAMETER, remark: "empty batch" });
  const ids: string[] = [];
  const idWriter = "into" in o.nextUniqueId ? o.nextUniqueId : undefined;
  const bodies: Uint8Array[] = [];
  const flags: number[] = [];
  const heads: (Uint8Array | undefined)[] = [];
  const pieces: string[] = [];
  const ends: number[] = [];
  for (const m of msgs) {
    if (m.topic !== first.topic) throw badBatch("the topic of the messages in one batch should be the same");
    if ((m.waitStoreMsgOK ?? true) !== (first.waitStoreMsgOK ?? true))
      throw badBatch("the waitStoreMsgOK of the messages in one batch should the same");
    if (m.delayLevel) throw badBatch("TimeDelayLevel is not supported for batching");
    if (m.topic.startsWith(RETRY_GROUP_TOPIC_PREFIX))
      throw badBatch("Retry Group is not supported for batching");
    const body = bodyBytes(m.body);
    validateMessage(m, body, o.bodyBytesMax);
    if (idWriter === undefined) ids.push(o.nextUniqueId());
    bodies.push(body);
    flags.push(m.flag ?? 0);
    const head = commonPropertiesBytes(m);
    heads.push(head);
    if (head === undefined) messagePropertyPieces(m, "", pieces);
    ends.push(pieces.length);
  }
  const { body, msgIds } = encodeBatchBody(bodies, flags, heads, pieces, ends, ids, o.batchBuffers, idWriter);
  if (body.length > o.bodyBytesMax)
    throw badBatch(`the batch body size over max value, MAX: ${o.bodyBytesMax}`);
  // The container carries WAIT only: a container UNIQ_KEY would overwrite the inner ids on brokers
  // that append container properties to every item (rocketmq issue 9416).
  const properties = encodeProperties(new Map([[MessageConst.WAIT, String(first.waitStoreMsgOK ?? true)]]));
  return {
    topic: first.topic,
    body,
    flag: 0,
    sysFlag: 0,
    properties,
    batch: true,
    msgId: msgIds,
    source: first,
    attempts: 0,
  };
}

function badBatch(remark: string): MQClientError {
  return new MQClientError({ code: ResponseCode.MESSAGE_ILLEGAL, remark });
}

export function sendRequestParts(
  p: PreparedSend,
  mq: MessageQueue,
  producerGroup: string,
): { code: number; ext: ExtFields; body: Uint8Array } {
  let properties = p.properties;
  let reconsumeTimes = 0;
  let maxReconsumeTimes: number | undefined;
  if (p.topic.startsWith(RETRY_GROUP_TOPIC_PREFIX)) {
    // Retry sends move the counters from properties into the header (Java sendKernelImpl).
    const map = decodeProperties(properties);
    reconsumeTimes = Number(map.get(MessageConst.RECONSUME_TIME) ?? 0);
    map.delete(MessageConst.RECONSUME_TIME);
    const max = map.get(MessageConst.MAX_RECONSUME_TIMES);
    if (max !== undefined) maxReconsumeTimes = Number(max);
    map.delete(MessageConst.MAX_RECONSUME_TIMES);
    properties = encodeProperties(map);
  }
  // maxReconsumeTimes undefined is left out by encode: no conditional spread (a copy per send).
  const ext = SendMessageRequestHeaderV2.encode({
    producerGroup,
    topic: p.topic,
    defaultTopic: AUTO_CREATE_TOPIC_KEY,
    defaultTopicQueueNums: DEFAULT_TOPIC_QUEUE_NUMS,
    queueId: mq.queueId,
    sysFlag: p.sysFlag,
    bornTimestamp: Date.now(),
    flag: p.flag,
    properties,
    reconsumeTimes,
    unitMode: false,
    maxReconsumeTimes,
    batch: p.batch,
    brokerName: mq.brokerName,
  });
  return { code: requestCodeOf(p), ext, body: p.body };
}

function requestCodeOf(p: PreparedSend): number {
  if (p.batch) return RequestCode.SEND_BATCH_MESSAGE;
  return p.reply ? RequestCode.SEND_REPLY_MESSAGE_V2 : RequestCode.SEND_MESSAGE_V2;
}

const STATUS: Record<number, SendStatus> = {
  [ResponseCode.SUCCESS]: "SEND_OK",
  [ResponseCode.FLUSH_DISK_TIMEOUT]: "FLUSH_DISK_TIMEOUT",
  [ResponseCode.FLUSH_SLAVE_TIMEOUT]: "FLUSH_SLAVE_TIMEOUT",
  [ResponseCode.SLAVE_NOT_AVAILABLE]: "SLAVE_NOT_AVAILABLE",
};

export function readSendResponse(
  r: RemotingCommand,
  p: PreparedSend,
  mq: MessageQueue,
  addr: string,
  requestCode: number,
): SendResult {
  const sendStatus = STATUS[r.code];
  if (!sendStatus) throw new MQClientError({ code: r.code, remark: r.remark ?? "", addr, requestCode });
  const h = decodeAnswer(addr, requestCode, () => SendMessageResponseHeader.decode(r.extFields));
  const result: SendResult = {
    sendStatus,
    msgId: p.msgId,
    offsetMsgId: h.msgId,
    messageQueue: { topic: mq.topic, brokerName: mq.brokerName, queueId: h.queueId },
    queueOffset: h.queueOffset,
    regionId: r.ext(MessageConst.MSG_REGION) ?? "DefaultRegion",
    traceOn: r.ext(MessageConst.TRACE_ON) !== "false",
  };
  if (h.transactionId !== undefined) result.transactionId = h.transactionId;
  return result;
}
