/**
 * What the timer puts when an entry is due (spec pop-timer-filter §B.5): the stored message back in
 * REAL_TOPIC / REAL_QID, those two properties removed, TIMER_ENQUEUE_MS and TIMER_DEQUEUE_MS
 * added, TIMER_OUT_MS and the producer's TIMER_* kept (so no step times it again). And the key by
 * which a delete entry cancels it (§B.6.1).
 */
import { MessageConst } from "../../../src/protocol/message/index.ts";
import type { MessageToStore } from "../../store/message-store.ts";
import { messageFromRecord, type ParkedRecord, realQueueIdOf } from "../stored-message.ts";

/** TIMER_ENQUEUE_MS of an entry that was already due when the timer indexed it (Java: Long.MAX_VALUE). */
export const ENQUEUED_WHEN_DUE = "9223372036854775807";

/** `<REAL_TOPIC>+<UNIQ_KEY>`: the value of TIMER_DEL_UNIQKEY that cancels a message (Java's buildDeleteKey). */
export function deleteKeyOf(realTopic: string, uniqKey: string): string {
  return `${realTopic}+${uniqKey}`;
}

/** The key a delete entry would name this timed message by; undefined without UNIQ_KEY. */
export function deleteKeyOfRecord(rec: ParkedRecord): string | undefined {
  const topic = rec.properties.get(MessageConst.REAL_TOPIC);
  const uniq = rec.properties.get(MessageConst.UNIQ_KEY);
  return topic && uniq ? deleteKeyOf(topic, uniq) : undefined;
}

/** The message to put for a due entry, or undefined when the record names no destination. */
export function timerDelivery(
  rec: ParkedRecord,
  enqueuedMs: string,
  now: number,
): MessageToStore | undefined {
  const topic = rec.properties.get(MessageConst.REAL_TOPIC);
  const queueId = realQueueIdOf(rec);
  if (!topic || queueId === undefined) return undefined;
  return messageFromRecord(rec, {
    topic,
    queueId,
    set: { [MessageConst.TIMER_ENQUEUE_MS]: enqueuedMs, [MessageConst.TIMER_DEQUEUE_MS]: String(now) },
    remove: [MessageConst.REAL_TOPIC, MessageConst.REAL_QID],
  });
}
