/**
 * The client's view of routes: topic → route data, the queues a producer may write (writable
 * queues of brokers with a master) and a consumer may read (readable queues), and
 * brokerName → {brokerId → address} for every broker seen in any route.
 */
import { isReadable, isWriteable, MASTER_ID, type TopicRouteData } from "../protocol/route/index.ts";
import { compareMq, type MessageQueue } from "./message-queue.ts";

export interface TopicPublishInfo {
  readonly topic: string;
  readonly queues: readonly MessageQueue[];
  readonly orderTopic: boolean;
}

export class RouteCache {
  readonly routes = new Map<string, TopicRouteData>();
  private readonly brokers = new Map<string, Map<number, string>>();
  /** publishInfo of cached routes, rebuilt only when the route changes (it is read on every send). */
  private readonly publishCache = new Map<string, TopicPublishInfo>();

  /** Stores a route; returns true when it differs from the previous one. */
  update(topic: string, route: TopicRouteData): boolean {
    const before = this.routes.get(topic);
    this.routes.set(topic, route);
    this.publishCache.delete(topic);
    for (const b of route.brokerDatas) this.brokers.set(b.brokerName, new Map(b.brokerAddrs));
    return !before || routeSignature(before) !== routeSignature(route);
  }

  remove(topic: string): void {
    this.routes.delete(topic);
    this.publishCache.delete(topic);
  }

  /** The master address of a broker, or undefined when none is known. */
  masterAddr(brokerName: string): string | undefined {
    return this.brokers.get(brokerName)?.get(MASTER_ID);
  }

  /** The master, else any replica (reads may go to a slave). */
  anyAddr(brokerName: string): string | undefined {
    const addrs = this.brokers.get(brokerName);
    if (!addrs) return undefined;
    return addrs.get(MASTER_ID) ?? [...addrs.entries()].sort((a, b) => a[0] - b[0])[0]?.[1];
  }

  brokerNames(): string[] {
    return [...this.brokers.keys()];
  }

  /** Every broker address known (masters and slaves). */
  allAddrs(mastersOnly = false): string[] {
    const out = new Set<string>();
    for (const addrs of this.brokers.values()) {
      for (const [id, addr] of addrs) if (!mastersOnly || id === MASTER_ID) out.add(addr);
    }
    return [...out];
  }

  /** The publish info of a cached route, built once per route version (read on every send). */
  publishInfo(topic: string): TopicPublishInfo | null {
    const cached = this.publishCache.get(topic);
    if (cached) return cached;
    const info = this.publishInfoOf(topic, this.routes.get(topic));
    if (info) this.publishCache.set(topic, info);
    return info;
  }

  /**
   * Java's topicRouteData2TopicPublishInfo: `route`'s writable master queues as `topic`'s, at most
   * `queueNumsMax` per broker (the TBW102 fallback derives an unknown topic's queues this way).
   */
  publishInfoOf(
    topic: string,
    route: TopicRouteData | undefined,
    queueNumsMax = Infinity,
  ): TopicPublishInfo | null {
    if (!route) return null;
    const queues: MessageQueue[] = [];
    if (route.orderTopicConf) {
      for (const entry of route.orderTopicConf.split(";")) {
        const [brokerName, nums] = entry.split(":");
        if (!brokerName || !nums) continue;
        for (let i = 0; i < Number(nums); i++) queues.push({ topic, brokerName, queueId: i });
      }
      return { topic, queues, orderTopic: true };
    }
    const datas = [...route.queueDatas].sort((a, b) => (a.brokerName < b.brokerName ? -1 : 1));
    for (const q of datas) {
      if (!isWriteable(q.perm)) continue;
      const broker = route.brokerDatas.find((b) => b.brokerName === q.brokerName);
      if (!broker?.brokerAddrs.has(MASTER_ID)) continue;
      const n = Math.min(q.writeQueueNums, queueNumsMax);
      for (let i = 0; i < n; i++) queues.push({ topic, brokerName: q.brokerName, queueId: i });
    }
    return { topic, queues, orderTopic: false };
  }

  /** Java's topicRouteData2TopicSubscribeInfo: readable queues, sorted. */
  subscribeQueues(topic: string, route = this.routes.get(topic)): MessageQueue[] {
    if (!route) return [];
    const out: MessageQueue[] = [];
    for (const q of route.queueDatas) {
      if (!isReadable(q.perm)) continue;
      for (let i = 0; i < q.readQueueNums; i++) out.push({ topic, brokerName: q.brokerName, queueId: i });
    }
    return out.sort(compareMq);
  }
}

function routeSignature(route: TopicRouteData): string {
  const queues = route.queueDatas
    .map((q) => `${q.brokerName}/${q.readQueueNums}/${q.writeQueueNums}/${q.perm}`)
    .sort();
  const brokers = route.brokerDatas
    .map((b) => `${b.brokerName}=${[...b.brokerAddrs].sort((x, y) => x[0] - y[0]).join(",")}`)
    .sort();
  return `${queues.join(";")}|${brokers.join(";")}|${route.orderTopicConf ?? ""}`;
}
