/**
 * Topic administration (spec broker §8.11): UPDATE_AND_CREATE_TOPIC (17), DELETE_TOPIC_IN_BROKER (215),
 * GET_ALL_TOPIC_CONFIG (21), GET_TOPIC_STATS_INFO (202), GET_TOPIC_CONFIG (351).
 */

import { encodeQueueKeyedTable } from "../../src/protocol/body/queue-keyed.ts";
import { CreateTopicRequestHeader, TopicRequestHeader } from "../../src/protocol/headers/admin.ts";
import { isValidPerm } from "../../src/protocol/route/perm.ts";
import {
  DEFAULT_FILTER_TYPE,
  isTopicFilterType,
  TOPIC_FILTER_TYPES,
  topicConfig,
} from "../../src/protocol/route/topic-config.ts";
import { topicNameProblem } from "../../src/protocol/topic-names.ts";
import { RemotingCommand } from "../../src/remoting/command.ts";
import { RemotingError } from "../../src/remoting/errors.ts";
import type { ProcessorTableEntry } from "../../src/remoting/processor-registry.ts";
import { RequestCode } from "../../src/remoting/request-code.ts";
import { ResponseCode } from "../../src/remoting/response-code.ts";
import type { BrokerContext } from "../context.ts";
import { queueNumsProblem, systemTopicNames } from "../topics/topic-validator.ts";

const encoder = new TextEncoder();
const json = (value: unknown) => encoder.encode(JSON.stringify(value));

export function adminTopicProcessors(ctx: BrokerContext): ProcessorTableEntry[] {
  return [
    [
      RequestCode.UPDATE_AND_CREATE_TOPIC,
      async (req) => {
        const h = CreateTopicRequestHeader.decode(req.extFields);
        const problem = topicNameProblem(h.topic);
        if (problem) throw new RemotingError(ResponseCode.INVALID_PARAMETER, problem);
        if (ctx.topics.isSystemTopic(h.topic) && !h.force) {
          throw new RemotingError(
            ResponseCode.INVALID_PARAMETER,
            `The topic[${h.topic}] is conflict with system topic.`,
          );
        }
        const queues = queueNumsProblem(h.readQueueNums, h.writeQueueNums);
        if (queues) throw new RemotingError(ResponseCode.INVALID_PARAMETER, queues);
        if (!isValidPerm(h.perm)) {
          // Java's admin client refuses this itself (Validators.checkTopicConfig), with this code and text.
          throw new RemotingError(ResponseCode.NO_PERMISSION, `topicPermission value: ${h.perm} is invalid.`);
        }
        const filterType = h.topicFilterType ?? DEFAULT_FILTER_TYPE;
        if (!isTopicFilterType(filterType)) {
          throw new RemotingError(
            ResponseCode.INVALID_PARAMETER,
            `topicFilterType[${filterType}] is illegal, it must be one of ${TOPIC_FILTER_TYPES.join(", ")}`,
          );
        }
        await ctx.topics.put(
          topicConfig(h.topic, {
            readQueueNums: h.readQueueNums,
            writeQueueNums: h.writeQueueNums,
            perm: h.perm,
            topicFilterType: filterType,
            topicSysFlag: h.topicSysFlag ?? 0,
            order: h.order ?? false,
          }),
        );
        return RemotingCommand.response(ResponseCode.SUCCESS);
      },
    ],
    [
      RequestCode.DELETE_TOPIC_IN_BROKER,
      async (req) => {
        const { topic } = TopicRequestHeader.decode(req.extFields);
        if (topic.trim() === "")
          throw new RemotingError(ResponseCode.INVALID_PARAMETER, "The specified topic is blank.");
        if (ctx.topics.isSystemTopic(topic)) {
          throw new RemotingError(
            ResponseCode.INVALID_PARAMETER,
            `The topic[${topic}] is conflict with system topic.`,
          );
        }
        await ctx.topics.delete(topic);
        ctx.offsets.removeTopic(topic);
        await ctx.store.deleteTopics([topic]);
        ctx.stats.forgetTopic(topic);
        return RemotingCommand.response(ResponseCode.SUCCESS);
      },
    ],
    [
      // Java's TopicList of TopicValidator's fixed system topic names.
      RequestCode.GET_SYSTEM_TOPIC_LIST_FROM_BROKER,
      () =>
        RemotingCommand.response(ResponseCode.SUCCESS, null, null, json({ topicList: systemTopicNames() })),
    ],
    [
      RequestCode.GET_ALL_TOPIC_CONFIG,
      () =>
        RemotingCommand.response(
          ResponseCode.SUCCESS,
          null,
          null,
          json({
            dataVersion: ctx.topics.dataVersion,
            topicConfigTable: Object.fromEntries(ctx.topics.all()),
          }),
        ),
    ],
    [
      RequestCode.GET_TOPIC_CONFIG,
      (req) => {
        const { topic } = TopicRequestHeader.decode(req.extFields);
        const tc = ctx.topics.get(topic);
        if (!tc)
          throw new RemotingError(ResponseCode.TOPIC_NOT_EXIST, `No topic in this broker. topic: ${topic}`);
        return RemotingCommand.response(ResponseCode.SUCCESS, null, null, json({ topicConfig: tc }));
      },
    ],
    [
      RequestCode.GET_TOPIC_STATS_INFO,
      async (req) => {
        const { topic } = TopicRequestHeader.decode(req.extFields);
        const tc = ctx.topics.get(topic);
        if (!tc) throw new RemotingError(ResponseCode.TOPIC_NOT_EXIST, `topic[${topic}] not exist`);
        const rows = [];
        for (let queueId = 0; queueId < tc.writeQueueNums; queueId++) {
          const maxOffset = ctx.store.getMaxOffsetInQueue(topic, queueId);
          const minOffset = ctx.store.getMinOffsetInQueue(topic, queueId);
          const lastUpdateTimestamp =
            maxOffset > 0 ? await ctx.store.getMessageStoreTimeStamp(topic, queueId, maxOffset - 1) : 0;
          rows.push([
            { topic, brokerName: ctx.brokerConfig.brokerName, queueId },
            { lastUpdateTimestamp, maxOffset, minOffset },
          ] as const);
        }
        return RemotingCommand.response(ResponseCode.SUCCESS, null, null, encodeQueueKeyedTable(rows));
      },
    ],
  ];
}
