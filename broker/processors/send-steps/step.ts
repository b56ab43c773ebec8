/**
 * What a send step is: one named transformation of a message on its way into the store (retry to
 * dead letter, delay level, timer, later the half message). Steps run in the order `SEND_STEPS`
 * lists; each returns the message unchanged when it does not apply, so a plain send pays only for
 * a few property lookups.
 */
import { editProperties, encodeProperties } from "../../../src/protocol/message/index.ts";
import type { MessageToStore } from "../../store/message-store.ts";

/** A message a consumer hands back: CONSUMER_SEND_MSG_BACK (spec §9.2) or its fallback send (§9.3). */
export interface Redelivery {
  readonly group: string;
  readonly maxReconsumeTimes: number;
  /**
   * Straight to the dead-letter queue: CONSUMER_SEND_MSG_BACK with `delayLevel < 0`, or a retry
   * send from a group that holds queue locks.
   */
  readonly deadLetterNow: boolean;
  /**
   * The `DELAY` a dead letter is stored with: Java's send-back writes "0", its handling of the
   * client's fallback send "-1". Both mean "no delay".
   */
  readonly deadLetterDelay: "0" | "-1";
}

/** Per put: facts that are not in the message itself. */
export interface StepInput {
  readonly redelivery?: Redelivery;
  /** Wall clock of the request, ms: the base of relative timer delays. */
  readonly now: number;
}

export interface SendStep {
  readonly name: string;
  apply(msg: MessageToStore, input: StepInput): MessageToStore | Promise<MessageToStore>;
}

/** What a step changes: destination and properties. Unlisted fields stay as they are. */
export interface Rewrite {
  readonly topic?: string;
  readonly queueId?: number;
  readonly set?: Readonly<Record<string, string>>;
  readonly remove?: readonly string[];
}

/** A copy of `msg` with the rewrite applied and its properties string re-encoded. */
export function rewrite(msg: MessageToStore, change: Rewrite): MessageToStore {
  const props = editProperties(msg.properties, change.set, change.remove);
  return {
    ...msg,
    topic: change.topic ?? msg.topic,
    queueId: change.queueId ?? msg.queueId,
    properties: props,
    propertiesString: encodeProperties(props),
  };
}
