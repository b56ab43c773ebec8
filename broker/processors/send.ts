/**
 * SEND_MESSAGE (10), SEND_MESSAGE_V2 (310), SEND_BATCH_MESSAGE (320) (spec broker §1): check the
 * request, pick the queue, complete the properties, store, and answer with the offset message id.
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
  type HostAddress,
  MessageConst,
  MessageSysFlag,
  mergeBatchProperties,
  PICKED_KEYS,
  PROPERTY_SEPARATOR,
  PropertiesView,
  parseHostAddress,
  pickCanonical,
} from "../../src/protocol/message/index.ts";
import { buildTopicSysFlag, DEFAULT_PERM, isWriteable } from "../../src/protocol/route/perm.ts";
import { NOT_ALLOWED_SEND_TOPICS, topicNameProblem } from "../../src/protocol/topic-names.ts";
import { RemotingCommand } from "../../src/remoting/command.ts";
import { RemotingError } from "../../src/remoting/errors.ts";
import type { RequestContext } from "../../src/remoting/processor-registry.ts";
import { RequestCode } from "../../src/remoting/request-code.ts";
import { ResponseCode } from "../../src/remoting/response-code.ts";
import type { BrokerContext } from "../context.ts";
import type { MessageToStore, PutMessageResult } from "../store/message-store.ts";
import { PutMessageStatus } from "../store/status.ts";
import { isRetryTopic } from "../topics/topic-validator.ts";
import { redirectOrderedRetry } from "./ordered-retry.ts";

/** Java's random queue pick for queueId < 0: random(0..99999998) % writeQueueNums. */
function randomQueue(writeQueueNums: number): number {
  return Math.floor(Math.random() * 99_999_999) % writeQueueNums;
}

export function createSendProcessor(ctx: BrokerContext) {
  const traceOn = String(ctx.brokerConfig.traceOn);
  const regionId = ctx.brokerConfig.regionId;

  /** A send answer: header fields plus the two extFields every send response carries. */
  const answer = (code: number, remark: string | null, ext: Record<string, string> = {}) =>
    RemotingCommand.response(code, remark, { ...ext, MSG_REGION: regionId, TRACE_ON: traceOn });

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
      if (isRetryTopic(header.topic)) header = await redirectOrderedRetry(ctx, header);
      const picked = checkAndPickQueue(ctx, header, rc);
      const queueId = typeof picked === "number" ? picked : await picked;
      const messages = header.batch
        ? buildBatch(ctx, header, queueId, request.body, rc)
        : [buildMessage(ctx, header, queueId, request.body, rc)];
      const result = header.batch
        ? await ctx.store.putMessages(messages)
        : await ctx.store.putMessage(messages[0]!);
      return respond(ctx, answer, header, queueId, messages, result);
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
 * Synchronous when the topic exists, which is every send but a topic's first.
 */
function checkAndPickQueue(
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
  // Java's unit flags: a retry topic is UNIT_SUB, any other topic UNIT.
  const sysFlag = h.unitMode ? buildTopicSysFlag(!isRetryTopic(h.topic), isRetryTopic(h.topic)) : 0;
  let topic = await ctx.topics.createInSendMessage(h.topic, h.defaultTopic, h.defaultTopicQueueNums, sysFlag);
  if (!topic && isRetryTopic(h.topic))
    topic = await ctx.topics.createIfAbsent(h.topic, 1, DEFAULT_PERM, sysFlag);
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

/**
 * Stored properties: the client's plus the broker's own keys (spec §1.4 step 7). Like a 4.9 broker we
 * add no UNIQ_KEY: a client that sent none (ali-ons) reports the offset id as the message id, and
 * consumers then see that same id.
 */
function completeProperties(ctx: BrokerContext, props: Map<string, string>): Map<string, string> {
  props.set(MessageConst.CLUSTER, ctx.brokerConfig.brokerClusterName);
  props.set(MessageConst.MSG_REGION, ctx.brokerConfig.regionId);
  props.set(MessageConst.TRACE_ON, String(ctx.brokerConfig.traceOn));
  return props;
}

/** The broker's keys as `completeProperties` would append them to a map that lacks them. */
function brokerSuffixOf(ctx: BrokerContext): string {
  const c = ctx.brokerConfig;
  const cached = suffixCache.get(ctx);
  if (
    cached &&
    cached.cluster === c.brokerClusterName &&
    cached.region === c.regionId &&
    cached.traceOn === c.traceOn
  ) {
    return cached.suffix;
  }
  const suffix = encodeProperties(completeProperties(ctx, new Map()));
  suffixCache.set(ctx, { cluster: c.brokerClusterName, region: c.regionId, traceOn: c.traceOn, suffix });
  return suffix;
}

/** Per broker: the config values the suffix was built from, so a config change rebuilds it. */
const suffixCache = new WeakMap<
  BrokerContext,
  { cluster: string; region: string; traceOn: boolean; suffix: string }
>();

/**
 * The stored properties of a client's properties string. When the string is canonical (what
 * encodeProperties of its own decoding gives) and lacks the broker's keys, decoding, completing and
 * re-encoding would only append `suffix`; so append it and look keys up in the string. Otherwise
 * take the map route. Both give the same bytes.
 */
function storedProperties(
  ctx: BrokerContext,
  client: string,
  suffix: string,
): { properties: ReadonlyMap<string, string>; propertiesString: string } {
  const picked = pickCanonical(client);
  if (
    picked &&
    picked[CLUSTER_AT] === undefined &&
    picked[REGION_AT] === undefined &&
    picked[TRACE_AT] === undefined
  ) {
    const joined =
      client.length === 0 || client.endsWith(PROPERTY_SEPARATOR)
        ? client + suffix
        : client + PROPERTY_SEPARATOR + suffix;
    // An empty config value is dropped by encodeProperties, so the string then has no such key.
    const c = ctx.brokerConfig;
    picked[CLUSTER_AT] = c.brokerClusterName || undefined;
    picked[REGION_AT] = c.regionId || undefined;
    picked[TRACE_AT] = String(c.traceOn);
    return { properties: new PropertiesView(joined, picked), propertiesString: joined };
  }
  const props = completeProperties(ctx, decodeProperties(client));
  return { properties: props, propertiesString: encodeProperties(props) };
}

const CLUSTER_AT = PICKED_KEYS.indexOf(MessageConst.CLUSTER);
const REGION_AT = PICKED_KEYS.indexOf(MessageConst.MSG_REGION);
const TRACE_AT = PICKED_KEYS.indexOf(MessageConst.TRACE_ON);

function rejectUnsupported(ctx: BrokerContext, props: ReadonlyMap<string, string>, sysFlag: number): void {
  const prepared = (sysFlag & MessageSysFlag.TRANSACTION_PREPARED_TYPE) !== 0;
  if (props.get(MessageConst.TRAN_MSG)?.toLowerCase() === "true" || prepared) {
    // Half messages need END_TRANSACTION and check-back; until the broker has them it refuses, as
    // a Java broker with rejectTransactionMessage=true does.
    throw new RemotingError(
      ResponseCode.NO_PERMISSION,
      `the broker[${ctx.brokerConfig.brokerName}] sending transaction message is forbidden`,
    );
  }
}

/** The producer's address as a record host, parsed once per connection. */
function bornHostOf(rc: RequestContext): HostAddress {
  const cached = rc.connection.attributes.get(BORN_HOST);
  if (cached) return cached as HostAddress;
  let host: HostAddress;
  try {
    host = parseHostAddress(rc.connection.remoteAddress);
  } catch {
    host = parseHostAddress("127.0.0.1:0");
  }
  rc.connection.attributes.set(BORN_HOST, host);
  return host;
}

const BORN_HOST = "send.bornHost";

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
  rejectUnsupported(ctx, properties, h.sysFlag);
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
  const container = decodeProperties(h.properties ?? "");
  rejectUnsupported(ctx, container, h.sysFlag);
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

/** Outcomes where the message is stored and the response header must be filled (spec §1.3). */
const STORED: ReadonlySet<PutMessageStatus> = new Set([
  PutMessageStatus.PUT_OK,
  PutMessageStatus.FLUSH_DISK_TIMEOUT,
  PutMessageStatus.FLUSH_SLAVE_TIMEOUT,
  PutMessageStatus.SLAVE_NOT_AVAILABLE,
]);

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
    return answer(
      ResponseCode.MESSAGE_ILLEGAL,
      `the message is illegal, maybe msg body or properties length not matched. msg body length limit ${ctx.storeConfig.maxMessageSize}B, msg properties length limit 32KB.`,
    );
  }
  const [code, remark] = STATUS_ANSWERS[put.status] ?? [ResponseCode.SYSTEM_ERROR, put.status];
  if (!put.result || !STORED.has(put.status)) return answer(code, remark);
  const bytes = messages.reduce((sum, m) => sum + m.body.length, 0);
  const now = Date.now();
  ctx.stats.putNums.add(messages.length, now);
  ctx.stats.putSize.add(bytes, now);
  const ext = SendMessageResponseHeader.encode({
    msgId: put.result.msgId,
    queueId,
    queueOffset: put.result.queueOffset,
    transactionId: h.batch ? undefined : messages[0]?.properties.get(MessageConst.UNIQ_KEY),
  });
  return answer(code, remark, ext);
}
