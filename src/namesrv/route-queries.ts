/**
 * Read-only views of the route tables (spec remoting §7.5): topic routes, cluster info and topic
 * lists. Every answer is a copy, so a caller can encode or change it without touching the table.
 */
import {
  type BrokerData,
  type BrokerMemberGroup,
  type ClusterInfo,
  cloneBrokerData,
  isWriteable,
  MASTER_ID,
  type TopicRouteData,
} from "../protocol/route/index.ts";
import { liveKey, minBrokerId, type RouteState } from "./route-state.ts";

/** Topics a 5.x broker uses to sync its group members; never rewritten for acting masters. */
const SYNC_BROKER_MEMBER_GROUP_PREFIX = "rmq_sys_SYNC_BROKER_MEMBER_";

/** A topic's route, or null unless it has queue data and at least one of its brokers is known. */
export function pickupTopicRouteData(
  s: Readonly<RouteState>,
  topic: string,
  supportActingMaster: boolean,
): TopicRouteData | null {
  const byBroker = s.topicQueueTable.get(topic);
  if (!byBroker) return null;
  const brokerDatas: BrokerData[] = [];
  const filterServerTable = new Map<string, string[]>();
  for (const name of byBroker.keys()) {
    const data = s.brokerAddrTable.get(name);
    if (!data) continue;
    const copy = cloneBrokerData(data);
    brokerDatas.push(copy);
    if (s.filterServerTable.size === 0) continue;
    for (const addr of copy.brokerAddrs.values()) {
      const servers = s.filterServerTable.get(liveKey(copy.cluster, addr));
      // Java puts null for brokers without filter servers; the writer leaves null entries out.
      if (servers) filterServerTable.set(addr, [...servers]);
    }
  }
  if (brokerDatas.length === 0) return null;
  const route: TopicRouteData = {
    queueDatas: [...byBroker.values()].map((qd) => ({ ...qd })),
    brokerDatas,
    filterServerTable,
  };
  const mappings = s.topicQueueMappingInfoTable.get(topic);
  if (mappings) route.topicQueueMappingByBroker = new Map(mappings);
  if (supportActingMaster && !topic.startsWith(SYNC_BROKER_MEMBER_GROUP_PREFIX)) actAsMaster(route);
  return route;
}

/**
 * With supportActingMaster, a group whose master is gone and whose queues are read-only shows its
 * smallest-id slave under id 0, so consumers treat it as the master.
 */
function actAsMaster(route: TopicRouteData): void {
  for (const data of route.brokerDatas) {
    const addrs = data.brokerAddrs;
    if (addrs.size === 0 || addrs.has(MASTER_ID) || !data.enableActingMaster) continue;
    const qd = route.queueDatas.find((q) => q.brokerName === data.brokerName);
    if (!qd || isWriteable(qd.perm)) continue;
    const min = minBrokerId(addrs);
    if (min === undefined) continue;
    const addr = addrs.get(min);
    addrs.delete(min);
    if (addr !== undefined) addrs.set(MASTER_ID, addr);
  }
}

export function clusterInfo(s: Readonly<RouteState>): ClusterInfo {
  return {
    brokerAddrTable: new Map([...s.brokerAddrTable].map(([name, data]) => [name, cloneBrokerData(data)])),
    clusterAddrTable: new Map([...s.clusterAddrTable].map(([name, set]) => [name, new Set(set)])),
  };
}

/** Topics with queue data on any broker of the cluster; an unknown cluster gives none. */
export function topicsByCluster(s: Readonly<RouteState>, cluster: string): string[] {
  const names = s.clusterAddrTable.get(cluster);
  if (!names) return [];
  const out = new Set<string>();
  for (const [topic, byBroker] of s.topicQueueTable) {
    for (const name of names) if (byBroker.has(name)) out.add(topic);
  }
  return [...out];
}

/** Cluster and broker names (the topics brokers create for themselves) plus one broker address. */
export function systemTopicList(s: Readonly<RouteState>): { topicList: string[]; brokerAddr?: string } {
  const topics = new Set<string>();
  for (const [cluster, names] of s.clusterAddrTable) {
    topics.add(cluster);
    for (const name of names) topics.add(name);
  }
  const out: { topicList: string[]; brokerAddr?: string } = { topicList: [...topics] };
  for (const data of s.brokerAddrTable.values()) {
    const first = data.brokerAddrs.values().next();
    if (!first.done) {
      out.brokerAddr = first.value;
      break;
    }
  }
  return out;
}

/** Topics whose first QueueData's sysFlag passes `filter` (the unit topic lists, 311–313). */
export function topicsBySysFlag(s: Readonly<RouteState>, filter: (sysFlag: number) => boolean): string[] {
  const out: string[] = [];
  for (const [topic, byBroker] of s.topicQueueTable) {
    const first = byBroker.values().next();
    if (!first.done && filter(first.value.topicSysFlag)) out.push(topic);
  }
  return out;
}

export function brokerMemberGroup(
  s: Readonly<RouteState>,
  clusterName: string,
  brokerName: string,
): BrokerMemberGroup {
  const data = s.brokerAddrTable.get(brokerName);
  return { cluster: clusterName, brokerName, brokerAddrs: new Map(data?.brokerAddrs ?? []) };
}
