/**
 * Put-path checks and record preparation shared by the file and memory stores (spec §1.7, §1.8).
 */
import {
  encodeProperties,
  MessageConst,
  type PreparedRecord,
  prepareRecord,
  RecordTooLargeError,
} from "../../src/protocol/message/index.ts";
import type { MessageToStore } from "./message-store.ts";
import { PutMessageStatus } from "./status.ts";

/** Prepares a record, or names the status that rejects it. */
export function prepareForStore(
  msg: MessageToStore,
  maxMessageSize: number,
): PreparedRecord | PutMessageStatus {
  if (msg.body.length > maxMessageSize || msg.topic.length === 0 || msg.queueId < 0) {
    return PutMessageStatus.MESSAGE_ILLEGAL;
  }
  try {
    // The message is the record's fields as it is: no copy of them per put.
    return prepareRecord(msg, msg.propertiesString ?? encodeProperties(msg.properties));
  } catch (err) {
    if (err instanceof RecordTooLargeError && err.field === "properties")
      return PutMessageStatus.PROPERTIES_SIZE_EXCEEDED;
    return PutMessageStatus.MESSAGE_ILLEGAL;
  }
}

/** `WAIT` absent or anything but "false" means the put waits for durability (spec §2.2). */
export function waitStoreMsgOk(msg: MessageToStore): boolean {
  return msg.properties.get(MessageConst.WAIT) !== "false";
}

/** A batch must be one queue of one topic (spec §1.9). */
export function sameQueue(batch: readonly MessageToStore[]): boolean {
  const first = batch[0];
  return first !== undefined && batch.every((m) => m.topic === first.topic && m.queueId === first.queueId);
}
