/**
 * Reading one queue from an offset to another with non-committing pulls, for the verbs that print
 * or count stored messages (printMsg, printMsgByQueue). Tags are matched here, as a consumer's
 * client-side check does, so `TagA || TagB` selects the same messages on any broker.
 */
import type { Admin, MessageExt } from "../../client/index.ts";
import { decodeMessages } from "../../client/message.ts";
import type { MessageQueue } from "../../client/message-queue.ts";

/** Messages asked for per pull. */
const PULL_BATCH = 32;

export interface RangeRead {
  messages: MessageExt[];
  /** Where the read stopped (the next offset to read). */
  offset: number;
  /** The last pull's status: FOUND, NO_NEW_MSG, NO_MATCHED_MSG, OFFSET_ILLEGAL. */
  status: string;
}

/** A `TagA || TagB` expression as a predicate; `*` or empty matches every message. */
export function tagFilter(expression: string | undefined): (m: MessageExt) => boolean {
  const tags = (expression ?? "*")
    .split("||")
    .map((t) => t.trim())
    .filter((t) => t !== "");
  if (tags.length === 0 || tags.includes("*")) return () => true;
  const set = new Set(tags);
  return (m) => m.tags !== undefined && set.has(m.tags);
}

/** Messages of `mq` at offsets [from, to) that `keep` accepts; `to` is exclusive. */
export async function readRange(
  admin: Admin,
  mq: MessageQueue,
  from: number,
  to: number,
  keep: (m: MessageExt) => boolean = () => true,
): Promise<RangeRead> {
  const messages: MessageExt[] = [];
  let offset = from;
  let status = "NO_NEW_MSG";
  while (offset < to) {
    const pulled = await admin.pullFrom(mq, offset, Math.min(PULL_BATCH, to - offset));
    status = pulled.status;
    if (pulled.status !== "FOUND" || !pulled.body) break;
    for (const m of decodeMessages(pulled.body, mq.brokerName))
      if (m.queueOffset >= from && m.queueOffset < to && keep(m)) messages.push(m);
    if (pulled.nextBeginOffset <= offset) break;
    offset = pulled.nextBeginOffset;
  }
  return { messages, offset: Math.min(offset, to), status };
}
