/**
 * Step "delay-level" (spec broker §9.5, pop-timer-filter §B.2 step 1): a message with `DELAY` > 0
 * waits in SCHEDULE_TOPIC_XXXX, queue `level − 1`, with its destination kept in REAL_TOPIC and
 * REAL_QID; levels beyond the table are clamped to the last. A delay level wins over timer
 * properties, which are removed. Half messages wait for their commit instead.
 */
import { isConsumeQueueDispatched, MessageConst, parseJavaInt } from "../../../src/protocol/message/index.ts";
import { SCHEDULE_TOPIC, TRANS_HALF_TOPIC } from "../../../src/protocol/topic-names.ts";
import { RemotingError } from "../../../src/remoting/errors.ts";
import { ResponseCode } from "../../../src/remoting/response-code.ts";
import { rewrite, type SendStep } from "./step.ts";

/** Timer properties a delay level overrides (Java's HookUtils#checkIfTimerMessage). */
export const TIMER_REQUEST_KEYS = [
  MessageConst.TIMER_DELIVER_MS,
  MessageConst.TIMER_DELAY_SEC,
  MessageConst.TIMER_DELAY_MS,
] as const;

/** The level a DELAY property asks for; 0 for none. Java's Integer.parseInt refusal answers SYSTEM_ERROR. */
export function delayLevelOf(text: string | undefined): number {
  if (text === undefined) return 0;
  const level = parseJavaInt(text);
  if (level === undefined) {
    throw new RemotingError(
      ResponseCode.SYSTEM_ERROR,
      `java.lang.NumberFormatException: For input string: "${text}"`,
    );
  }
  return level;
}

export function delayLevelStep(delayLevelsMs: readonly number[]): SendStep {
  const maxLevel = delayLevelsMs.length;
  return {
    name: "delay-level",
    apply(msg) {
      const level = delayLevelOf(msg.properties.get(MessageConst.DELAY));
      if (level <= 0 || !isConsumeQueueDispatched(msg.sysFlag) || msg.topic === TRANS_HALF_TOPIC) return msg;
      const clamped = Math.min(level, maxLevel);
      return rewrite(msg, {
        topic: SCHEDULE_TOPIC,
        queueId: clamped - 1,
        set: {
          [MessageConst.DELAY]: String(clamped),
          [MessageConst.REAL_TOPIC]: msg.topic,
          [MessageConst.REAL_QID]: String(msg.queueId),
        },
        remove: TIMER_REQUEST_KEYS,
      });
    },
  };
}
