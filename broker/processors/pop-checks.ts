/**
 * The checks POP_MESSAGE, PEEK_MESSAGE, NOTIFICATION and POLLING_INFO share (spec
 * pop-timer-filter §A.4.2 steps 3 and 6–9, §A.10): the broker readable, the topic known and
 * readable, the queue id below its read queues, the group known (or auto-created) and enabled.
 * Each failure throws the RemotingError Java answers, with its remark.
 */

import { isReadable } from "../../src/protocol/route/perm.ts";
import type { TopicConfig } from "../../src/protocol/route/topic-config.ts";
import { RemotingError } from "../../src/remoting/errors.ts";
import type { RequestContext } from "../../src/remoting/processor-registry.ts";
import { ResponseCode } from "../../src/remoting/response-code.ts";
import type { BrokerContext } from "../context.ts";

/** Step 3; `what` is Java's wording ("pop" for POP, "peeking" for the others). */
export function checkBrokerReadable(ctx: BrokerContext, what: "pop" | "peeking"): void {
  if (!isReadable(ctx.runtime.brokerPermission)) {
    throw new RemotingError(
      ResponseCode.NO_PERMISSION,
      `the broker[${ctx.brokerConfig.brokerIP1}] ${what} message is forbidden`,
    );
  }
}

/** Steps 6–9. Returns the topic's config. */
export function checkTopicAndGroup(
  ctx: BrokerContext,
  rc: RequestContext,
  topicName: string,
  queueId: number,
  groupName: string,
): TopicConfig {
  const topic = ctx.topics.get(topicName);
  if (!topic) {
    throw new RemotingError(
      ResponseCode.TOPIC_NOT_EXIST,
      `topic[${topicName}] not exist, apply first please!`,
    );
  }
  if (!isReadable(topic.perm)) {
    throw new RemotingError(
      ResponseCode.NO_PERMISSION,
      `the topic[${topicName}] peeking message is forbidden`,
    );
  }
  if (queueId >= topic.readQueueNums) {
    throw new RemotingError(
      ResponseCode.INVALID_PARAMETER,
      `queueId[${queueId}] is illegal, topic:[${topicName}] topicConfig.readQueueNums:[${topic.readQueueNums}] consumer:[${rc.connection.remoteAddress}]`,
    );
  }
  const group = ctx.groups.findOrCreate(groupName, ctx.brokerConfig.autoCreateSubscriptionGroup);
  if (!group) {
    throw new RemotingError(
      ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST,
      `subscription group [${groupName}] does not exist, `,
    );
  }
  if (!group.consumeEnable) {
    throw new RemotingError(ResponseCode.NO_PERMISSION, `subscription group no permission, ${groupName}`);
  }
  return topic;
}
