/**
 * RECALL_MESSAGE (370, spec pop-timer-filter §B.6.2): cancels a pending timer message by the
 * recall handle its send answer carried. The broker stores a delete entry (TIMER_DEL_UNIQKEY) due
 * in the target's slot; when the slot fires, the timer service drops the target. Off unless
 * `recallMessageEnable`, as in Java.
 */
import {
  RecallMessageRequestHeader,
  RecallMessageResponseHeader,
} from "../../src/protocol/headers/redelivery.ts";
import { MessageConst, parseJavaLong } from "../../src/protocol/message/index.ts";
import { decodeRecallHandle } from "../../src/protocol/recall-handle.ts";
import { RemotingCommand } from "../../src/remoting/command.ts";
import { RemotingError } from "../../src/remoting/errors.ts";
import type { ProcessorTableEntry } from "../../src/remoting/processor-registry.ts";
import { RequestCode } from "../../src/remoting/request-code.ts";
import { ResponseCode } from "../../src/remoting/response-code.ts";
import type { BrokerContext } from "../context.ts";
import { STORED_STATUSES } from "../services/stored-message.ts";
import { deleteKeyOf } from "../services/timer/timer-delivery.ts";
import type { MessageToStore } from "../store/message-store.ts";
import { bornHostOf } from "./send-properties.ts";
import type { SendPipeline } from "./send-steps/index.ts";

/** The tag Java gives a delete entry made by RECALL_MESSAGE. */
export const RECALL_MESSAGE_TAG = "_RECALL_TAG_";

export function recallProcessors(ctx: BrokerContext, steps: SendPipeline): ProcessorTableEntry[] {
  const refuse = (code: number, remark: string): never => {
    throw new RemotingError(code, remark);
  };
  return [
    [
      RequestCode.RECALL_MESSAGE,
      async (request, rc) => {
        const answer = (code: number, remark: string | null, ext: Record<string, string> = {}) =>
          RemotingCommand.response(code, remark, { ...ext, MSG_REGION: ctx.brokerConfig.regionId });
        try {
          const h = RecallMessageRequestHeader.decode(request.extFields);
          if (!ctx.brokerConfig.recallMessageEnable) {
            refuse(ResponseCode.NO_PERMISSION, "recall failed, operation is forbidden");
          }
          if (ctx.storeConfig.brokerRole === "SLAVE") {
            refuse(ResponseCode.SLAVE_NOT_AVAILABLE, "recall failed, broker service not available");
          }
          if (!ctx.topics.get(h.topic)) {
            refuse(ResponseCode.TOPIC_NOT_EXIST, `recall failed, the topic[${h.topic}] not exist`);
          }
          const handle = decodeRecallHandle(h.recallHandle);
          if (!handle) return refuse(ResponseCode.ILLEGAL_OPERATION, "recall handle is invalid");
          if (handle.topic !== h.topic)
            refuse(ResponseCode.ILLEGAL_OPERATION, "recall failed, topic not match");
          if (handle.brokerName !== ctx.brokerConfig.brokerName) {
            refuse(ResponseCode.ILLEGAL_OPERATION, "recall failed, broker service not available");
          }
          const now = Date.now();
          const at = parseJavaLong(handle.timestamp) ?? -1;
          if (at - now <= 0 || at - now >= ctx.storeConfig.timerMaxDelaySec * 1000) {
            refuse(ResponseCode.ILLEGAL_OPERATION, "recall failed, timestamp invalid");
          }
          const props = new Map<string, string>([
            [MessageConst.TAGS, RECALL_MESSAGE_TAG],
            [MessageConst.TIMER_DEL_UNIQKEY, deleteKeyOf(handle.topic, handle.messageId)],
            [MessageConst.UNIQ_KEY, handle.messageId],
            [MessageConst.TIMER_DELIVER_MS, handle.timestamp],
            [MessageConst.BORN_TIMESTAMP, String(now)],
          ]);
          if (h.producerGroup) props.set(MessageConst.PGROUP, h.producerGroup);
          const entry: MessageToStore = {
            topic: handle.topic,
            queueId: 0,
            flag: 0,
            body: new TextEncoder().encode("0"),
            properties: props,
            bornTimestamp: now,
            bornHost: bornHostOf(rc),
            storeHost: ctx.storeHost,
            sysFlag: 0,
            reconsumeTimes: 0,
            preparedTransactionOffset: 0,
          };
          // The timer step stores it as a delete entry in the target's slot; its refusals are Java's
          // "execute error" here.
          const timed = await (async () => steps(entry, { now }))().catch((err: unknown) => {
            ctx.log.warn({ err, topic: entry.topic }, "recall refused by the timer step");
            return refuse(ResponseCode.SYSTEM_ERROR, "recall failed, execute error");
          });
          const put = await ctx.store.putMessage(timed);
          if (!STORED_STATUSES.has(put.status))
            refuse(ResponseCode.SYSTEM_ERROR, "recall failed, execute error");
          return answer(
            ResponseCode.SUCCESS,
            null,
            RecallMessageResponseHeader.encode({ msgId: handle.messageId }),
          );
        } catch (err) {
          if (err instanceof RemotingError) return answer(err.code, err.remark);
          throw err;
        }
      },
    ],
  ];
}
