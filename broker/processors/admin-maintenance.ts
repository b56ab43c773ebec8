/**
 * Maintenance requests mqadmin sends a broker: CLONE_GROUP_OFFSET (314), QUERY_CONSUME_QUEUE (321),
 * GET_SUBSCRIPTIONGROUP_CONFIG (352), and the clean-ups CLEAN_EXPIRED_CONSUMEQUEUE (306),
 * DELETE_EXPIRED_COMMITLOG (329) and CLEAN_UNUSED_TOPIC (316), answered as Java's
 * AdminBrokerProcessor answers them.
 */
import {
  CloneGroupOffsetRequestHeader,
  GetSubscriptionGroupConfigRequestHeader,
  QueryConsumeQueueRequestHeader,
} from "../../src/protocol/headers/admin-maintenance.ts";
import { RemotingCommand } from "../../src/remoting/command.ts";
import { RemotingError } from "../../src/remoting/errors.ts";
import type { ProcessorTableEntry } from "../../src/remoting/processor-registry.ts";
import { RequestCode } from "../../src/remoting/request-code.ts";
import { ResponseCode } from "../../src/remoting/response-code.ts";
import type { BrokerContext } from "../context.ts";

const encoder = new TextEncoder();
const ok = (body: unknown = null) =>
  RemotingCommand.response(
    ResponseCode.SUCCESS,
    null,
    null,
    body === null ? null : encoder.encode(JSON.stringify(body)),
  );

/** Units one QUERY_CONSUME_QUEUE returns at most, whatever `count` asks (a CQ file holds 300 000). */
const QUERY_CQ_UNITS_MAX = 1024;

/** Java's ConsumeQueueData, without the CQ extension fields (this store writes no extension). */
interface ConsumeQueueData {
  physicOffset: number;
  physicSize: number;
  tagsCode: number;
  extendDataJson: null;
  bitMap: null;
  eval: boolean;
  msg: null;
}

export function adminMaintenanceProcessors(ctx: BrokerContext): ProcessorTableEntry[] {
  return [
    [
      RequestCode.CLONE_GROUP_OFFSET,
      (req) => {
        const h = CloneGroupOffsetRequestHeader.decode(req.extFields);
        const topics = h.topic?.trim() ? [h.topic] : ctx.offsets.topicsOf(h.srcGroup);
        for (const topic of topics) {
          if (!ctx.topics.get(topic)) continue;
          // An online source group is cloned only on the topics it subscribes (Java's check).
          const group = ctx.clients.consumerGroup(h.srcGroup);
          if (!h.offline && group && group.subscriptions.size > 0 && !group.subscriptions.has(topic))
            continue;
          for (const [queueId, offset] of ctx.offsets.queueOffsets(h.srcGroup, topic))
            ctx.offsets.commit(h.destGroup, topic, queueId, offset);
        }
        return ok();
      },
    ],
    [
      RequestCode.GET_SUBSCRIPTIONGROUP_CONFIG,
      (req) => {
        const { group } = GetSubscriptionGroupConfigRequestHeader.decode(req.extFields);
        const config = ctx.groups.get(group);
        if (!config)
          throw new RemotingError(ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST, "No group in this broker");
        return ok(config);
      },
    ],
    [
      RequestCode.QUERY_CONSUME_QUEUE,
      async (req) => {
        const h = QueryConsumeQueueRequestHeader.decode(req.extFields);
        const queues = ctx.store.getTopicQueues().get(h.topic) ?? [];
        if (!queues.includes(h.queueId))
          throw new RemotingError(ResponseCode.SYSTEM_ERROR, `${h.queueId}@${h.topic} is not exist!`);
        const minQueueIndex = ctx.store.getMinOffsetInQueue(h.topic, h.queueId);
        const maxQueueIndex = ctx.store.getMaxOffsetInQueue(h.topic, h.queueId);
        const body: Record<string, unknown> = { maxQueueIndex, minQueueIndex };
        if (h.consumerGroup !== undefined) {
          const sub = ctx.clients.findSubscription(h.consumerGroup, h.topic);
          body.subscriptionData = sub ?? null;
          body.filterData = sub ? null : `${h.consumerGroup}@${h.topic} is not online!`;
        }
        if (h.index < minQueueIndex || h.index >= maxQueueIndex) {
          const remark = `Index ${h.index} of ${h.queueId}@${h.topic} is not exist!`;
          return RemotingCommand.response(
            ResponseCode.SUCCESS,
            remark,
            null,
            encoder.encode(JSON.stringify(body)),
          );
        }
        const count = Math.max(0, Math.min(h.count, QUERY_CQ_UNITS_MAX));
        const units = await ctx.store.readQueueUnits(h.topic, h.queueId, h.index, count);
        body.queueData = units
          .filter((u) => u.queueOffset >= h.index && u.queueOffset - h.index < count)
          .map(
            (u): ConsumeQueueData => ({
              physicOffset: u.phyOffset,
              physicSize: u.size,
              tagsCode: u.tagsCode,
              extendDataJson: null,
              bitMap: null,
              eval: false,
              msg: null,
            }),
          );
        return ok(body);
      },
    ],
    [
      RequestCode.CLEAN_EXPIRED_CONSUMEQUEUE,
      async () => {
        const files = await ctx.store.cleanExpiredConsumeQueues();
        ctx.log.info({ files }, "cleanExpiredConsumeQueue called by an admin");
        return ok();
      },
    ],
    [
      RequestCode.DELETE_EXPIRED_COMMITLOG,
      async () => {
        // Java's executeDeleteFilesManually: a retention run that ignores the hour (deleteWhen),
        // still keeping files younger than fileReservedTime.
        const files = await ctx.store.deleteExpiredFiles(true);
        ctx.log.info({ files }, "deleteExpiredCommitLog called by an admin");
        return ok();
      },
    ],
    [
      RequestCode.CLEAN_UNUSED_TOPIC,
      async () => {
        // Consume queues of topics the broker no longer has a config for; system topics stay.
        const unused = [...ctx.store.getTopicQueues().keys()].filter(
          (t) => !ctx.topics.get(t) && !ctx.topics.isSystemTopic(t),
        );
        const removed = await ctx.store.deleteTopics(unused);
        ctx.log.info({ topics: unused, removed }, "cleanUnusedTopic called by an admin");
        return ok();
      },
    ],
  ];
}
