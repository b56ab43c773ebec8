/**
 * Group administration (spec broker §8.10-8.11): subscription groups, consumer progress, client
 * connections, offsets dump and reset-by-time of an online group (which also tells its consumers,
 * code 220; an offline group answers CONSUMER_NOT_ONLINE).
 */

import { encodeQueueKeyedTable, type MessageQueueKey } from "../../src/protocol/body/queue-keyed.ts";
import {
  DeleteSubscriptionGroupRequestHeader,
  GetProducerConnectionListRequestHeader,
  GroupRequestHeader,
  ResetOffsetRequestHeader,
} from "../../src/protocol/headers/admin.ts";
import { asObject, parseJson } from "../../src/protocol/json/index.ts";
import { groupNameProblem } from "../../src/protocol/topic-names.ts";
import { RemotingCommand } from "../../src/remoting/command.ts";
import { RemotingError } from "../../src/remoting/errors.ts";
import type { ProcessorTableEntry } from "../../src/remoting/processor-registry.ts";
import { RequestCode } from "../../src/remoting/request-code.ts";
import { ResponseCode } from "../../src/remoting/response-code.ts";
import type { BrokerContext } from "../context.ts";
import { type SubscriptionGroupConfig, subscriptionGroupConfig } from "../metadata/subscription-groups.ts";
import { BoundaryType } from "../store/status.ts";

const encoder = new TextEncoder();
const json = (value: unknown) => encoder.encode(JSON.stringify(value));
const ok = (body: Uint8Array | null = null) =>
  RemotingCommand.response(ResponseCode.SUCCESS, null, null, body);

export function adminGroupProcessors(ctx: BrokerContext): ProcessorTableEntry[] {
  const mq = (topic: string, queueId: number): MessageQueueKey => ({
    topic,
    brokerName: ctx.brokerConfig.brokerName,
    queueId,
  });

  return [
    [
      RequestCode.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP,
      (req) => {
        let raw: Record<string, unknown>;
        try {
          raw = asObject(
            parseJson(new TextDecoder().decode(req.body ?? new Uint8Array())),
            "SubscriptionGroupConfig",
          ) as Record<string, unknown>;
        } catch (err) {
          throw new RemotingError(
            ResponseCode.SYSTEM_ERROR,
            `bad SubscriptionGroupConfig body: ${(err as Error).message}`,
          );
        }
        const name = typeof raw.groupName === "string" ? raw.groupName : "";
        const problem = groupNameProblem(name);
        if (problem) throw new RemotingError(ResponseCode.INVALID_PARAMETER, problem);
        const config = { ...subscriptionGroupConfig(name) } as SubscriptionGroupConfig;
        for (const key of Object.keys(config) as (keyof SubscriptionGroupConfig)[]) {
          const v = raw[key];
          if (v !== undefined && typeof v === typeof config[key])
            (config as unknown as Record<string, unknown>)[key] = v;
          else if (typeof v === "bigint") (config as unknown as Record<string, unknown>)[key] = Number(v);
        }
        ctx.groups.put(config);
        return ok();
      },
    ],
    [
      RequestCode.DELETE_SUBSCRIPTIONGROUP,
      (req) => {
        const h = DeleteSubscriptionGroupRequestHeader.decode(req.extFields);
        ctx.groups.delete(h.groupName);
        if (h.cleanOffset) ctx.offsets.removeGroup(h.groupName);
        ctx.stats.forgetGroup(h.groupName);
        return ok();
      },
    ],
    [
      RequestCode.GET_ALL_SUBSCRIPTIONGROUP_CONFIG,
      () =>
        ok(
          json({
            subscriptionGroupTable: Object.fromEntries(ctx.groups.table),
            dataVersion: ctx.groups.dataVersion,
          }),
        ),
    ],
    [
      RequestCode.GET_ALL_CONSUMER_OFFSET,
      () => {
        const offsetTable: Record<string, Record<string, number>> = {};
        for (const [key, queues] of ctx.offsets.table) offsetTable[key] = Object.fromEntries(queues);
        return ok(json({ offsetTable }));
      },
    ],
    [
      RequestCode.GET_CONSUMER_CONNECTION_LIST,
      (req) => {
        const { consumerGroup } = GroupRequestHeader.decode(req.extFields);
        const group = ctx.clients.consumerGroup(consumerGroup);
        if (!group || group.channels.size === 0) {
          throw new RemotingError(
            ResponseCode.CONSUMER_NOT_ONLINE,
            `the consumer group[${consumerGroup}] not online`,
          );
        }
        return ok(
          json({
            connectionSet: [...group.channels.values()].map((ch) => ({
              clientAddr: ch.conn.remoteAddress,
              clientId: ch.clientId,
              language: ch.language,
              version: ch.version,
            })),
            consumeFromWhere: group.consumeFromWhere,
            consumeType: group.consumeType,
            messageModel: group.messageModel,
            subscriptionTable: Object.fromEntries(group.subscriptions),
          }),
        );
      },
    ],
    [
      RequestCode.GET_PRODUCER_CONNECTION_LIST,
      (req) => {
        const { producerGroup } = GetProducerConnectionListRequestHeader.decode(req.extFields);
        const channels = ctx.clients.producerChannels(producerGroup);
        if (channels.length === 0) {
          throw new RemotingError(
            ResponseCode.SYSTEM_ERROR,
            `the producer group[${producerGroup}] not exist`,
          );
        }
        return ok(
          json({
            connectionSet: channels.map((ch) => ({
              clientAddr: ch.conn.remoteAddress,
              clientId: ch.clientId,
              language: ch.language,
              version: ch.version,
            })),
          }),
        );
      },
    ],
    [
      // Java's ProducerTableInfo: group → ProducerInfo per member; remoteIP as Java's
      // InetSocketAddress.toString() writes it, with a leading slash (mqadmin producer -b).
      RequestCode.GET_ALL_PRODUCER_INFO,
      () =>
        ok(
          json({
            data: Object.fromEntries(
              ctx.clients.producerGroups().map(([group, channels]) => [
                group,
                channels.map((ch) => ({
                  clientId: ch.clientId,
                  remoteIP: `/${ch.conn.remoteAddress}`,
                  language: ch.language,
                  version: ch.version,
                  lastUpdateTimestamp: ch.lastUpdate,
                })),
              ]),
            ),
          }),
        ),
    ],
    [
      RequestCode.INVOKE_BROKER_TO_RESET_OFFSET,
      async (req) => {
        const h = ResetOffsetRequestHeader.decode(req.extFields);
        const tc = ctx.topics.get(h.topic);
        if (!tc)
          throw new RemotingError(ResponseCode.TOPIC_NOT_EXIST, `[reset-offset] topic not exist, ${h.topic}`);
        const group = ctx.clients.consumerGroup(h.group);
        // As Java's Broker2Client.resetOffset: nothing changes here for a group nobody consumes, and
        // 206 tells mqadmin to take its offline path (UPDATE_CONSUMER_OFFSET per queue).
        if (!group || group.channels.size === 0)
          throw new RemotingError(
            ResponseCode.CONSUMER_NOT_ONLINE,
            `Consumer not online, so can not reset offset, Group: ${h.group} Topic: ${h.topic} Timestamp: ${h.timestamp}`,
          );
        const rows: (readonly [MessageQueueKey, number])[] = [];
        for (let queueId = 0; queueId < tc.writeQueueNums; queueId++) {
          if (h.queueId !== undefined && h.queueId >= 0 && h.queueId !== queueId) continue;
          const target =
            h.offset !== undefined && h.offset >= 0
              ? h.offset
              : h.timestamp < 0
                ? ctx.store.getMaxOffsetInQueue(h.topic, queueId)
                : await ctx.store.getOffsetInQueueByTime(h.topic, queueId, h.timestamp, BoundaryType.LOWER);
          const current = ctx.offsets.query(h.group, h.topic, queueId);
          // Not forced: only move backwards, as Java's Broker2Client.resetOffset.
          const offset = h.isForce || current < 0 || target < current ? target : current;
          ctx.offsets.commit(h.group, h.topic, queueId, offset);
          rows.push([mq(h.topic, queueId), offset] as const);
        }
        const body = encodeQueueKeyedTable(rows);
        const notice = RemotingCommand.request(
          RequestCode.RESET_CONSUMER_CLIENT_OFFSET,
          { topic: h.topic, group: h.group, timestamp: String(h.timestamp), isForce: String(h.isForce) },
          body,
        );
        for (const ch of group.channels.values()) {
          const copy = new RemotingCommand({ code: notice.code, extFields: { ...notice.extFields }, body });
          ctx
            .endpoint()
            .invokeOneway(ch.conn, copy, 5000)
            .catch((err: Error) =>
              ctx.log.warn({ err: err.message, client: ch.clientId }, "reset offset notice failed"),
            );
        }
        return ok(body);
      },
    ],
    [
      RequestCode.QUERY_TOPIC_CONSUME_BY_WHO,
      (req) => {
        const topic = req.ext("topic") ?? "";
        const groups = new Set([...ctx.clients.groupsConsuming(topic), ...ctx.offsets.groupsOf(topic)]);
        return ok(json({ groupList: [...groups] }));
      },
    ],
  ];
}
