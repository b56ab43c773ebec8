/**
 * SEND_REPLY_MESSAGE (324, long header names) and SEND_REPLY_MESSAGE_V2 (325, one-letter names) of
 * request-reply (spec broker §1.10): the replier's message passes the send checks, is pushed at once
 * to the connection of the requesting producer named by REPLY_TO_CLIENT with
 * PUSH_REPLY_MESSAGE_TO_CLIENT (326), and, when storeReplyMessageEnable, is also stored in its topic
 * (normally `<cluster>_REPLY_TOPIC`). The answer's code is the push's; a stored reply reports its
 * offset id and queue offset, an unstored one msgId "0" and offset 0, as Java's broker does.
 */

import { ReplyMessageRequestHeader } from "../../src/protocol/headers/reply.ts";
import { decodeSendHeader, SendMessageResponseHeader } from "../../src/protocol/headers/send.ts";
import {
  decodeProperties,
  encodeProperties,
  formatHostAddress,
  MessageConst,
} from "../../src/protocol/message/index.ts";
import { RemotingCommand } from "../../src/remoting/command.ts";
import { RemotingError } from "../../src/remoting/errors.ts";
import type { ProcessorTableEntry, RequestContext } from "../../src/remoting/processor-registry.ts";
import { RequestCode } from "../../src/remoting/request-code.ts";
import { ResponseCode } from "../../src/remoting/response-code.ts";
import type { BrokerContext } from "../context.ts";
import { STORED_STATUSES } from "../services/stored-message.ts";
import { CALL_CLIENT_TIMEOUT_MS } from "./consumer-call.ts";
import { checkAndPickQueue, messageToStore } from "./send.ts";
import { bornHostOf } from "./send-properties.ts";

type SendHeader = ReturnType<typeof decodeSendHeader>;

/** The push's outcome: null when the requester answered SUCCESS, else the remark Java gives. */
type PushFailure = string | null;

export function replyProcessors(ctx: BrokerContext): ProcessorTableEntry[] {
  const process = createReplyProcessor(ctx);
  return [
    [RequestCode.SEND_REPLY_MESSAGE, process],
    [RequestCode.SEND_REPLY_MESSAGE_V2, process],
  ];
}

function createReplyProcessor(ctx: BrokerContext) {
  const answer = (code: number, remark: string | null, ext: Record<string, string> = {}) =>
    RemotingCommand.response(code, remark, {
      ...ext,
      MSG_REGION: ctx.brokerConfig.regionId,
      TRACE_ON: String(ctx.brokerConfig.traceOn),
    });

  return async (request: RemotingCommand, rc: RequestContext): Promise<RemotingCommand> => {
    let header: SendHeader;
    let queueId: number;
    try {
      header = decodeSendHeader(request.extFields, request.code === RequestCode.SEND_REPLY_MESSAGE_V2);
      const picked = checkAndPickQueue(ctx, header, rc);
      queueId = typeof picked === "number" ? picked : await picked;
    } catch (err) {
      if (err instanceof RemotingError) return answer(err.code, err.remark);
      throw err;
    }
    const body = request.body ?? new Uint8Array(0);
    const properties = decodeProperties(header.properties ?? "");
    const failure = await pushReply(ctx, header, properties, body, rc);
    // Stored whatever the push gave, as Java does: the reply topic keeps every reply.
    const stored = ctx.brokerConfig.storeReplyMessageEnable
      ? await storeReply(ctx, header, queueId, properties, body, rc)
      : null;
    if (failure !== null) return answer(ResponseCode.SYSTEM_ERROR, failure);
    const position = { msgId: stored?.msgId ?? "0", queueId, queueOffset: stored?.queueOffset ?? 0 };
    return answer(ResponseCode.SUCCESS, null, SendMessageResponseHeader.encode(position));
  };
}

/** Pushes the reply to the requester's connection; waits for its answer up to 10 s as Java does. */
async function pushReply(
  ctx: BrokerContext,
  h: SendHeader,
  properties: ReadonlyMap<string, string>,
  body: Uint8Array,
  rc: RequestContext,
): Promise<PushFailure> {
  const senderId = properties.get(MessageConst.REPLY_TO_CLIENT);
  if (senderId === undefined) {
    const remark = `reply message properties[${MessageConst.REPLY_TO_CLIENT}] is null`;
    ctx.log.warn({ topic: h.topic }, remark);
    return remark;
  }
  const channel = ctx.clients.findProducerChannel(senderId);
  if (!channel) {
    const remark = `push reply message fail, channel of <${senderId}> not found.`;
    ctx.log.warn({ topic: h.topic, senderId }, remark);
    return remark;
  }
  const pushed = new Map(properties);
  pushed.set(MessageConst.PUSH_REPLY_TIME, String(Date.now()));
  const ext = ReplyMessageRequestHeader.encode({
    producerGroup: h.producerGroup,
    topic: h.topic,
    defaultTopic: h.defaultTopic,
    defaultTopicQueueNums: h.defaultTopicQueueNums,
    // The requested queue id, not the picked one (Java's header copies the request's).
    queueId: h.queueId,
    sysFlag: h.sysFlag,
    bornTimestamp: h.bornTimestamp,
    flag: h.flag,
    properties: encodeProperties(pushed),
    ...(h.reconsumeTimes !== undefined ? { reconsumeTimes: h.reconsumeTimes } : {}),
    unitMode: h.unitMode ?? false,
    bornHost: formatHostAddress(bornHostOf(rc)),
    storeHost: formatHostAddress(ctx.storeHost),
    storeTimestamp: Date.now(),
  });
  // Java's remark lacks the space before "fail."; kept, since clients may match on it.
  const failed = `push reply message to ${senderId}fail.`;
  try {
    const push = RemotingCommand.request(RequestCode.PUSH_REPLY_MESSAGE_TO_CLIENT, ext, body);
    const answer = await ctx.endpoint().invoke(channel.conn, push, CALL_CLIENT_TIMEOUT_MS);
    if (answer.code === ResponseCode.SUCCESS) return null;
    ctx.log.warn({ senderId, code: answer.code, remark: answer.remark }, "push reply message refused");
  } catch (err) {
    ctx.log.warn({ senderId, err: (err as Error).message }, "push reply message failed");
  }
  return failed;
}

/** Stores the reply with the replier's properties as sent; its position, or null when not stored. */
async function storeReply(
  ctx: BrokerContext,
  h: SendHeader,
  queueId: number,
  properties: ReadonlyMap<string, string>,
  body: Uint8Array,
  rc: RequestContext,
): Promise<{ msgId: string; queueOffset: number } | null> {
  const put = await ctx.store.putMessage(
    messageToStore(ctx, h, queueId, body, rc, properties, h.properties ?? ""),
  );
  if (!put.result || !STORED_STATUSES.has(put.status)) {
    ctx.log.warn({ topic: h.topic, status: put.status }, "reply message not stored");
    return null;
  }
  const now = Date.now();
  ctx.stats.putNums.add(1, now);
  ctx.stats.putSize.add(body.length, now);
  return { msgId: put.result.msgId, queueOffset: put.result.queueOffset };
}
