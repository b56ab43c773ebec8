/**
 * CONSUMER_SEND_MSG_BACK (36, spec broker §9.2): a consumer failed a message; the broker stores a
 * copy in `%RETRY%<group>` with one more reconsume time and a delay level (3 + reconsume times
 * unless the consumer names one), or in `%DLQ%<group>` once the group's maximum is reached. The
 * copy then takes the send steps: dead letter, or the delay level's wait in SCHEDULE_TOPIC_XXXX.
 */
import {
  ConsumerSendMsgBackRequestHeader,
  MAX_RECONSUME_TIMES_SINCE_VERSION,
} from "../../src/protocol/headers/redelivery.ts";
import { decodeRecord, MessageConst } from "../../src/protocol/message/index.ts";
import { isWriteable } from "../../src/protocol/route/perm.ts";
import { RemotingCommand } from "../../src/remoting/command.ts";
import { RemotingError } from "../../src/remoting/errors.ts";
import type { ProcessorTableEntry } from "../../src/remoting/processor-registry.ts";
import { RequestCode } from "../../src/remoting/request-code.ts";
import { ResponseCode } from "../../src/remoting/response-code.ts";
import type { BrokerContext } from "../context.ts";
import type { MessageToStore } from "../store/message-store.ts";
import { PutMessageStatus } from "../store/status.ts";
import { retryTopicOf } from "../topics/topic-validator.ts";
import { createRetryTopic, groupConfigOrThrow } from "./send-retry.ts";
import type { SendPipeline } from "./send-steps/index.ts";

/** Java's default: the first retry waits level 3 (10 s), each later one a level more. */
const FIRST_RETRY_LEVEL = 3;

export function sendBackProcessors(ctx: BrokerContext, steps: SendPipeline): ProcessorTableEntry[] {
  return [
    [
      RequestCode.CONSUMER_SEND_MSG_BACK,
      async (request) => {
        const h = ConsumerSendMsgBackRequestHeader.decode(request.extFields);
        const group = groupConfigOrThrow(ctx, h.group);
        if (!isWriteable(ctx.runtime.brokerPermission)) {
          throw new RemotingError(
            ResponseCode.NO_PERMISSION,
            `the broker[${ctx.brokerConfig.brokerIP1}] sending message is forbidden`,
          );
        }
        // A group with no retry queue drops what its consumers fail (Java answers SUCCESS).
        if (group.retryQueueNums <= 0) return RemotingCommand.response(ResponseCode.SUCCESS);
        const retryTopic = retryTopicOf(h.group);
        const topic = await createRetryTopic(ctx, retryTopic, group, !!h.unitMode);
        if (!isWriteable(topic.perm)) {
          throw new RemotingError(
            ResponseCode.NO_PERMISSION,
            `the topic[${retryTopic}] sending message is forbidden`,
          );
        }
        const record = await ctx.store.lookMessageByOffset(h.offset);
        if (!record) {
          throw new RemotingError(ResponseCode.SYSTEM_ERROR, `look message by offset failed, ${h.offset}`);
        }
        const failed = decodeRecord(record);
        const fromHeader =
          request.version >= MAX_RECONSUME_TIMES_SINCE_VERSION ? h.maxReconsumeTimes : undefined;
        const props = new Map(failed.properties);
        if (!props.has(MessageConst.RETRY_TOPIC)) props.set(MessageConst.RETRY_TOPIC, failed.topic);
        if (!props.get(MessageConst.ORIGIN_MESSAGE_ID))
          props.set(MessageConst.ORIGIN_MESSAGE_ID, failed.msgId);
        // 0: the broker chooses; below 0 the dead-letter step sends it to the DLQ anyway.
        const level = h.delayLevel === 0 ? FIRST_RETRY_LEVEL + failed.reconsumeTimes : h.delayLevel;
        props.set(MessageConst.DELAY, String(level));
        props.set(MessageConst.WAIT, "false");
        const copy: MessageToStore = {
          topic: retryTopic,
          queueId: Math.floor(Math.random() * group.retryQueueNums),
          flag: failed.flag,
          // Copied as stored: a compressed body stays compressed, with its sysFlag bit.
          body: failed.body,
          properties: props,
          bornTimestamp: failed.bornTimestamp,
          bornHost: failed.bornHost,
          storeHost: ctx.storeHost,
          sysFlag: failed.sysFlag,
          reconsumeTimes: failed.reconsumeTimes + 1,
          preparedTransactionOffset: 0,
        };
        const redelivery = {
          group: h.group,
          maxReconsumeTimes: fromHeader ?? group.retryMaxTimes,
          deadLetterNow: h.delayLevel < 0,
          deadLetterDelay: "0",
        } as const;
        const msg = await steps(copy, { redelivery, now: Date.now() });
        const put = await ctx.store.putMessage(msg);
        if (put.status !== PutMessageStatus.PUT_OK) {
          return RemotingCommand.response(ResponseCode.SYSTEM_ERROR, put.status);
        }
        ctx.stats.countSendBack(failed.topic, h.group);
        return RemotingCommand.response(ResponseCode.SUCCESS);
      },
    ],
  ];
}
