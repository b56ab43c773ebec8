/**
 * Step "dead-letter" (spec broker §9.2 step 6, §9.3): a message handed back by a consumer more
 * often than its group allows, or with `delayLevel < 0`, goes to `%DLQ%<group>` queue 0 with no
 * delay instead of the retry topic. `reconsumeTimes` is the count the new copy carries, so
 * "stored ≥ max" of CONSUMER_SEND_MSG_BACK and "header > max" of the 5.x fallback send are one test.
 */
import { MessageConst } from "../../../src/protocol/message/index.ts";
import { DEFAULT_PERM } from "../../../src/protocol/route/perm.ts";
import type { BrokerContext } from "../../context.ts";
import type { MessageToStore } from "../../store/message-store.ts";
import { DLQ_QUEUE_NUMS, dlqTopicOf } from "../../topics/topic-validator.ts";
import { type Redelivery, rewrite, type SendStep } from "./step.ts";

export function deadLetterStep(ctx: BrokerContext): SendStep {
  return {
    name: "dead-letter",
    apply(msg, { redelivery }) {
      if (!redelivery) return msg;
      if (!redelivery.deadLetterNow && msg.reconsumeTimes <= redelivery.maxReconsumeTimes) return msg;
      return toDeadLetter(ctx, msg, redelivery);
    },
  };
}

async function toDeadLetter(
  ctx: BrokerContext,
  msg: MessageToStore,
  redelivery: Redelivery,
): Promise<MessageToStore> {
  const topic = dlqTopicOf(redelivery.group);
  // Readable and writable, as Java has created DLQ topics since 4.8 (perm 6).
  await ctx.topics.createIfAbsent(topic, DLQ_QUEUE_NUMS, DEFAULT_PERM);
  ctx.log.info(
    {
      group: redelivery.group,
      reconsumeTimes: msg.reconsumeTimes,
      uniqKey: msg.properties.get(MessageConst.UNIQ_KEY),
    },
    "message to the dead-letter queue",
  );
  return rewrite(msg, {
    topic,
    queueId: 0,
    set: { [MessageConst.DELAY]: redelivery.deadLetterDelay },
  });
}
