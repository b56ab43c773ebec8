/** Broker administration headers (spec broker §8.11, §12): topics, groups, stats, offsets reset. */
import { defineHeader, field } from "../../remoting/custom-header.ts";

export const CreateTopicRequestHeader = defineHeader({
  topic: field.string(),
  defaultTopic: field.string().optional(),
  readQueueNums: field.int(),
  writeQueueNums: field.int(),
  perm: field.int(),
  topicFilterType: field.string().optional(),
  topicSysFlag: field.int().optional(),
  order: field.bool().optional(),
  attributes: field.string().optional(),
  force: field.bool().optional(),
});

export const TopicRequestHeader = defineHeader({ topic: field.string() });

export const GroupRequestHeader = defineHeader({ consumerGroup: field.string() });

export const DeleteSubscriptionGroupRequestHeader = defineHeader({
  groupName: field.string(),
  cleanOffset: field.bool().optional(),
});

export const GetConsumeStatsRequestHeader = defineHeader({
  consumerGroup: field.string(),
  topic: field.string().optional(),
});

/** RESUME_CHECK_HALF_MESSAGE (323): the offset msgId of the half message to check again. */
export const ResumeCheckHalfMessageRequestHeader = defineHeader({
  msgId: field.string().optional(),
});

/** QUERY_CONSUME_TIME_SPAN (303): a group's progress on a topic's queues, in store times. */
export const QueryConsumeTimeSpanRequestHeader = defineHeader({
  topic: field.string(),
  group: field.string(),
});

/** GET_BROKER_CONSUME_STATS (317): every group's stats on one broker; `isOrder` keeps ordered topics only. */
export const GetConsumeStatsInBrokerHeader = defineHeader({
  isOrder: field.bool().optional(),
});

export const ResetOffsetRequestHeader = defineHeader({
  topic: field.string(),
  group: field.string(),
  timestamp: field.long(),
  isForce: field.bool(),
  queueId: field.int().optional(),
  offset: field.long().optional(),
});

export const GetProducerConnectionListRequestHeader = defineHeader({ producerGroup: field.string() });

/** GET_CONSUMER_RUNNING_INFO (307): admin → broker, forwarded as is to the consumer. */
export const GetConsumerRunningInfoRequestHeader = defineHeader({
  consumerGroup: field.string(),
  clientId: field.string(),
  jstackEnable: field.bool().optional(),
});

/** CONSUME_MESSAGE_DIRECTLY (309): admin → broker → the named consumer, with the stored message. */
export const ConsumeMessageDirectlyResultRequestHeader = defineHeader({
  consumerGroup: field.string(),
  clientId: field.string().optional(),
  msgId: field.string().optional(),
  brokerName: field.string().optional(),
  topic: field.string().optional(),
  topicSysFlag: field.int().optional(),
  groupSysFlag: field.int().optional(),
});

/**
 * INVOKE_BROKER_TO_GET_CONSUMER_STATUS (223), and without `clientAddr` the broker's
 * GET_CONSUMER_STATUS_FROM_CLIENT (221) to each consumer. Despite its name, Java compares
 * `clientAddr` with the client id.
 */
export const GetConsumerStatusRequestHeader = defineHeader({
  topic: field.string(),
  group: field.string(),
  clientAddr: field.string().optional(),
});

/** QUERY_CORRECTION_OFFSET (308): `filterGroups` is a comma-separated list of groups to leave out. */
export const QueryCorrectionOffsetHeader = defineHeader({
  filterGroups: field.string().optional(),
  compareGroup: field.string(),
  topic: field.string(),
});
