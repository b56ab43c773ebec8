/**
 * Broker requests the admin verbs need beyond the client's Admin API (producer connections, broker
 * config, consume and topic stats, subscription group lists), sent through the admin's own client,
 * and the choice of target brokers from mqadmin's `-b ADDR` / `-c CLUSTER` flags.
 */
import { type Admin, createProducer, type Producer } from "../../client/index.ts";
import { call } from "../../client/rpc.ts";
import { parseProperties } from "../../config/properties.ts";
import { decodeQueueKeyedTable, type MessageQueueKey } from "../../protocol/body/queue-keyed.ts";
import {
  DeleteSubscriptionGroupRequestHeader,
  GetConsumeStatsRequestHeader,
  GetProducerConnectionListRequestHeader,
  TopicRequestHeader,
} from "../../protocol/headers/admin.ts";
import { MASTER_ID } from "../../protocol/route/index.ts";
import { RequestCode } from "../../remoting/index.ts";
import { type AdminContext, AdminFailure } from "./context.ts";

export interface BrokerTarget {
  cluster: string;
  brokerName: string;
  brokerId: number;
  addr: string;
}

/** Every broker the NameServer knows (masters and slaves), sorted by cluster, name and id. */
export async function allBrokers(admin: Admin): Promise<BrokerTarget[]> {
  const info = await admin.clusterList();
  const out: BrokerTarget[] = [];
  for (const [brokerName, b] of info.brokerAddrTable) {
    for (const [brokerId, addr] of b.brokerAddrs)
      out.push({ cluster: b.cluster, brokerName, brokerId, addr });
  }
  return out.sort(
    (a, b) =>
      a.cluster.localeCompare(b.cluster) ||
      a.brokerName.localeCompare(b.brokerName) ||
      a.brokerId - b.brokerId,
  );
}

/**
 * The brokers a verb acts on: the one at `brokerAddr`, or the masters of `clusterName`, or every
 * master when neither is given. An address the NameServer does not know is still used as given.
 */
export async function targets(
  admin: Admin,
  where: { brokerAddr?: string; clusterName?: string },
): Promise<BrokerTarget[]> {
  const brokers = await allBrokers(admin);
  if (where.brokerAddr !== undefined) {
    const known = brokers.find((b) => b.addr === where.brokerAddr);
    return [known ?? { cluster: "", brokerName: "", brokerId: MASTER_ID, addr: where.brokerAddr }];
  }
  const masters = brokers.filter((b) => b.brokerId === MASTER_ID);
  if (where.clusterName !== undefined) {
    const inCluster = masters.filter((b) => b.cluster === where.clusterName);
    if (inCluster.length === 0) throw new AdminFailure(`cluster ${where.clusterName} has no master broker`);
    return inCluster;
  }
  if (masters.length === 0) throw new AdminFailure("the NameServer knows no master broker");
  return masters;
}

export function brokerCall(
  admin: Admin,
  addr: string,
  code: number,
  ext: Record<string, string> | null,
  body: Uint8Array | null = null,
) {
  return call(admin.client.remoting, addr, code, ext, body, admin.client.options.mqClientApiTimeoutMs);
}

const decoder = new TextDecoder();

function bodyJson(body: Uint8Array | null | undefined): Record<string, unknown> {
  if (!body || body.length === 0) return {};
  return JSON.parse(decoder.decode(body)) as Record<string, unknown>;
}

export interface Connection {
  clientId: string;
  clientAddr: string;
  language: string;
  version: number;
}

/** GET_PRODUCER_CONNECTION_LIST on the masters serving `topic`; the first that knows the group. */
export async function producerConnections(admin: Admin, group: string, topic: string): Promise<Connection[]> {
  const route = await admin.topicRoute(topic);
  let last: unknown;
  for (const b of route.brokerDatas) {
    const addr = b.brokerAddrs.get(MASTER_ID);
    if (addr === undefined) continue;
    try {
      const r = await brokerCall(
        admin,
        addr,
        RequestCode.GET_PRODUCER_CONNECTION_LIST,
        GetProducerConnectionListRequestHeader.encode({ producerGroup: group }),
      );
      const set = (bodyJson(r.body).connectionSet ?? []) as Partial<Connection>[];
      return set.map((c) => ({
        clientId: String(c.clientId ?? ""),
        clientAddr: String(c.clientAddr ?? ""),
        language: String(c.language ?? ""),
        version: Number(c.version ?? 0),
      }));
    } catch (err) {
      last = err;
    }
  }
  throw last ?? new AdminFailure(`no master broker serves topic ${topic}`);
}

/** GET_BROKER_CONFIG: the broker's properties in the order it sent them. */
export async function brokerConfig(admin: Admin, addr: string): Promise<Map<string, string>> {
  const r = await brokerCall(admin, addr, RequestCode.GET_BROKER_CONFIG, null);
  return parseProperties(decoder.decode(r.body ?? new Uint8Array()), `config of broker ${addr}`);
}

/** UPDATE_BROKER_CONFIG with one `key=value` property. */
export async function updateBrokerConfig(
  admin: Admin,
  addr: string,
  key: string,
  value: string,
): Promise<void> {
  const body = new TextEncoder().encode(`${key}=${value}\n`);
  await brokerCall(admin, addr, RequestCode.UPDATE_BROKER_CONFIG, null, body);
}

export type QueueKey = MessageQueueKey;

/** The queue-keyed body of a stats answer, read by the codec that writes it (src/protocol/body). */
export function decodeQueueKeyed<V>(body: Uint8Array | null | undefined): { mq: QueueKey; value: V }[] {
  return decodeQueueKeyedTable(body ?? new Uint8Array()).map(([mq, value]) => ({ mq, value: value as V }));
}

export interface OffsetWrapper {
  brokerOffset: number;
  consumerOffset: number;
  pullOffset?: number;
  lastTimestamp: number;
}

/** GET_CONSUME_STATS on one broker: every queue of `topic` (or of every topic the group has offsets on). */
export async function consumeStats(
  admin: Admin,
  addr: string,
  group: string,
  topic?: string,
): Promise<{ mq: QueueKey; value: OffsetWrapper }[]> {
  const ext = GetConsumeStatsRequestHeader.encode(
    topic === undefined ? { consumerGroup: group } : { consumerGroup: group, topic },
  );
  const r = await brokerCall(admin, addr, RequestCode.GET_CONSUME_STATS, ext);
  return decodeQueueKeyed<OffsetWrapper>(r.body);
}

export interface TopicOffset {
  minOffset: number;
  maxOffset: number;
  lastUpdateTimestamp: number;
}

/** GET_TOPIC_STATS_INFO on one broker. */
export async function topicStatsTable(
  admin: Admin,
  addr: string,
  topic: string,
): Promise<{ mq: QueueKey; value: TopicOffset }[]> {
  const r = await brokerCall(
    admin,
    addr,
    RequestCode.GET_TOPIC_STATS_INFO,
    TopicRequestHeader.encode({ topic }),
  );
  return decodeQueueKeyed<TopicOffset>(r.body);
}

/** GET_ALL_SUBSCRIPTIONGROUP_CONFIG on one broker: the group names. */
export async function subscriptionGroups(admin: Admin, addr: string): Promise<string[]> {
  const r = await brokerCall(admin, addr, RequestCode.GET_ALL_SUBSCRIPTIONGROUP_CONFIG, null);
  return Object.keys((bodyJson(r.body).subscriptionGroupTable ?? {}) as Record<string, unknown>);
}

/** QUERY_TOPIC_CONSUME_BY_WHO on one broker. */
export async function groupsConsuming(admin: Admin, addr: string, topic: string): Promise<string[]> {
  const r = await brokerCall(admin, addr, RequestCode.QUERY_TOPIC_CONSUME_BY_WHO, { topic });
  return ((bodyJson(r.body).groupList ?? []) as unknown[]).map(String);
}

/** DELETE_SUBSCRIPTIONGROUP on one broker. */
export async function deleteSubscriptionGroupAt(
  admin: Admin,
  addr: string,
  group: string,
  cleanOffset: boolean,
): Promise<void> {
  const ext = DeleteSubscriptionGroupRequestHeader.encode({ groupName: group, cleanOffset });
  await brokerCall(admin, addr, RequestCode.DELETE_SUBSCRIPTIONGROUP, ext);
}

/** A producer of the verb's own (its keys, its TLS), shut down when the verb ends. */
export async function producerFor(ctx: AdminContext): Promise<Producer> {
  const producer = await createProducer({
    namesrvAddr: ctx.namesrvAddr,
    log: (await ctx.admin()).client.log,
    ...ctx.credentials,
    tls: ctx.tls,
  });
  ctx.closeLater(() => producer.shutdown());
  return producer;
}

export interface QueueOffset {
  brokerName: string;
  queueId: number;
  offset: number;
}

/** Admin.resetOffsetByTime's `broker/queue` → offset map as rows sorted by broker and queue. */
export function resetOffsetRows(offsets: ReadonlyMap<string, number>): QueueOffset[] {
  return [...offsets]
    .map(([key, offset]) => {
      const cut = key.lastIndexOf("/");
      return { brokerName: key.slice(0, cut), queueId: Number(key.slice(cut + 1)), offset };
    })
    .sort((a, b) => a.brokerName.localeCompare(b.brokerName) || a.queueId - b.queueId);
}
