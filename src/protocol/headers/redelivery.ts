/**
 * Redelivery request headers: CONSUMER_SEND_MSG_BACK (36, spec broker §9.2) and RECALL_MESSAGE
 * (370, spec pop-timer-filter §B.6.2).
 */
import { defineHeader, field, type HeaderOf } from "../../remoting/custom-header.ts";

const sendBackFields = {
  /** CommitLog physical offset of the message the consumer failed. */
  offset: field.long(),
  group: field.string(),
  /** 0: the broker picks (3 + reconsumeTimes); below 0: straight to the dead-letter queue. */
  delayLevel: field.int(),
  originMsgId: field.string().optional(),
  originTopic: field.string().optional(),
  unitMode: field.bool().optional(),
  /** Honoured from request version V3_4_9 (121) on; the group's retryMaxTimes otherwise. */
  maxReconsumeTimes: field.int().optional(),
};

export const ConsumerSendMsgBackRequestHeader = defineHeader(sendBackFields);
export type ConsumerSendMsgBackRequestHeader = HeaderOf<typeof sendBackFields>;

/** MQVersion V3_4_9: the first client version whose `maxReconsumeTimes` the broker honours. */
export const MAX_RECONSUME_TIMES_SINCE_VERSION = 121;

export const RecallMessageRequestHeader = defineHeader({
  producerGroup: field.string().optional(),
  topic: field.string(),
  recallHandle: field.string(),
});

/** `msgId` is the recalled message's UNIQ_KEY. */
export const RecallMessageResponseHeader = defineHeader({ msgId: field.string() });
