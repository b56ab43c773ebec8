/**
 * Send request/response headers (spec broker §1.2-1.3). SEND_MESSAGE (10) uses the long names;
 * SEND_MESSAGE_V2 (310), SEND_BATCH_MESSAGE (320) and reply V2 (325) use one-letter names `a`..`n`.
 * Both decode to the same long-form header; whether the body is a batch is decided by `batch` alone.
 */
import type { ExtFields } from "../../remoting/command.ts";
import { defineHeader, field, type HeaderOf } from "../../remoting/custom-header.ts";

/** The fields SEND_MESSAGE shares with the reply push header (reply.ts), in Java's order. */
export const messageHeaderFields = {
  producerGroup: field.string(),
  topic: field.string(),
  defaultTopic: field.string(),
  defaultTopicQueueNums: field.int(),
  queueId: field.int(),
  sysFlag: field.int(),
  bornTimestamp: field.long(),
  flag: field.int(),
  properties: field.string().optional(),
  reconsumeTimes: field.int().optional(),
  unitMode: field.bool().optional(),
};

const sendFields = {
  ...messageHeaderFields,
  maxReconsumeTimes: field.int().optional(),
  batch: field.bool().optional(),
  brokerName: field.string().optional(),
};

export const SendMessageRequestHeader = defineHeader(sendFields);
export type SendMessageRequestHeader = HeaderOf<typeof sendFields>;

/** The V2 header: the same fields under one-letter wire names (spec §1.2 table). */
export const SendMessageRequestHeaderV2 = defineHeader({
  producerGroup: field.string().as("a"),
  topic: field.string().as("b"),
  defaultTopic: field.string().as("c"),
  defaultTopicQueueNums: field.int().as("d"),
  queueId: field.int().as("e"),
  sysFlag: field.int().as("f"),
  bornTimestamp: field.long().as("g"),
  flag: field.int().as("h"),
  properties: field.string().as("i").optional(),
  reconsumeTimes: field.int().as("j").optional(),
  unitMode: field.bool().as("k").optional(),
  maxReconsumeTimes: field.int().as("l").optional(),
  batch: field.bool().as("m").optional(),
  brokerName: field.string().as("n").optional(),
});

/** Decodes either header form by request code kind. */
export function decodeSendHeader(ext: ExtFields | null, v2: boolean): SendMessageRequestHeader {
  return v2 ? SendMessageRequestHeaderV2.decode(ext) : SendMessageRequestHeader.decode(ext);
}

export const SendMessageResponseHeader = defineHeader({
  msgId: field.string(),
  queueId: field.int(),
  queueOffset: field.long(),
  transactionId: field.string().optional(),
  batchUniqId: field.string().optional(),
  /** 5.3: handle for RECALL_MESSAGE (370), on timer messages only (spec pop-timer-filter §B.6.2). */
  recallHandle: field.string().optional(),
});
export type SendMessageResponseHeader = HeaderOf<typeof SendMessageResponseHeader.fields>;
