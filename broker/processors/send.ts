/**
 * SEND_MESSAGE (10), SEND_MESSAGE_V2 (310), SEND_BATCH_MESSAGE (320) (spec broker §1): check the
 * request, pick the queue, complete the properties, pass a single message through the send steps
 * (send-steps/: dead letter, half message, delay level, timer), store, and answer with the offset message id.
 * Every send response carries MSG_REGION and TRACE_ON, errors included (spec §1.3).
 */
import {
  decodeSendHeader,
  type SendMessageRequestHeader,
  SendMessageResponseHeader,
} from "../../src/protocol/headers/send.ts";
import {
  decodeBatch,
  decodeProperties,
  encodeProperties,
  MessageConst,
  MessageSysFlag,
  mergeBatchProperties,
  transactionType,
} from "../../src/protocol/message/index.ts";
import { encodeRecallHandle } from "../../src/protocol/recall-handle.ts";
import { buildTopicSysFlag, isWriteable } from "../../src/protocol/route/perm.ts";
import {
  NOT_ALLOWED_SEND_TOPICS,
  TIMER_TOPIC,
  TRANS_HALF_TOPIC,
  topicNameProblem,
} from "../../src/protocol/topic-names.ts";
import { RemotingCommand } from "../../src/remoting/command.ts";
import { RemotingError } from "../../src/remoting/errors.ts";
import type { RequestContext } from "../../src/remoting/processor-registry.ts";
import { RequestCode } from "../../src/remoting/request-code.ts";
import { ResponseCode } from "../../src/remoting/response-code.ts";
import type { BrokerContext } from "../context.ts";
import { STORED_STATUSES } from "../services/stored-message.ts";
import type { MessageToStore, PutMessageResult } from "../store/message-store.ts";
import { PutMessageStatus } from "../store/status.ts";
import { groupOfRetryTopic, isRetryTopic } from "../topics/topic-validator.ts";
import { bornHostOf, brokerSuffixOf, storedProperties } from "./send-properties.ts";
import { createRetryTopic, groupConfigOrThrow, redeliveryOfSend } from "./send-retry.ts";
import type { SendPipeline } from "./send-steps/index.ts";

/** Java's random queue pick for queueId < 0: random(0..99999998) % writeQueueNums. */
function randomQueue(writeQueueNums: number): number {
  return Math.floor(Math.random() * 99_999_999) % writeQueueNums;
}

export function createSendProcessor(ctx: BrokerContext, steps: SendPipeline) {
  const traceOn = String(ctx.brokerConfig.traceOn);
  const regionId = ctx.brokerConfig.regionId;

  /**
   * A send answer: header fields plus the two extFields every send response carries, added to
   * `ext` (always a fresh object: a header just encoded, or the default), not copied into another.
   */
  const answer = (code: number, remark: string | null, ext: Record<string, string> = {}) => {
    ext.MSG_REGION = regionId;
    ext.TRACE_ON = traceOn;
    return RemotingCommand.response(code, remark, ext);
  };

  return async (request: RemotingCommand, rc: RequestContext): Promise<RemotingCommand> => {
    const v2 = request.code !== RequestCode.SEND_MESSAGE && request.code !== RequestCode.SEND_REPLY_MESSAGE;
    let header: SendMessageRequestHeader;
    try {
      header = decodeSendHeader(request.extFields, v2);
    } catch (err) {
      const e = err as RemotingError;
      return answer(e.code ?? ResponseCode.SYSTEM_ERROR, e.remark ?? String(err));
    }
    try {
      const picked = checkAndPickQueue(ctx, header, rc);
      const queueId = typeof picked === "number" ? picked : await picked;
      if (header.batch) {
        const batch = buildBatch(ctx, header, queueId, request.body, rc);
        return respond(ctx, answer, header, queueId, batch, await ctx.store.putMessages(batch));
      }
      const built = buildMessage(ctx, header, queueId, request.body, rc);
      const redelivery = redeliveryOfSend(ctx, header, request.version);
      const stepped = steps(built, { redelivery, now: Date.now() });
      const msg = stepped instanceof Promise ? await stepped : stepped;
      const put = await ctx.store.putMessage(msg);
      if (msg.topic === TRANS_HALF_TOPIC) ctx.transactions.halves.stored(msg, put);
      return respond(ctx, answer, header, queueId, [msg], put);
    } catch (err) {
      if (err instanceof RemotingError) {
        return answer(err.code, err.remark);
      }
      throw err;
    }
  };
}

/**
 * msgCheck (spec §1.4 step 3) and queue choice (step 4); auto-creates the topic when allowed.
 * Synchronous when the topic exists, which is every send but a topic's first. Replies (reply.ts)
 * pass the same checks.
 */
export function checkAndPickQueue(
  ctx: BrokerContext,
  h: SendMessageRequestHeader,
  rc: RequestContext,
): number | Promise<number> {
  const problem = topicNameProblem(h.topic);
  if (problem) throw new RemotingError(ResponseCode.INVALID_PARAMETER, problem);
  if (NOT_ALLOWED_SEND_TOPICS.has(h.topic)) {
    throw new RemotingError(ResponseCode.NO_PERMISSION, `Sending message to topic[${h.topic}] is forbidden.`);
  }
  if (!isWriteable(ctx.runtime.brokerPermission)) {
    throw new RemotingError(
      ResponseCode.NO_PERMISSION,
      `the broker[${ctx.brokerConfig.brokerName}] sending message is forbidden`,
    );
  }
  const topic = ctx.topics.get(h.topic);
  return topic ? pickQueue(topic, h, rc) : createTopicAndPickQueue(ctx, h, rc);
}

async function createTopicAndPickQueue(
  ctx: BrokerContext,
  h: SendMessageRequestHeader,
  rc: RequestContext,
): Promise<number> {
  if (h.defaultTopicQueueNums < 1) {
    // Java clamps this to 0 and stores a topic with no queue, which every later send then fails on.
    throw new RemotingError(
      ResponseCode.INVALID_PARAMETER,
      `request defaultTopicQueueNums[${h.defaultTopicQueueNums}] is illegal, topic[${h.topic}] is not created, producer ${rc.connection.remoteAddress}`,
    );
  }
  // A retry topic gets its group's retry queue count (spec §9.3), not the template's.
  const topic = isRetryTopic(h.topic)
    ? await createRetryTopic(ctx, h.topic, groupConfigOrThrow(ctx, groupOfRetryTopic(h.topic)), !!h.unitMode)
    : await ctx.topics.createInSendMessage(
        h.topic,
        h.defaultTopic,
        h.defaultTopicQueueNums,
        h.unitMode ? buildTopicSysFlag(true, false) : 0,
      );
  if (!topic) {
    throw new RemotingError(
      ResponseCode.TOPIC_NOT_EXIST,
      `topic[${h.topic}] not exist, apply first please! (producer ${rc.connection.remoteAddress})`,
    );
  }
  return pickQueue(topic, h, rc);
}

function pickQueue(
  topic: { readonly writeQueueNums: number; readonly readQueueNums: number },
  h: SendMessageRequestHeader,
  rc: RequestContext,
): number {
  const queueMax = Math.max(topic.writeQueueNums, topic.readQueueNums);
  if (h.queueId >= queueMax) {
    throw new RemotingError(
      ResponseCode.INVALID_PARAMETER,
      `request queueId[${h.queueId}] is illegal, topic[${h.topic}] queues ${queueMax}, producer ${rc.connection.remoteAddress}`,
    );
  }
  if (h.queueId >= 0) return h.queueId;
  if (topic.writeQueueNums <= 0) {
    throw new RemotingError(ResponseCode.NO_PERMISSION, `topic[${h.topic}] has no writable queue`);
  }
  return randomQueue(topic.writeQueueNums);
}

/** Java's remark for a put the store refuses as MESSAGE_ILLEGAL (spec §1.8). */
function illegalRemark(ctx: BrokerContext): string {
  return `the message is illegal, maybe msg body or properties length not matched. msg body length limit ${ctx.storeConfig.maxMessageSize}B, msg properties length limit 32KB.`;
}

function buildMessage(
  ctx: BrokerContext,
  h: SendMessageRequestHeader,
  queueId: number,
  body: Uint8Array | null,
  rc: RequestContext,
): MessageToStore {
  if (!body || body.length === 0)
    throw new RemotingError(ResponseCode.MESSAGE_ILLEGAL, "message body is empty");
  const { properties, propertiesString } = storedProperties(ctx, h.properties ?? "", brokerSuffixOf(ctx));
  return messageToStore(ctx, h, queueId, body, rc, properties, propertiesString);
}

/** The stored form of one sent message, with its properties as the caller settled them. */
export function messageToStore(
  ctx: BrokerContext,
  h: SendMessageRequestHeader,
  queueId: number,
  body: Uint8Array,
  rc: RequestContext,
  properties: ReadonlyMap<string, string>,
  propertiesString: string,
): MessageToStore {
  return {
    topic: h.topic,
    queueId,
    flag: h.flag,
    body,
    properties,
    propertiesString,
    bornTimestamp: h.bornTimestamp,
    bornHost: bornHostOf(rc),
    storeHost: ctx.storeHost,
    sysFlag: h.sysFlag,
    reconsumeTimes: h.reconsumeTimes ?? 0,
    preparedTransactionOffset: 0,
  };
}

/** One stored message per batch item, inner properties first, then missing container keys (spec §1.9). */
function buildBatch(
  ctx: BrokerContext,
  h: SendMessageRequestHeader,
  queueId: number,
  body: Uint8Array | null,
  rc: RequestContext,
): MessageToStore[] {
  if (isRetryTopic(h.topic)) {
    throw new RemotingError(ResponseCode.MESSAGE_ILLEGAL, "batch request does not support retry group");
  }
  if (!body || body.length === 0)
    throw new RemotingError(ResponseCode.MESSAGE_ILLEGAL, "message body is empty");
  let items: ReturnType<typeof decodeBatch>;
  try {
    items = decodeBatch(body);
  } catch (err) {
    throw new RemotingError(ResponseCode.MESSAGE_ILLEGAL, `bad batch body: ${(err as Error).message}`);
  }
  if (items.length === 0) throw new RemotingError(ResponseCode.MESSAGE_ILLEGAL, "batch body has no message");
  // Java's store refuses a batch with transaction bits (CommitLog#asyncPutMessages): batches are
  // never half messages.
  if (transactionType(h.sysFlag) !== MessageSysFlag.TRANSACTION_NOT_TYPE) {
    throw new RemotingError(ResponseCode.MESSAGE_ILLEGAL, illegalRemark(ctx));
  }
  const container = decodeProperties(h.properties ?? "");
  if (Number(container.get(MessageConst.DELAY) ?? 0) > 0) {
    throw new RemotingError(ResponseCode.MESSAGE_ILLEGAL, "batch message does not support delay");
  }
  // The container's UNIQ_KEY would give every inner message the same id (issue #9416): leave it out.
  container.delete(MessageConst.UNIQ_KEY);
  const containerString = encodeProperties(container);
  const bornHost = bornHostOf(rc);
  const suffix = brokerSuffixOf(ctx);
  return items.map((item) => {
    const stored = storedProperties(ctx, mergeBatchProperties(item.properties, containerString), suffix);
    return {
      topic: h.topic,
      queueId,
      flag: item.flag,
      body: item.body,
      properties: stored.properties,
      propertiesString: stored.propertiesString,
      bornTimestamp: h.bornTimestamp,
      bornHost,
      storeHost: ctx.storeHost,
      sysFlag: h.sysFlag,
      reconsumeTimes: h.reconsumeTimes ?? 0,
      preparedTransactionOffset: 0,
    };
  });
}

const STATUS_ANSWERS: Partial<Record<PutMessageStatus, [number, string | null]>> = {
  [PutMessageStatus.PUT_OK]: [ResponseCode.SUCCESS, null],
  [PutMessageStatus.FLUSH_DISK_TIMEOUT]: [ResponseCode.FLUSH_DISK_TIMEOUT, null],
  [PutMessageStatus.FLUSH_SLAVE_TIMEOUT]: [ResponseCode.FLUSH_SLAVE_TIMEOUT, null],
  [PutMessageStatus.SLAVE_NOT_AVAILABLE]: [ResponseCode.SLAVE_NOT_AVAILABLE, null],
  [PutMessageStatus.CREATE_MAPPED_FILE_FAILED]: [
    ResponseCode.SYSTEM_ERROR,
    "create mapped file failed, server is busy or broken.",
  ],
  [PutMessageStatus.SERVICE_NOT_AVAILABLE]: [
    ResponseCode.SERVICE_NOT_AVAILABLE,
    "service not available now. It may be caused by one of the following reasons: the broker's disk is full, messages are put to the slave, message store has been shut down, etc.",
  ],
  [PutMessageStatus.OS_PAGE_CACHE_BUSY]: [
    ResponseCode.SYSTEM_BUSY,
    "[PC_SYNCHRONIZED]broker busy, start flow control for a while",
  ],
  [PutMessageStatus.UNKNOWN_ERROR]: [ResponseCode.SYSTEM_ERROR, "UNKNOWN_ERROR"],
};

function respond(
  ctx: BrokerContext,
  answer: (code: number, remark: string | null, ext?: Record<string, string>) => RemotingCommand,
  h: SendMessageRequestHeader,
  queueId: number,
  messages: MessageToStore[],
  put: PutMessageResult,
): RemotingCommand {
  if (
    put.status === PutMessageStatus.MESSAGE_ILLEGAL ||
    put.status === PutMessageStatus.PROPERTIES_SIZE_EXCEEDED
  ) {
    return answer(ResponseCode.MESSAGE_ILLEGAL, illegalRemark(ctx));
  }
  const [code, remark] = STATUS_ANSWERS[put.status] ?? [ResponseCode.SYSTEM_ERROR, put.status];
  if (!put.result || !STORED_STATUSES.has(put.status)) return answer(code, remark);
  const bytes = messages.reduce((sum, m) => sum + m.body.length, 0);
  const now = Date.now();
  ctx.stats.countPut(h.topic, messages.length, bytes, put.result.wroteBytes, now);
  const ext = SendMessageResponseHeader.encode({
    msgId: put.result.msgId,
    queueId,
    queueOffset: put.result.queueOffset,
    transactionId: h.batch ? undefined : messages[0]?.properties.get(MessageConst.UNIQ_KEY),
    recallHandle: h.batch ? undefined : recallHandleOf(ctx, messages[0]!),
  });
  return answer(code, remark, ext);
}

/**
 * The handle RECALL_MESSAGE takes back (spec pop-timer-filter §B.6.2), for a message the timer
 * holds; not for retry copies, nor for a message without UNIQ_KEY (nothing to name it by).
 */
function recallHandleOf(ctx: BrokerContext, msg: MessageToStore): string | undefined {
  if (msg.topic !== TIMER_TOPIC) return undefined;
  const slot = Number(msg.properties.get(MessageConst.TIMER_OUT_MS));
  const realTopic = msg.properties.get(MessageConst.REAL_TOPIC);
  const uniqKey = msg.properties.get(MessageConst.UNIQ_KEY);
  if (!realTopic || !uniqKey || isRetryTopic(realTopic) || !Number.isSafeInteger(slot)) return undefined;
  return encodeRecallHandle({
    topic: realTopic,
    brokerName: ctx.brokerConfig.brokerName,
    timestamp: String(slot + 1),
    messageId: uniqKey,
  });
}
