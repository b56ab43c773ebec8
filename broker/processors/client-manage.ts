/**
 * Client management (spec broker §8.5-8.8): HEART_BEAT (34), UNREGISTER_CLIENT (35),
 * GET_CONSUMER_LIST_BY_GROUP (38), CHECK_CLIENT_CONFIG (46).
 */
import { parseHeartbeat } from "../../src/protocol/body/heartbeat.ts";
import {
  GetConsumerListByGroupRequestHeader,
  UnregisterClientRequestHeader,
} from "../../src/protocol/headers/client.ts";
import { DEFAULT_PERM, TopicSysFlag } from "../../src/protocol/route/perm.ts";
import { groupNameProblem } from "../../src/protocol/topic-names.ts";
import { RemotingCommand } from "../../src/remoting/command.ts";
import type { ProcessorTableEntry } from "../../src/remoting/processor-registry.ts";
import { RequestCode } from "../../src/remoting/request-code.ts";
import { ResponseCode } from "../../src/remoting/response-code.ts";
import type { BrokerContext } from "../context.ts";
import { checkClientConfig } from "../filter/check-client-config.ts";
import { registerHeartbeatFilters } from "../filter/message-filters.ts";
import { retryTopicOf } from "../topics/topic-validator.ts";

const encoder = new TextEncoder();

export function clientManageProcessors(ctx: BrokerContext): ProcessorTableEntry[] {
  return [
    [
      RequestCode.HEART_BEAT,
      async (req, rc) => {
        const hb = parseHeartbeat(req.body);
        const now = Date.now();
        const channel = {
          conn: rc.connection,
          clientId: hb.clientID,
          language: req.language,
          version: req.version,
          lastUpdate: now,
        };
        const accepted = [];
        for (const consumer of hb.consumerDataSet) {
          if (groupNameProblem(consumer.groupName)) continue;
          const group = ctx.groups.findOrCreate(
            consumer.groupName,
            ctx.brokerConfig.autoCreateSubscriptionGroup,
          );
          if (group) accepted.push({ consumer, group });
        }
        // Every clustering consumer also consumes its group's retry topic (spec §8.5 step 2). All
        // are created with one write of topics.json: a heartbeat may name thousands of groups.
        await ctx.topics.createAllIfAbsent(
          accepted.map(({ consumer, group }) => ({
            topic: retryTopicOf(consumer.groupName),
            queueNums: group.retryQueueNums,
            perm: DEFAULT_PERM,
            // Java marks a unit consumer's retry topic UNIT_SUB, not UNIT.
            topicSysFlag: consumer.unitMode ? TopicSysFlag.FLAG_UNIT_SUB : 0,
          })),
        );
        for (const { consumer } of accepted) {
          ctx.clients.registerConsumer({
            group: consumer.groupName,
            channel,
            consumeType: consumer.consumeType,
            messageModel: consumer.messageModel,
            consumeFromWhere: consumer.consumeFromWhere,
            subscriptions: consumer.subscriptionDataSet,
          });
          registerHeartbeatFilters(ctx, consumer.groupName, consumer.subscriptionDataSet);
        }
        for (const producer of hb.producerDataSet) ctx.clients.registerProducer(producer.groupName, channel);
        return RemotingCommand.response(ResponseCode.SUCCESS);
      },
    ],
    [
      RequestCode.UNREGISTER_CLIENT,
      (req, rc) => {
        const h = UnregisterClientRequestHeader.decode(req.extFields);
        if (h.producerGroup) ctx.clients.unregisterProducer(h.producerGroup, rc.connection);
        if (h.consumerGroup) ctx.clients.unregisterConsumer(h.consumerGroup, rc.connection);
        return RemotingCommand.response(ResponseCode.SUCCESS, null, {});
      },
    ],
    [
      RequestCode.GET_CONSUMER_LIST_BY_GROUP,
      (req) => {
        const h = GetConsumerListByGroupRequestHeader.decode(req.extFields);
        const ids = ctx.clients.consumerIds(h.consumerGroup);
        if (ids.length === 0) {
          return RemotingCommand.response(
            ResponseCode.SYSTEM_ERROR,
            `no consumer for this group, ${h.consumerGroup}`,
          );
        }
        return RemotingCommand.response(
          ResponseCode.SUCCESS,
          null,
          null,
          encoder.encode(JSON.stringify({ consumerIdList: ids })),
        );
      },
    ],
    [RequestCode.CHECK_CLIENT_CONFIG, (req) => checkClientConfig(ctx, req.body)],
  ];
}
