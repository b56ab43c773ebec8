/**
 * Headers of the broker's maintenance requests that mqadmin sends: CLONE_GROUP_OFFSET (314),
 * VIEW_BROKER_STATS_DATA (315), QUERY_CONSUME_QUEUE (321), GET_SUBSCRIPTIONGROUP_CONFIG (352). The
 * field names are Java's.
 */
import { defineHeader, field } from "../../remoting/custom-header.ts";

export const CloneGroupOffsetRequestHeader = defineHeader({
  srcGroup: field.string(),
  destGroup: field.string(),
  /** Empty or absent: every topic the source group has offsets on. */
  topic: field.string().optional(),
  offline: field.bool().optional(),
});

export const QueryConsumeQueueRequestHeader = defineHeader({
  topic: field.string(),
  queueId: field.int(),
  index: field.long(),
  count: field.int(),
  consumerGroup: field.string().optional(),
});

export const GetSubscriptionGroupConfigRequestHeader = defineHeader({ group: field.string() });

/** A statistic by Java's BrokerStatsManager name (TOPIC_PUT_NUMS, ...) and key (topic, topic@group). */
export const ViewBrokerStatsDataRequestHeader = defineHeader({
  statsName: field.string(),
  statsKey: field.string(),
});
