/**
 * Sends to a retry topic (spec broker §9.3): a consumer whose CONSUMER_SEND_MSG_BACK failed sends
 * its copy to `%RETRY%<group>` itself. The group must exist; its retry topic gets the group's
 * `retryQueueNums` queues; the copy is a redelivery, so the dead-letter step moves it to the DLQ
 * once the header's `reconsumeTimes` passes the maximum (5.x: `>`).
 */

import { MAX_RECONSUME_TIMES_SINCE_VERSION } from "../../src/protocol/headers/redelivery.ts";
import type { SendMessageRequestHeader } from "../../src/protocol/headers/send.ts";
import { DEFAULT_PERM, TopicSysFlag } from "../../src/protocol/route/perm.ts";
import type { TopicConfig } from "../../src/protocol/route/topic-config.ts";
import { RemotingError } from "../../src/remoting/errors.ts";
import { ResponseCode } from "../../src/remoting/response-code.ts";
import type { BrokerContext } from "../context.ts";
import type { SubscriptionGroupConfig } from "../metadata/subscription-groups.ts";
import { groupOfRetryTopic, isRetryTopic } from "../topics/topic-validator.ts";
import type { Redelivery } from "./send-steps/index.ts";

/** The group's config, created when auto-creation is on; SUBSCRIPTION_GROUP_NOT_EXIST otherwise. */
export function groupConfigOrThrow(ctx: BrokerContext, group: string): SubscriptionGroupConfig {
  const config = ctx.groups.findOrCreate(group, ctx.brokerConfig.autoCreateSubscriptionGroup);
  if (!config) {
    throw new RemotingError(
      ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST,
      `subscription group not exist, ${group}`,
    );
  }
  return config;
}

/** `%RETRY%<group>` with the group's retry queue count, read-write (Java's createTopicInSendMessageBackMethod). */
export function createRetryTopic(
  ctx: BrokerContext,
  topic: string,
  group: SubscriptionGroupConfig,
  unitMode: boolean,
): Promise<TopicConfig> {
  // Java marks a unit consumer's retry topic UNIT_SUB, not UNIT.
  const sysFlag = unitMode ? TopicSysFlag.FLAG_UNIT_SUB : 0;
  return ctx.topics.createIfAbsent(topic, Math.max(1, group.retryQueueNums), DEFAULT_PERM, sysFlag);
}

/** The redelivery facts of a send, or undefined when it is not addressed to a retry topic. */
export function redeliveryOfSend(
  ctx: BrokerContext,
  h: SendMessageRequestHeader,
  requestVersion: number,
): Redelivery | undefined {
  if (!isRetryTopic(h.topic)) return undefined;
  const group = groupOfRetryTopic(h.topic);
  const config = groupConfigOrThrow(ctx, group);
  const fromHeader = requestVersion >= MAX_RECONSUME_TIMES_SINCE_VERSION ? h.maxReconsumeTimes : undefined;
  return {
    group,
    maxReconsumeTimes: fromHeader ?? config.retryMaxTimes,
    // [5.x] A group holding unexpired queue locks consumes orderly and retries in place: what it
    // sends to its retry topic ran out of attempts, and in the retry topic it would be consumed
    // again (Java's handleRetryAndDLQ, sendRetryMessageToDeadLetterQueueDirectly; spec §9.3).
    deadLetterNow: !ctx.locks.isLockAllExpired(group),
    deadLetterDelay: "-1",
  };
}
