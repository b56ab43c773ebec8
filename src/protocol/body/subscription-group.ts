/**
 * SubscriptionGroupConfig (spec broker §8.10): a consumer group's settings as the broker stores them
 * in subscriptionGroup.json and as admins send them with UPDATE_AND_CREATE_SUBSCRIPTIONGROUP (200).
 */
export interface SubscriptionGroupConfig {
  groupName: string;
  consumeEnable: boolean;
  consumeFromMinEnable: boolean;
  consumeBroadcastEnable: boolean;
  consumeMessageOrderly: boolean;
  retryQueueNums: number;
  retryMaxTimes: number;
  brokerId: number;
  whichBrokerWhenConsumeSlowly: number;
  notifyConsumerIdsChangedEnable: boolean;
  groupSysFlag: number;
  consumeTimeoutMinute: number;
  attributes: Record<string, string>;
}

/** A group with RocketMQ's defaults, overridden by `init`. */
export function subscriptionGroupConfig(
  groupName: string,
  init: Partial<Omit<SubscriptionGroupConfig, "groupName">> = {},
): SubscriptionGroupConfig {
  return {
    groupName,
    consumeEnable: true,
    consumeFromMinEnable: true,
    consumeBroadcastEnable: true,
    consumeMessageOrderly: false,
    retryQueueNums: 1,
    retryMaxTimes: 16,
    brokerId: 0,
    whichBrokerWhenConsumeSlowly: 1,
    notifyConsumerIdsChangedEnable: true,
    groupSysFlag: 0,
    consumeTimeoutMinute: 15,
    attributes: {},
    ...init,
  };
}
