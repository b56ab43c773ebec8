/**
 * The NameServer's route tables (spec remoting §7.3). Only RouteTable writes them; read-only views
 * (route-queries.ts) receive them as `Readonly` data. JS runs one task at a time, so Java's
 * read/write lock becomes "every write method is synchronous".
 */

import type { BrokerData, DataVersion, QueueData, TopicQueueMappingInfo } from "../protocol/route/index.ts";
import type { Connection } from "../remoting/index.ts";

/** The 120 s expiry of a broker that stops registering (Java's DEFAULT_BROKER_CHANNEL_EXPIRED_TIME). */
export const DEFAULT_BROKER_CHANNEL_EXPIRED_TIME_MS = 120_000;

export interface BrokerLiveInfo {
  readonly clusterName: string;
  readonly brokerAddr: string;
  lastUpdateTimestamp: number;
  heartbeatTimeoutMillis: number;
  dataVersion: DataVersion;
  /** The connection the broker registered on; null when registered from inside the process. */
  connection: Connection | null;
  haServerAddr: string;
}

export interface RouteState {
  /** topic → brokerName → QueueData. */
  readonly topicQueueTable: Map<string, Map<string, QueueData>>;
  /** brokerName → BrokerData (addresses by broker id). */
  readonly brokerAddrTable: Map<string, BrokerData>;
  /** clusterName → brokerNames. */
  readonly clusterAddrTable: Map<string, Set<string>>;
  /** liveKey(cluster, addr) → liveness. */
  readonly brokerLiveTable: Map<string, BrokerLiveInfo>;
  /** liveKey(cluster, addr) → filter-server addresses. */
  readonly filterServerTable: Map<string, string[]>;
  /** topic → brokerName → static-topic mapping (5.x). */
  readonly topicQueueMappingInfoTable: Map<string, Map<string, TopicQueueMappingInfo>>;
}

/** Java keys liveness by BrokerAddrInfo(clusterName, brokerAddr); NUL cannot occur in either. */
export function liveKey(clusterName: string, brokerAddr: string): string {
  return `${clusterName}\u0000${brokerAddr}`;
}

export function emptyRouteState(): RouteState {
  return {
    topicQueueTable: new Map(),
    brokerAddrTable: new Map(),
    clusterAddrTable: new Map(),
    brokerLiveTable: new Map(),
    filterServerTable: new Map(),
    topicQueueMappingInfoTable: new Map(),
  };
}

/** Smallest broker id in a BrokerData, or undefined when it has none. */
export function minBrokerId(addrs: ReadonlyMap<number, string>): number | undefined {
  let min: number | undefined;
  for (const id of addrs.keys()) if (min === undefined || id < min) min = id;
  return min;
}
