/**
 * Consumption progress for admins and monitors: GET_CONSUME_STATS (208), one group's ConsumeStats,
 * and GET_BROKER_CONSUME_STATS (317), every subscription group's on this broker as a
 * ConsumeStatsList (mqadmin brokerConsumeStats, exporters). Per topic the group has offsets on, as
 * Java's AdminBrokerProcessor: each write queue's broker and consumer offsets and the store time of
 * the last consumed message, and consumeTps from the group's GROUP_GET_NUMS statistic. A topic the
 * group's online members do not subscribe to (while they subscribe to others) is left out.
 * QUERY_CONSUME_TIME_SPAN (303) tells the same progress in store times per queue.
 */
import { type MessageQueueKey, queueKeyedTableText } from "../../src/protocol/body/queue-keyed.ts";
import {
  GetConsumeStatsInBrokerHeader,
  GetConsumeStatsRequestHeader,
  QueryConsumeTimeSpanRequestHeader,
} from "../../src/protocol/headers/admin.ts";
import { jsonBytes } from "../../src/protocol/json/index.ts";
import { RemotingCommand } from "../../src/remoting/command.ts";
import type { ProcessorTableEntry } from "../../src/remoting/processor-registry.ts";
import { RequestCode } from "../../src/remoting/request-code.ts";
import { ResponseCode } from "../../src/remoting/response-code.ts";
import type { BrokerContext } from "../context.ts";
import { groupStatsKey, MINUTE_WINDOW, StatsName } from "../services/stats-items.ts";

const utf8 = new TextEncoder();

interface OffsetWrapper {
  brokerOffset: number;
  consumerOffset: number;
  lastTimestamp: number;
}

interface TopicConsumeStats {
  rows: (readonly [MessageQueueKey, OffsetWrapper])[];
  consumeTps: number;
  diff: number;
}

async function topicConsumeStats(
  ctx: BrokerContext,
  group: string,
  topic: string,
): Promise<TopicConsumeStats> {
  const tc = ctx.topics.get(topic)!;
  const rows: (readonly [MessageQueueKey, OffsetWrapper])[] = [];
  let diff = 0;
  for (let queueId = 0; queueId < tc.writeQueueNums; queueId++) {
    const brokerOffset = Math.max(ctx.store.getMaxOffsetInQueue(topic, queueId), 0);
    const consumerOffset = Math.max(ctx.offsets.query(group, topic, queueId), 0);
    const lastTimestamp =
      consumerOffset > 0 ? await ctx.store.getMessageStoreTimeStamp(topic, queueId, consumerOffset - 1) : 0;
    rows.push([
      { topic, brokerName: ctx.brokerConfig.brokerName, queueId },
      { brokerOffset, consumerOffset, lastTimestamp: Math.max(lastTimestamp, 0) },
    ]);
    diff += brokerOffset - consumerOffset;
  }
  const got = ctx.stats.items.get(StatsName.GROUP_GET_NUMS, groupStatsKey(topic, group));
  return { rows, consumeTps: got?.figures(MINUTE_WINDOW).tps ?? 0, diff };
}

/** The topics of `group`'s stats: configured, ordered when asked, subscribed by its online members. */
function statsTopics(ctx: BrokerContext, group: string, topics: readonly string[], orderOnly: boolean) {
  const subscribed = ctx.clients.consumerGroup(group)?.subscriptions;
  return topics.filter((topic) => {
    const tc = ctx.topics.get(topic);
    if (tc === undefined || (orderOnly && !tc.order)) return false;
    return !(subscribed !== undefined && subscribed.size > 0 && !subscribed.has(topic));
  });
}

const statsText = (s: TopicConsumeStats) => queueKeyedTableText(s.rows, { consumeTps: s.consumeTps });

/**
 * Java's QueueTimeSpan for each write queue: the first and last message's store time, that of the
 * last one `group` consumed (the first's when it consumed none), and how long ago the next one to
 * consume was stored, when there is one (Java's arithmetic, store answers included).
 */
async function queueTimeSpans(ctx: BrokerContext, topic: string, group: string, queues: number) {
  const { store } = ctx;
  const spans = [];
  for (let queueId = 0; queueId < queues; queueId++) {
    const minTimeStamp = await store.getEarliestMessageTime(topic, queueId);
    const max = store.getMaxOffsetInQueue(topic, queueId);
    const maxTimeStamp = await store.getMessageStoreTimeStamp(topic, queueId, max - 1);
    const consumerOffset = ctx.offsets.query(group, topic, queueId);
    const consumeTimeStamp =
      consumerOffset > 0
        ? await store.getMessageStoreTimeStamp(topic, queueId, consumerOffset - 1)
        : minTimeStamp;
    const delayTime =
      consumerOffset < max
        ? Date.now() - (await store.getMessageStoreTimeStamp(topic, queueId, consumerOffset))
        : 0;
    spans.push({
      messageQueue: { topic, brokerName: ctx.brokerConfig.brokerName, queueId },
      minTimeStamp,
      maxTimeStamp,
      consumeTimeStamp,
      delayTime,
    });
  }
  return spans;
}

export function consumeStatsProcessors(ctx: BrokerContext): ProcessorTableEntry[] {
  return [
    [
      RequestCode.QUERY_CONSUME_TIME_SPAN,
      async (req) => {
        const h = QueryConsumeTimeSpanRequestHeader.decode(req.extFields);
        const tc = ctx.topics.get(h.topic);
        if (tc === undefined)
          return RemotingCommand.response(ResponseCode.TOPIC_NOT_EXIST, `topic[${h.topic}] not exist`);
        const consumeTimeSpanSet = await queueTimeSpans(ctx, h.topic, h.group, tc.writeQueueNums);
        return RemotingCommand.response(ResponseCode.SUCCESS, null, null, jsonBytes({ consumeTimeSpanSet }));
      },
    ],
    [
      RequestCode.GET_CONSUME_STATS,
      async (req) => {
        const h = GetConsumeStatsRequestHeader.decode(req.extFields);
        const topics = statsTopics(
          ctx,
          h.consumerGroup,
          h.topic ? [h.topic] : ctx.offsets.topicsOf(h.consumerGroup),
          false,
        );
        // One ConsumeStats over all the topics: their queues in one table, their rates added.
        const rows: (readonly [MessageQueueKey, OffsetWrapper])[] = [];
        let consumeTps = 0;
        for (const topic of topics) {
          const s = await topicConsumeStats(ctx, h.consumerGroup, topic);
          rows.push(...s.rows);
          consumeTps += s.consumeTps;
        }
        const body = queueKeyedTableText(rows, { consumeTps });
        return RemotingCommand.response(ResponseCode.SUCCESS, null, null, utf8.encode(body));
      },
    ],
    [
      RequestCode.GET_BROKER_CONSUME_STATS,
      async (req) => {
        const { isOrder } = GetConsumeStatsInBrokerHeader.decode(req.extFields ?? {});
        let totalDiff = 0;
        const groups: string[] = [];
        for (const group of ctx.groups.table.keys()) {
          const list: string[] = [];
          for (const topic of statsTopics(ctx, group, ctx.offsets.topicsOf(group), isOrder === true)) {
            const s = await topicConsumeStats(ctx, group, topic);
            totalDiff += s.diff;
            list.push(statsText(s));
          }
          groups.push(`{${JSON.stringify(group)}:[${list.join(",")}]}`);
        }
        // ConsumeStatsList: brokerAddr, one {group: [ConsumeStats per topic]} map per group, totalDiff.
        const body = `{"brokerAddr":${JSON.stringify(ctx.brokerAddr)},"consumeStatsList":[${groups.join(",")}],"totalDiff":${totalDiff}}`;
        return RemotingCommand.response(ResponseCode.SUCCESS, null, null, utf8.encode(body));
      },
    ],
  ];
}
