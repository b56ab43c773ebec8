/**
 * RouteTable: the one component that changes the route tables (spec remoting §7.3–§7.5):
 * registration, unregistration, liveness refresh and expiry, permission changes and topic deletes.
 * Reads go through the query methods, which return copies. Every write bumps `version`, which lets
 * callers cache encoded answers.
 */
import type { Logger } from "pino";
import {
  type BrokerData,
  type ClusterInfo,
  type DataVersion,
  dataVersionEquals,
  MASTER_ID,
  PermName,
  type QueueData,
  type TopicConfig,
  type TopicConfigSerializeWrapper,
  type TopicRouteData,
} from "../protocol/route/index.ts";
import type { Connection } from "../remoting/index.ts";
import * as queries from "./route-queries.ts";
import {
  type BrokerLiveInfo,
  DEFAULT_BROKER_CHANNEL_EXPIRED_TIME_MS,
  emptyRouteState,
  liveKey,
  minBrokerId,
  type RouteState,
} from "./route-state.ts";

export interface RegisterBrokerInput {
  clusterName: string;
  brokerAddr: string;
  brokerName: string;
  brokerId: number;
  haServerAddr: string;
  zoneName?: string;
  /** Per-broker expiry (5.x header); undefined means 120 s. */
  heartbeatTimeoutMillis?: number;
  /** Undefined marks a 4.x broker, which has no acting-master notion. */
  enableActingMaster?: boolean;
  wrapper: TopicConfigSerializeWrapper;
  filterServerList: string[] | null;
  connection: Connection | null;
}

export interface RegisterBrokerResult {
  haServerAddr?: string;
  masterAddr?: string;
}

export interface UnregisterInput {
  clusterName: string;
  brokerAddr: string;
  brokerName: string;
}

export interface RouteTableOptions {
  log: Logger;
  supportActingMaster: () => boolean;
  deleteTopicWithBrokerRegistration: () => boolean;
  now?: () => number;
}

export class RouteTable {
  private readonly state: RouteState = emptyRouteState();
  private readonly log: Logger;
  readonly now: () => number;
  /** Bumped by every write. */
  version = 0;

  constructor(private readonly options: RouteTableOptions) {
    this.log = options.log;
    this.now = options.now ?? Date.now;
  }

  /**
   * REGISTER_BROKER. Returns null for Java's "register broker failed": a single-topic registration
   * from a broker id that has not registered in full yet.
   */
  registerBroker(input: RegisterBrokerInput): RegisterBrokerResult | null {
    const s = this.state;
    const { clusterName, brokerAddr, brokerName, brokerId, wrapper } = input;
    this.version++;
    const names = s.clusterAddrTable.get(clusterName) ?? new Set<string>();
    s.clusterAddrTable.set(clusterName, names);
    names.add(brokerName);

    let registerFirst = false;
    let brokerData = s.brokerAddrTable.get(brokerName);
    if (!brokerData) {
      registerFirst = true;
      brokerData = { cluster: clusterName, brokerName, brokerAddrs: new Map(), enableActingMaster: false };
      s.brokerAddrTable.set(brokerName, brokerData);
    }
    const oldVersionBroker = input.enableActingMaster === undefined;
    brokerData.enableActingMaster = input.enableActingMaster === true;
    if (input.zoneName === undefined) delete brokerData.zoneName;
    else brokerData.zoneName = input.zoneName;
    const addrs = brokerData.brokerAddrs;

    // A slave promoted to master re-registers the same address under a new id: one record per address.
    for (const [id, addr] of addrs) if (addr === brokerAddr && id !== brokerId) addrs.delete(id);

    const holder = addrs.get(brokerId);
    if (holder !== undefined && holder !== brokerAddr) {
      const old = s.brokerLiveTable.get(liveKey(clusterName, holder));
      if (old && compareLong(old.dataVersion.stateVersion, wrapper.dataVersion.stateVersion) > 0) {
        this.log.warn(
          { clusterName, brokerName, brokerId, holder, brokerAddr },
          "registration conflicts, ignored",
        );
        s.brokerLiveTable.delete(liveKey(clusterName, brokerAddr));
        return {};
      }
    }
    if (!addrs.has(brokerId) && wrapper.topicConfigTable.size === 1) {
      this.log.warn({ brokerName, brokerId, brokerAddr }, "single-topic registration before a full one");
      return null;
    }
    const oldAddr = addrs.get(brokerId);
    addrs.set(brokerId, brokerAddr);
    registerFirst = registerFirst || !oldAddr;

    const isMaster = brokerId === MASTER_ID;
    const isPrimeSlave = !oldVersionBroker && !isMaster && brokerId === minBrokerId(addrs);
    if (isMaster || isPrimeSlave) this.applyTopicConfigs(input, brokerData, registerFirst, isPrimeSlave);

    const key = liveKey(clusterName, brokerAddr);
    const previous = s.brokerLiveTable.get(key);
    s.brokerLiveTable.set(key, {
      clusterName,
      brokerAddr,
      lastUpdateTimestamp: this.now(),
      heartbeatTimeoutMillis: input.heartbeatTimeoutMillis ?? DEFAULT_BROKER_CHANNEL_EXPIRED_TIME_MS,
      dataVersion: wrapper.dataVersion,
      connection: input.connection,
      haServerAddr: input.haServerAddr,
    });
    if (!previous) this.log.info({ clusterName, brokerName, brokerId, brokerAddr }, "new broker registered");

    if (input.filterServerList) {
      if (input.filterServerList.length === 0) s.filterServerTable.delete(key);
      else s.filterServerTable.set(key, input.filterServerList);
    }

    const result: RegisterBrokerResult = {};
    if (!isMaster) {
      const masterAddr = addrs.get(MASTER_ID);
      const master =
        masterAddr === undefined ? undefined : s.brokerLiveTable.get(liveKey(clusterName, masterAddr));
      if (master && masterAddr !== undefined) {
        result.haServerAddr = master.haServerAddr;
        result.masterAddr = masterAddr;
      }
    }
    return result;
  }

  private applyTopicConfigs(
    input: RegisterBrokerInput,
    brokerData: BrokerData,
    registerFirst: boolean,
    isPrimeSlave: boolean,
  ): void {
    const s = this.state;
    const { brokerName, wrapper } = input;
    const mappings = wrapper.topicQueueMappingInfoMap;
    if (this.options.deleteTopicWithBrokerRegistration() && mappings.size === 0) {
      for (const [topic, byBroker] of s.topicQueueTable) {
        if (!byBroker.has(brokerName) || wrapper.topicConfigTable.has(topic)) continue;
        byBroker.delete(brokerName);
        if (byBroker.size === 0) s.topicQueueTable.delete(topic);
      }
    }
    const versionChanged = this.isBrokerTopicConfigChanged(
      input.clusterName,
      input.brokerAddr,
      wrapper.dataVersion,
    );
    for (const tc of wrapper.topicConfigTable.values()) {
      const existing = s.topicQueueTable.get(tc.topicName);
      if (!registerFirst && !versionChanged && existing?.has(brokerName)) continue;
      // An acting-master prime slave publishes read-only queues.
      const perm = isPrimeSlave && brokerData.enableActingMaster ? tc.perm & ~PermName.PERM_WRITE : tc.perm;
      this.putQueueData(tc.topicName, queueDataOf(brokerName, tc, perm));
    }
    if (versionChanged || registerFirst) {
      for (const [topic, info] of mappings) {
        const byBroker = s.topicQueueMappingInfoTable.get(topic) ?? new Map();
        s.topicQueueMappingInfoTable.set(topic, byBroker);
        byBroker.set(info.bname, info);
      }
    }
  }

  private putQueueData(topic: string, qd: QueueData): void {
    const byBroker = this.state.topicQueueTable.get(topic);
    if (byBroker) {
      byBroker.set(qd.brokerName, qd);
      return;
    }
    this.state.topicQueueTable.set(topic, new Map([[qd.brokerName, qd]]));
    this.log.debug({ topic, queueData: qd }, "new topic registered");
  }

  /** True when no DataVersion is stored for (cluster, addr) or it differs from `dv`. */
  isBrokerTopicConfigChanged(clusterName: string, brokerAddr: string, dv: DataVersion): boolean {
    const prev = this.state.brokerLiveTable.get(liveKey(clusterName, brokerAddr))?.dataVersion;
    return !prev || !dataVersionEquals(prev, dv);
  }

  queryBrokerDataVersion(clusterName: string, brokerAddr: string): DataVersion | undefined {
    return this.state.brokerLiveTable.get(liveKey(clusterName, brokerAddr))?.dataVersion;
  }

  /** QUERY_DATA_VERSION and BROKER_HEARTBEAT keep a broker alive without a full registration. */
  touchBroker(clusterName: string, brokerAddr: string): void {
    const live = this.state.brokerLiveTable.get(liveKey(clusterName, brokerAddr));
    if (live) live.lastUpdateTimestamp = this.now();
  }

  /** UNREGISTER_BROKER, channel close and expiry (spec §7.4). */
  unregisterBrokers(requests: readonly UnregisterInput[]): void {
    const s = this.state;
    const removed = new Set<string>();
    const reduced = new Set<string>();
    this.version++;
    for (const { clusterName, brokerAddr, brokerName } of requests) {
      const key = liveKey(clusterName, brokerAddr);
      s.brokerLiveTable.delete(key);
      s.filterServerTable.delete(key);
      const data = s.brokerAddrTable.get(brokerName);
      let emptied = false;
      if (data) {
        for (const [id, addr] of data.brokerAddrs) if (addr === brokerAddr) data.brokerAddrs.delete(id);
        if (data.brokerAddrs.size === 0) {
          s.brokerAddrTable.delete(brokerName);
          emptied = true;
        }
      }
      this.log.info({ clusterName, brokerName, brokerAddr, emptied }, "unregister broker");
      if (emptied) {
        const names = s.clusterAddrTable.get(clusterName);
        if (names) {
          names.delete(brokerName);
          if (names.size === 0) s.clusterAddrTable.delete(clusterName);
        }
        removed.add(brokerName);
      } else {
        reduced.add(brokerName);
      }
    }
    for (const [topic, byBroker] of s.topicQueueTable) {
      for (const name of removed) byBroker.delete(name);
      if (byBroker.size === 0) {
        s.topicQueueTable.delete(topic);
        continue;
      }
      for (const name of reduced) {
        const qd = byBroker.get(name);
        const data = s.brokerAddrTable.get(name);
        // Acting-master groups whose master left stop taking writes.
        if (qd && data?.enableActingMaster && this.noMaster(name)) qd.perm &= ~PermName.PERM_WRITE;
      }
    }
  }

  private noMaster(brokerName: string): boolean {
    const data = this.state.brokerAddrTable.get(brokerName);
    const min = data ? minBrokerId(data.brokerAddrs) : undefined;
    return min === undefined || min > 0;
  }

  /** Unregisters every broker that registered on `conn` (its channel closed). */
  onConnectionClosed(conn: Connection): number {
    const found: BrokerLiveInfo[] = [];
    for (const live of this.state.brokerLiveTable.values()) if (live.connection === conn) found.push(live);
    const requests = found.flatMap((live) => this.unregisterRequestFor(live));
    if (requests.length > 0) this.unregisterBrokers(requests);
    return requests.length;
  }

  /** Removes brokers whose last update is older than their timeout; returns them. */
  expireInactiveBrokers(): BrokerLiveInfo[] {
    const now = this.now();
    const expired = [...this.state.brokerLiveTable.values()].filter(
      (live) => live.lastUpdateTimestamp + live.heartbeatTimeoutMillis < now,
    );
    if (expired.length === 0) return expired;
    for (const live of expired) {
      this.log.warn(
        { clusterName: live.clusterName, brokerAddr: live.brokerAddr },
        "The broker channel expired",
      );
    }
    this.unregisterBrokers(expired.flatMap((live) => this.unregisterRequestFor(live)));
    // Unregistered first, so the close callback finds nothing left to do.
    for (const live of expired) live.connection?.close("broker channel expired");
    return expired;
  }

  private unregisterRequestFor(live: BrokerLiveInfo): UnregisterInput[] {
    for (const data of this.state.brokerAddrTable.values()) {
      if (data.cluster !== live.clusterName) continue;
      for (const addr of data.brokerAddrs.values()) {
        if (addr === live.brokerAddr) {
          return [
            { clusterName: live.clusterName, brokerAddr: live.brokerAddr, brokerName: data.brokerName },
          ];
        }
      }
    }
    // Not in any BrokerData (a rejected registration): drop the liveness entry alone.
    this.state.brokerLiveTable.delete(liveKey(live.clusterName, live.brokerAddr));
    return [];
  }

  /** WIPE_WRITE_PERM_OF_BROKER / ADD_WRITE_PERM_OF_BROKER; returns the number of topics touched. */
  changeWritePerm(brokerName: string, mode: "wipe" | "add"): number {
    this.version++;
    let count = 0;
    for (const byBroker of this.state.topicQueueTable.values()) {
      const qd = byBroker.get(brokerName);
      if (!qd) continue;
      qd.perm = mode === "wipe" ? qd.perm & ~PermName.PERM_WRITE : PermName.PERM_READ | PermName.PERM_WRITE;
      count++;
    }
    return count;
  }

  /** DELETE_TOPIC_IN_NAMESRV: everywhere, or only on one cluster's brokers. */
  deleteTopic(topic: string, clusterName?: string): void {
    this.version++;
    const s = this.state;
    if (clusterName === undefined || clusterName === "") {
      s.topicQueueTable.delete(topic);
      return;
    }
    const names = s.clusterAddrTable.get(clusterName);
    const byBroker = s.topicQueueTable.get(topic);
    if (!names || !byBroker) return;
    for (const name of names) byBroker.delete(name);
    if (byBroker.size === 0) s.topicQueueTable.delete(topic);
  }

  /** REGISTER_TOPIC_IN_NAMESRV (5.x): skipped whole if any queue names an unknown broker. */
  registerTopic(topic: string, queueDatas: readonly QueueData[]): boolean {
    if (queueDatas.length === 0) return false;
    if (queueDatas.some((qd) => !this.state.brokerAddrTable.has(qd.brokerName))) {
      this.log.warn({ topic }, "register topic names an unknown broker; skipped");
      return false;
    }
    this.version++;
    for (const qd of queueDatas) this.putQueueData(topic, { ...qd });
    return true;
  }

  // Reads: copies, never live references.

  pickupTopicRouteData(topic: string): TopicRouteData | null {
    return queries.pickupTopicRouteData(this.state, topic, this.options.supportActingMaster());
  }
  clusterInfo(): ClusterInfo {
    return queries.clusterInfo(this.state);
  }
  allTopics(): string[] {
    return [...this.state.topicQueueTable.keys()];
  }
  topicsByCluster(cluster: string): string[] {
    return queries.topicsByCluster(this.state, cluster);
  }
  systemTopicList(): { topicList: string[]; brokerAddr?: string } {
    return queries.systemTopicList(this.state);
  }
  topicsBySysFlag(filter: (sysFlag: number) => boolean): string[] {
    return queries.topicsBySysFlag(this.state, filter);
  }
  brokerMemberGroup(clusterName: string, brokerName: string) {
    return queries.brokerMemberGroup(this.state, clusterName, brokerName);
  }
  liveBrokers(): Array<Readonly<BrokerLiveInfo>> {
    return [...this.state.brokerLiveTable.values()].map((live) => ({ ...live }));
  }
}

function queueDataOf(brokerName: string, tc: TopicConfig, perm: number): QueueData {
  return {
    brokerName,
    readQueueNums: tc.readQueueNums,
    writeQueueNums: tc.writeQueueNums,
    perm,
    topicSysFlag: tc.topicSysFlag,
  };
}

function compareLong(a: number | bigint, b: number | bigint): number {
  return a > b ? 1 : a < b ? -1 : 0;
}
