/**
 * Request-reply over messages (Java's DefaultMQProducerImpl#request and MessageUtil.createReplyMessage):
 * a request is an ordinary send carrying CORRELATION_ID, REPLY_TO_CLIENT (the requester's clientId)
 * and TTL; a consumer answers with a reply message (MSG_TYPE=reply) to `<cluster>_REPLY_TOPIC`,
 * sent with SEND_REPLY_MESSAGE_V2 (325), which the broker pushes to the requester (spec broker §1.10).
 */
import { encodeProperties, MessageConst } from "../protocol/message/index.ts";
import { MQClientError } from "./errors.ts";
import { bodyBytes, encodeMessageProperties, type Message, type MessageExt } from "./message.ts";
import type { Producer, SendOptions } from "./producer.ts";
import { ClientErrorCode } from "./request-futures.ts";
import type { SendResult } from "./send-request.ts";

/** MixAll.REPLY_MESSAGE_FLAG: the MSG_TYPE of a reply. */
export const REPLY_MESSAGE_FLAG = "reply";

/** MixAll.getReplyTopic: the cluster's reply topic, created by every broker at startup. */
export function replyTopicOf(cluster: string): string {
  return `${cluster}_REPLY_TOPIC`;
}

export interface RequestOptions extends SendOptions {
  /** How long to wait for the reply, send included (default: the producer's sendMsgTimeoutMs). */
  timeoutMs?: number;
}

/**
 * Sends `msg` as a request and resolves with the reply. Rejects with the send's error when the send
 * fails, and with REQUEST_TIMEOUT_EXCEPTION (10006) when no reply comes within the timeout.
 */
export async function sendRequest(
  producer: Producer,
  msg: Message,
  timeoutMs: number,
  options: SendOptions,
): Promise<MessageExt> {
  const begin = Date.now();
  const client = producer.client;
  const body = bodyBytes(msg.body);
  const correlationId = crypto.randomUUID();
  const msgId = client.nextUniqueId();
  const request = new Map([
    [MessageConst.CORRELATION_ID, correlationId],
    [MessageConst.REPLY_TO_CLIENT, client.clientId],
    [MessageConst.TTL, String(timeoutMs)],
  ]);
  const properties = encodeMessageProperties(msg, msgId) + encodeProperties(request);
  if (!client.routes.routes.has(msg.topic)) {
    // The broker pushes the reply to the connection this client heartbeats on: make sure the
    // brokers of the topic know it before the first request goes (Java's prepareSendRequest).
    await producer.fetchPublishQueues(msg.topic);
    await client.heartbeatAll();
  }
  const left = timeoutMs - (Date.now() - begin);
  const reply = client.requests.wait(correlationId, msg.topic, timeoutMs, left);
  // The wait may time out while the send is still in flight: handled here, returned to the caller.
  reply.catch(() => {});
  try {
    await producer.sendEncoded(
      { topic: msg.topic, body, flag: msg.flag ?? 0, properties, msgId, source: msg },
      { ...options, timeoutMs: left },
    );
  } catch (err) {
    client.requests.fail(correlationId, err as Error);
  }
  return reply;
}

/**
 * Answers a request message a consumer received, as MessageUtil.createReplyMessage builds the
 * reply: to the reply topic of the cluster that stored the request (its CLUSTER property), with
 * the request's CORRELATION_ID, REPLY_TO_CLIENT and TTL.
 */
export function sendReply(
  producer: Producer,
  requestMsg: MessageExt,
  body: Uint8Array | string,
  options: SendOptions = {},
): Promise<SendResult> {
  const cluster = requestMsg.properties[MessageConst.CLUSTER];
  if (cluster === undefined) {
    return Promise.reject(
      new MQClientError({
        code: ClientErrorCode.CREATE_REPLY_MESSAGE_EXCEPTION,
        remark: `create reply message fail, requestMessage error, property[${MessageConst.CLUSTER}] is null.`,
      }),
    );
  }
  const msgId = producer.client.nextUniqueId();
  const props = new Map<string, string>([[MessageConst.MSG_TYPE, REPLY_MESSAGE_FLAG]]);
  for (const key of [MessageConst.CORRELATION_ID, MessageConst.REPLY_TO_CLIENT, MessageConst.TTL]) {
    const value = requestMsg.properties[key];
    if (value !== undefined) props.set(key, value);
  }
  props.set(MessageConst.UNIQ_KEY, msgId);
  const topic = replyTopicOf(cluster);
  const bytes = bodyBytes(body);
  return producer.sendEncoded(
    { topic, body: bytes, properties: encodeProperties(props), msgId, reply: true },
    options,
  );
}
