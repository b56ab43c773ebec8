/**
 * The offline offset reset (mqadmin's resetOffsetByTimeOld): for a group no consumer is online for,
 * a broker answers INVOKE_BROKER_TO_RESET_OFFSET with CONSUMER_NOT_ONLINE (spec broker §8, Java's
 * Broker2Client.resetOffset), and the admin writes each queue's offset itself.
 */
import { ResponseCode } from "../remoting/index.ts";
import type { ClientInstance } from "./client-instance.ts";
import type { MessageQueue } from "./message-queue.ts";

/** Answers to INVOKE_BROKER_TO_RESET_OFFSET after which the offsets are written directly. */
export const OFFLINE_RESET_CODES: ReadonlySet<number> = new Set([
  ResponseCode.CONSUMER_NOT_ONLINE,
  ResponseCode.REQUEST_CODE_NOT_SUPPORTED,
]);

/**
 * Moves `group`'s offset of each queue (all on the broker at `addr`) to the first message stored
 * at or after `timestamp`, or to the queue's end for a negative one (skipAccumulatedMessage sends
 * -1, which the broker's INVOKE_BROKER_TO_RESET_OFFSET reads the same way); not forced, an offset
 * only moves backwards. Returns queue → offset.
 */
export async function resetOffsetsOffline(
  client: ClientInstance,
  addr: string,
  queues: readonly MessageQueue[],
  group: string,
  timestamp: number,
  force: boolean,
): Promise<Map<MessageQueue, number>> {
  const out = new Map<MessageQueue, number>();
  for (const mq of queues) {
    const target =
      timestamp < 0
        ? await client.broker.maxOffset(addr, mq.topic, mq.queueId)
        : await client.broker.searchOffset(addr, mq.topic, mq.queueId, timestamp);
    const current = force
      ? -1
      : await client.broker.queryConsumerOffset(addr, group, mq.topic, mq.queueId).catch(() => -1);
    const offset = force || current < 0 || target <= current ? target : current;
    if (offset !== current)
      await client.broker.updateConsumerOffset(addr, group, mq.topic, mq.queueId, offset, false);
    out.set(mq, offset);
  }
  return out;
}
