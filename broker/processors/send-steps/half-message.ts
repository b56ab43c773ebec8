/**
 * Step "half message" (spec broker §10.1): a producer's message with TRAN_MSG=true is the prepare
 * half of a transaction. It waits in RMQ_SYS_TRANS_HALF_TOPIC queue 0, invisible to consumers,
 * with its destination in REAL_TOPIC / REAL_QID and `__transactionId__` = UNIQ_KEY, its sysFlag
 * reset to "not a transaction" so the half queue indexes it. END_TRANSACTION or a check answer
 * then commits a copy to REAL_TOPIC or rolls it back.
 * Only plain sends take this step: copies a consumer hands back (send-back, retry sends) carry
 * the TRAN_MSG of the committed message they copy, and so does the commit itself.
 */
import {
  editPropertiesString,
  encodeProperties,
  MessageConst,
  MessageSysFlag,
  PropertiesView,
  pickCanonical,
  resetTransactionValue,
} from "../../../src/protocol/message/index.ts";
import { DEFAULT_PERM } from "../../../src/protocol/route/perm.ts";
import { TRANS_HALF_TOPIC } from "../../../src/protocol/topic-names.ts";
import { HALF_QUEUE_ID } from "../../../src/protocol/transaction.ts";
import { RemotingError } from "../../../src/remoting/errors.ts";
import { ResponseCode } from "../../../src/remoting/response-code.ts";
import type { BrokerContext } from "../../context.ts";
import type { MessageToStore } from "../../store/message-store.ts";
import type { SendStep } from "./step.ts";

/** Java's Boolean.parseBoolean of TRAN_MSG, minus retries of clients before 4.6.1 (retried with a delay). */
export function isHalfMessage(msg: MessageToStore): boolean {
  if (msg.properties.get(MessageConst.TRAN_MSG)?.toLowerCase() !== "true") return false;
  const delay = Number(msg.properties.get(MessageConst.DELAY) ?? 0);
  return !(msg.reconsumeTimes > 0 && delay > 0);
}

export function halfMessageStep(ctx: BrokerContext): SendStep {
  let topicReady = false;
  const ensureTopic = async () => {
    // Created on first use with one read-write queue, as Java's TransactionalMessageBridge does.
    await ctx.topics.createIfAbsent(TRANS_HALF_TOPIC, 1, DEFAULT_PERM);
    topicReady = true;
  };
  // Appended to the string, not through `rewrite`'s map: every transaction passes here, and
  // decoding and re-encoding the properties was most of the step's cost.
  const toHalf = (msg: MessageToStore): MessageToStore => {
    const uniqKey = msg.properties.get(MessageConst.UNIQ_KEY);
    // Set key by key, in this order, not spread from a temporary object.
    const added: Record<string, string> = {};
    if (uniqKey) added[MessageConst.TRANSACTION_ID] = uniqKey;
    added[MessageConst.REAL_TOPIC] = msg.topic;
    added[MessageConst.REAL_QID] = String(msg.queueId);
    const fast = msg.properties instanceof PropertiesView ? msg.properties.appended(added) : undefined;
    const propertiesString =
      fast?.encoded ?? editPropertiesString(msg.propertiesString ?? encodeProperties(msg.properties), added);
    return {
      ...msg,
      topic: TRANS_HALF_TOPIC,
      queueId: HALF_QUEUE_ID,
      properties: fast ?? new PropertiesView(propertiesString, pickCanonical(propertiesString)),
      propertiesString,
      sysFlag: resetTransactionValue(msg.sysFlag, MessageSysFlag.TRANSACTION_NOT_TYPE),
    };
  };
  return {
    name: "half-message",
    apply(msg, { redelivery }) {
      if (redelivery || !isHalfMessage(msg)) return msg;
      if (ctx.brokerConfig.rejectTransactionMessage) {
        throw new RemotingError(
          ResponseCode.NO_PERMISSION,
          `the broker[${ctx.brokerConfig.brokerIP1}] sending transaction message is forbidden`,
        );
      }
      return topicReady ? toHalf(msg) : ensureTopic().then(() => toHalf(msg));
    },
  };
}
