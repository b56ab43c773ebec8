/**
 * The send steps in the order they apply: every single message a producer sends, and every copy a
 * consumer hands back, passes through this list on its way into the store. Java spreads the same
 * rules over SendMessageProcessor#handleRetryAndDLQ and the store's put hook (HookUtils); here
 * they are one list, so a new transformation is one more file and one more line.
 * Batches skip the steps (spec pop-timer-filter §B.2: the hook only sees single messages).
 */

import type { BrokerContext } from "../../context.ts";
import type { MessageToStore } from "../../store/message-store.ts";
import { parseDelayLevels } from "../../store/store-options.ts";
import { deadLetterStep } from "./dead-letter.ts";
import { delayLevelStep } from "./delay-level.ts";
import { halfMessageStep } from "./half-message.ts";
import type { SendStep, StepInput } from "./step.ts";
import { timerStep } from "./timer.ts";

export type { Redelivery, StepInput } from "./step.ts";

export function sendSteps(ctx: BrokerContext): readonly SendStep[] {
  return [
    deadLetterStep(ctx), // handed back too often → %DLQ%<group> (§9.2, §9.3)
    halfMessageStep(ctx), // TRAN_MSG=true → RMQ_SYS_TRANS_HALF_TOPIC until committed (§10.1)
    delayLevelStep(parseDelayLevels(ctx.storeConfig.messageDelayLevel)), // DELAY n → SCHEDULE_TOPIC_XXXX (§9.5)
    timerStep(ctx.storeConfig), // TIMER_* → rmq_sys_wheel_timer (§B.2)
  ];
}

/**
 * The steps a committed transactional message takes (spec broker §10.2): those after the half
 * message, so a DELAY or timer property of the half applies from the commit on.
 */
export function commitSteps(steps: readonly SendStep[]): readonly SendStep[] {
  return steps.slice(steps.findIndex((s) => s.name === "half-message") + 1);
}

/**
 * Runs the steps over one message; a step that refuses throws a RemotingError. Synchronous while
 * every step is (a plain send), so the common path costs no promise per step.
 */
export type SendPipeline = (
  msg: MessageToStore,
  input: StepInput,
) => MessageToStore | Promise<MessageToStore>;

export function sendPipeline(steps: readonly SendStep[]): SendPipeline {
  const run = (
    msg: MessageToStore,
    input: StepInput,
    from: number,
  ): MessageToStore | Promise<MessageToStore> => {
    let out = msg;
    for (let i = from; i < steps.length; i++) {
      const next = steps[i]!.apply(out, input);
      if (next instanceof Promise) return next.then((m) => run(m, input, i + 1));
      out = next;
    }
    return out;
  };
  return (msg, input) => run(msg, input, 0);
}
