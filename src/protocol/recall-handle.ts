/**
 * The recall handle of a timer message (spec pop-timer-filter §B.6.2): URL-safe, padded base64 of
 * `v1 <realTopic> <brokerName> <timestamp> <UNIQ_KEY>`, where the timestamp is `TIMER_OUT_MS + 1`,
 * which rounds back into the message's slot. Returned in the send response; RECALL_MESSAGE (370)
 * takes it back.
 */

export const RECALL_HANDLE_VERSION = "v1";
const SEPARATOR = " ";
const FIELDS_MIN = 5;

export interface RecallHandle {
  readonly topic: string;
  readonly brokerName: string;
  /** As written: RECALL_MESSAGE checks that it is a number itself. */
  readonly timestamp: string;
  readonly messageId: string;
}

export function encodeRecallHandle(h: RecallHandle): string {
  const raw = [RECALL_HANDLE_VERSION, h.topic, h.brokerName, h.timestamp, h.messageId].join(SEPARATOR);
  return Buffer.from(raw, "utf8").toString("base64").replaceAll("+", "-").replaceAll("/", "_");
}

/** The handle's fields, or undefined where Java's decodeHandle throws "recall handle is invalid". */
export function decodeRecallHandle(handle: string): RecallHandle | undefined {
  // Java's URL decoder takes the URL-safe alphabet, with or without padding, and nothing else.
  if (handle.length === 0 || !/^[A-Za-z0-9_-]*={0,2}$/.test(handle) || handle.length % 4 === 1) {
    return undefined;
  }
  const items = Buffer.from(handle, "base64url").toString("utf8").split(SEPARATOR);
  if (items[0] !== RECALL_HANDLE_VERSION || items.length < FIELDS_MIN) return undefined;
  return { topic: items[1]!, brokerName: items[2]!, timestamp: items[3]!, messageId: items[4]! };
}
