/**
 * [5.x] A send to `%RETRY%<group>` while the group holds an unexpired queue lock goes straight to
 * `%DLQ%<group>` queue 0 (spec broker §9.3; Java's SendMessageProcessor.handleRetryAndDLQ). An
 * orderly consumer retries a failed message in place; what it sends to the retry topic is a
 * message that ran out of attempts, and in the retry topic it would be consumed again.
 */
import type { SendMessageRequestHeader } from "../../src/protocol/headers/send.ts";
import { DEFAULT_PERM } from "../../src/protocol/route/perm.ts";
import { DLQ_GROUP_TOPIC_PREFIX, RETRY_GROUP_TOPIC_PREFIX } from "../../src/protocol/topic-names.ts";
import type { BrokerContext } from "../context.ts";

/** Java's DLQ_NUMS_PER_GROUP. */
export const DLQ_NUMS_PER_GROUP = 1;

/** The header to store under: the DLQ's for a single retry send of a group holding a lock, else `h`. */
export async function redirectOrderedRetry(
  ctx: BrokerContext,
  h: SendMessageRequestHeader,
): Promise<SendMessageRequestHeader> {
  // Batches to a retry topic are refused later, whatever the locks.
  if (h.batch || !h.topic.startsWith(RETRY_GROUP_TOPIC_PREFIX)) return h;
  const group = h.topic.slice(RETRY_GROUP_TOPIC_PREFIX.length);
  if (ctx.locks.isLockAllExpired(group)) return h;
  const dlq = DLQ_GROUP_TOPIC_PREFIX + group;
  await ctx.topics.createIfAbsent(dlq, DLQ_NUMS_PER_GROUP, DEFAULT_PERM);
  ctx.log.info(
    { group, reconsumeTimes: h.reconsumeTimes },
    "retry send of a group holding queue locks goes to its DLQ",
  );
  return { ...h, topic: dlq, queueId: 0 };
}
