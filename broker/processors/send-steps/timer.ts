/**
 * Step "timer" (spec pop-timer-filter §B.2): a message carrying TIMER_DELAY_SEC, TIMER_DELAY_MS,
 * TIMER_DELIVER_MS or ali-ons' `__STARTDELIVERTIME` (first present wins, in that order) waits in
 * `rmq_sys_wheel_timer` queue 0 with TIMER_OUT_MS, REAL_TOPIC and REAL_QID added, until the timer
 * service delivers it. Already due: stored as it is. Beyond `timerMaxDelaySec`, unparsable, or a
 * delete entry not in the future: MESSAGE_ILLEGAL with Java's remark.
 */
import type { MessageStoreConfig } from "../../../src/config/message-store-config.ts";
import {
  isConsumeQueueDispatched,
  MessageConst,
  parseJavaLong,
} from "../../../src/protocol/message/index.ts";
import { SCHEDULE_TOPIC, TIMER_TOPIC, TRANS_HALF_TOPIC } from "../../../src/protocol/topic-names.ts";
import { RemotingError } from "../../../src/remoting/errors.ts";
import { ResponseCode } from "../../../src/remoting/response-code.ts";
import type { MessageToStore } from "../../store/message-store.ts";
import { rewrite, type SendStep } from "./step.ts";

type TimerConfig = Pick<MessageStoreConfig, "timerWheelEnable" | "timerMaxDelaySec" | "timerPrecisionMs">;

/** Relative keys first, as Java reads them; the ONS key last (Java does not know it). */
const TIMER_KEYS = [
  [MessageConst.TIMER_DELAY_SEC, 1000, true],
  [MessageConst.TIMER_DELAY_MS, 1, true],
  [MessageConst.TIMER_DELIVER_MS, 1, false],
  [MessageConst.START_DELIVER_TIME, 1, false],
] as const;

function illegal(c: TimerConfig): RemotingError {
  return new RemotingError(
    ResponseCode.MESSAGE_ILLEGAL,
    `timer message illegal, the delay time should not be bigger than the max delay ${c.timerMaxDelaySec * 1000}ms; or if set del msg, the delay time should be bigger than the current time`,
  );
}

/** The requested delivery time, or undefined when the message asks for none. */
export function requestedDeliverMs(props: ReadonlyMap<string, string>, now: number, c: TimerConfig) {
  for (const [key, unitMs, relative] of TIMER_KEYS) {
    const text = props.get(key);
    if (text === undefined) continue;
    const n = parseJavaLong(text);
    if (n === undefined) throw illegal(c);
    return relative ? now + n * unitMs : n;
  }
  return undefined;
}

/**
 * The slot time T of a delivery time (§B.2 step 7): rounded down to the precision, an exact
 * multiple one step earlier. The timer delivers at T + precision, never before `deliverMs`.
 */
export function timerSlotOf(deliverMs: number, precisionMs: number): number {
  const rest = deliverMs % precisionMs;
  return rest === 0 ? deliverMs - precisionMs : deliverMs - rest;
}

export function timerStep(config: TimerConfig): SendStep {
  return {
    name: "timer",
    apply(msg: MessageToStore, { now }) {
      // A delay level won already; a record of the timer topic is the timer's own; a half
      // message waits for its commit first.
      if (msg.topic === SCHEDULE_TOPIC || msg.topic === TIMER_TOPIC || msg.topic === TRANS_HALF_TOPIC)
        return msg;
      if (!isConsumeQueueDispatched(msg.sysFlag)) return msg;
      const props = msg.properties;
      // Cheap for plain sends: the four keys are picked in the one pass over the properties.
      if (TIMER_KEYS.every(([key]) => props.get(key) === undefined)) return msg;
      if (props.get(MessageConst.TIMER_OUT_MS) !== undefined) return msg;
      if (!config.timerWheelEnable) {
        throw new RemotingError(
          ResponseCode.SYSTEM_ERROR,
          "accurate timer message is not enabled, timerWheelEnable is false",
        );
      }
      const deliverMs = requestedDeliverMs(props, now, config)!;
      if (deliverMs <= now) {
        if (props.get(MessageConst.TIMER_DEL_UNIQKEY) !== undefined) throw illegal(config);
        return msg;
      }
      if (deliverMs - now > config.timerMaxDelaySec * 1000) throw illegal(config);
      return rewrite(msg, {
        topic: TIMER_TOPIC,
        queueId: 0,
        set: {
          [MessageConst.TIMER_OUT_MS]: String(timerSlotOf(deliverMs, config.timerPrecisionMs)),
          [MessageConst.REAL_TOPIC]: msg.topic,
          [MessageConst.REAL_QID]: String(msg.queueId),
        },
      });
    },
  };
}
