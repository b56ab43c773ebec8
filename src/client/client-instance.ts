/**
 * ClientInstance (Java's MQClientInstance): one remoting client, NameServer failover, the route
 * cache refreshed every 30 s and on demand, heartbeats to every broker every 30 s, and the
 * processors for requests brokers send to clients. Producers and consumers register here.
 */

import { createRequestSigner } from "../acl/signature.ts";
import { type Logger, logger } from "../log.ts";
import type { ConsumerData, HeartbeatData } from "../protocol/body/heartbeat.ts";
import { decodeQueueKeyedTable } from "../protocol/body/queue-keyed.ts";
import { NotifyConsumerIdsChangedRequestHeader } from "../protocol/headers/client.ts";
import { CheckTransactionStateRequestHeader } from "../protocol/headers/transaction.ts";
import {
  createUniqueIdGenerator,
  decodeRecord,
  hostAddress,
  MessageConst,
  parseIp,
  type UniqueIdGenerator,
} from "../protocol/message/index.ts";
import type { TopicRouteData } from "../protocol/route/index.ts";
import {
  type Connector,
  RemotingClient,
  RemotingCommand,
  RequestCode,
  ResponseCode,
  tcpConnector,
} from "../remoting/index.ts";
import { BrokerApi } from "./broker-api.ts";
import { answerConsumerStatus } from "./consumer-status.ts";
import { clientError, MQClientError } from "./errors.ts";
import { type MessageExt, toMessageExt } from "./message.ts";
import type { MessageQueue } from "./message-queue.ts";
import { NamesrvApi } from "./namesrv-api.ts";
import { type ClientOptions, type ResolvedClientOptions, resolveClientOptions } from "./options.ts";
import { RequestFutures, receiveReply } from "./request-futures.ts";
import { RouteCache } from "./route-cache.ts";
import { answerRunningInfo, type ConsumerRunningInfo } from "./running-info.ts";

/** At most one heartbeat a second per broker for lost connections. */
const RECONNECT_HEARTBEAT_MIN_GAP_MS = 1000;

/** A producer as the instance sees it. */
export interface ProducerMember {
  readonly group: string;
  topics(): Iterable<string>;
  /** CHECK_TRANSACTION_STATE from the broker at `addr` (transactional producers only). */
  checkTransactionState?(
    addr: string,
    msg: MessageExt,
    check: CheckTransactionStateRequestHeader,
  ): Promise<void>;
}

/** A consumer as the instance sees it. */
export interface ConsumerMember {
  readonly group: string;
  topics(): Iterable<string>;
  consumerData(): ConsumerData;
  /** Re-run allocation now (NOTIFY_CONSUMER_IDS_CHANGED, new routes). */
  rebalanceSoon(): void;
  /** RESET_CONSUMER_CLIENT_OFFSET: adopt these offsets. */
  resetOffsets?(topic: string, offsets: Map<string, number>): Promise<void>;
  /** GET_CONSUMER_RUNNING_INFO: queues, locks and the orderly flag (running-info.ts). */
  runningInfo?(): ConsumerRunningInfo;
  /** GET_CONSUMER_STATUS_FROM_CLIENT: the offsets in memory of a topic's queues (consumer-status.ts). */
  offsetTable?(topic: string): [MessageQueue, number][];
}

export class ClientInstance {
  readonly clientId: string;
  readonly options: ResolvedClientOptions;
  readonly remoting: RemotingClient;
  readonly namesrv: NamesrvApi;
  readonly broker: BrokerApi;
  readonly routes = new RouteCache();
  /** Requests of request-reply waiting for their reply (request-futures.ts). */
  readonly requests = new RequestFutures();
  readonly log: Logger;
  /** Generates UNIQ_KEY values (spec broker §3.2). */
  readonly nextUniqueId: UniqueIdGenerator;
  private readonly producers = new Map<string, ProducerMember>();
  private readonly consumers = new Map<string, ConsumerMember>();
  private readonly timers: ReturnType<typeof setInterval>[] = [];
  private readonly routeLoads = new Map<string, Promise<TopicRouteData | null>>();
  private state: "created" | "running" | "stopped" = "created";
  /** When each broker last got a heartbeat because its connection was lost. */
  private readonly reconnectHeartbeats = new Map<string, number>();
  /** Each broker's MQVersion ordinal, from its heartbeat answers (Java's brokerVersionTable). */
  private readonly brokerVersions = new Map<string, number>();

  constructor(options: ClientOptions) {
    this.options = resolveClientOptions(options);
    this.clientId = `${this.options.clientIP}@${this.options.instanceName}`;
    this.log = (options.log ?? logger("client")).child({ clientId: this.clientId });
    this.remoting = new RemotingClient({
      name: `client ${this.clientId}`,
      log: this.log,
      language: this.options.language,
      version: this.options.version,
      ...this.connectorOption(),
      ...(this.options.credentials ? { beforeRequest: createRequestSigner(this.options.credentials) } : {}),
    });
    this.namesrv = new NamesrvApi(
      this.remoting,
      this.options.namesrvAddrs,
      this.options.mqClientApiTimeoutMs,
      this.log,
    );
    this.broker = new BrokerApi(this.remoting, this.options.mqClientApiTimeoutMs);
    const ip = parseIpSafe(this.options.clientIP);
    this.nextUniqueId = createUniqueIdGenerator({
      ip,
      pid: process.pid,
      instanceHash: crypto.getRandomValues(new Int32Array(1))[0]!,
    });
    this.registerProcessors();
    this.remoting.onConnectionLost((addr) => this.heartbeatAfterLostConnection(addr));
  }

  /** The connector given, or TCP with TLS when asked for; none: the remoting client's plain TCP. */
  private connectorOption(): { connector?: Connector } {
    if (this.options.connector) return { connector: this.options.connector };
    const tls = this.options.tls;
    return tls ? { connector: tcpConnector({ log: this.log, tls }) } : {};
  }

  get running(): boolean {
    return this.state === "running";
  }

  start(): void {
    if (this.state === "running") return;
    if (this.state === "stopped")
      throw clientError("client instance is shut down", ResponseCode.SERVICE_NOT_AVAILABLE);
    this.state = "running";
    this.every(this.options.pollNameServerIntervalMs, () => this.refreshAllRoutes());
    this.every(this.options.heartbeatBrokerIntervalMs, () => this.heartbeatAll());
  }

  registerProducer(p: ProducerMember): void {
    if (this.producers.has(p.group)) throw clientError(`producer group ${p.group} is already registered`);
    this.producers.set(p.group, p);
  }

  registerConsumer(c: ConsumerMember): void {
    if (this.consumers.has(c.group)) throw clientError(`consumer group ${c.group} is already registered`);
    this.consumers.set(c.group, c);
  }

  /** Removes a member and tells every broker (UNREGISTER_CLIENT). */
  async unregister(kind: "producer" | "consumer", group: string): Promise<void> {
    const map = kind === "producer" ? this.producers : this.consumers;
    if (!map.delete(group)) return;
    const groups = kind === "producer" ? { producerGroup: group } : { consumerGroup: group };
    await Promise.all(
      this.routes.allAddrs(true).map((addr) =>
        this.broker.unregisterClient(addr, this.clientId, groups).catch((err: unknown) => {
          this.log.warn({ addr, err: (err as Error).message }, "unregister client failed");
        }),
      ),
    );
  }

  get memberCount(): number {
    return this.producers.size + this.consumers.size;
  }

  /**
   * Fetches a topic's route from the NameServer and caches it; concurrent callers share one
   * request. Returns null for a topic the NameServer does not know.
   */
  refreshRoute(topic: string): Promise<TopicRouteData | null> {
    const pending = this.routeLoads.get(topic);
    if (pending) return pending;
    const load = this.namesrv
      .topicRoute(topic)
      .then((route) => {
        if (!route) return null;
        const changed = this.routes.update(topic, route);
        if (changed) for (const c of this.consumers.values()) if (hasTopic(c, topic)) c.rebalanceSoon();
        return route;
      })
      .finally(() => this.routeLoads.delete(topic));
    this.routeLoads.set(topic, load);
    return load;
  }

  /** The cached route, fetched on first use. */
  async route(topic: string): Promise<TopicRouteData | null> {
    return this.routes.routes.get(topic) ?? (await this.refreshRoute(topic));
  }

  /** The master address of a broker, refreshing `topic`'s route once if the broker is unknown. */
  async masterAddr(brokerName: string, topic?: string): Promise<string> {
    let addr = this.routes.masterAddr(brokerName);
    if (!addr && topic) {
      await this.refreshRoute(topic).catch(() => null);
      addr = this.routes.masterAddr(brokerName);
    }
    if (!addr) throw clientError(`the broker[${brokerName}] does not exist`, ResponseCode.SYSTEM_ERROR);
    return addr;
  }

  /** Heartbeat to every broker: masters only when there are no consumers (as Java). */
  async heartbeatAll(): Promise<void> {
    const data = this.heartbeatToSend();
    if (data === undefined) return;
    const addrs = this.routes.allAddrs(data.consumerDataSet.length === 0);
    this.log.debug({ addrs, consumers: data.consumerDataSet.length }, "heartbeat");
    await Promise.all(addrs.map((addr) => this.heartbeatTo(addr, data, "heartbeat failed")));
  }

  /** What a heartbeat carries, or undefined when the instance is not running or has no members. */
  private heartbeatToSend(): HeartbeatData | undefined {
    if (this.state !== "running") return undefined;
    const data = this.heartbeatData();
    if (data.producerDataSet.length === 0 && data.consumerDataSet.length === 0) return undefined;
    return data;
  }

  /**
   * The MQVersion ordinal of the broker at `addr`, as its last heartbeat answer gave it; one
   * heartbeat is sent first when none was answered yet. Undefined when the broker cannot be asked.
   */
  async brokerVersion(addr: string): Promise<number | undefined> {
    const known = this.brokerVersions.get(addr);
    if (known !== undefined) return known;
    const data = this.heartbeatToSend();
    if (data !== undefined) await this.heartbeatTo(addr, data, "heartbeat for the broker's version failed");
    return this.brokerVersions.get(addr);
  }

  /** One broker's heartbeat; a failure is logged (the next tick tries again), never thrown. */
  private heartbeatTo(addr: string, data: HeartbeatData, failure: string): Promise<void> {
    return this.broker.heartbeat(addr, data).then(
      (version) => {
        this.brokerVersions.set(addr, version);
      },
      (err: unknown) => {
        this.log.warn({ addr, err: (err as Error).message }, failure);
      },
    );
  }

  /**
   * A broker forgets a client's groups with its connection (and an idle or restarted broker drops
   * it). Until the next periodic heartbeat, up to 30 s away, the client's pulls would run on a new
   * connection while the group's other members, told this one left, rebalance its queues to
   * themselves: both consume them. So a lost broker connection is answered at once with a
   * heartbeat, which reconnects; at most once a second per broker, so a broker that drops every
   * connection does not get a storm.
   */
  private heartbeatAfterLostConnection(addr: string): void {
    const now = Date.now();
    if (now - (this.reconnectHeartbeats.get(addr) ?? 0) < RECONNECT_HEARTBEAT_MIN_GAP_MS) return;
    if (!this.routes.allAddrs(false).includes(addr)) return;
    const data = this.heartbeatToSend();
    if (data === undefined) return;
    this.reconnectHeartbeats.set(addr, now);
    this.log.info({ addr }, "broker connection lost; heartbeat to it at once");
    void this.heartbeatTo(addr, data, "heartbeat after a lost connection failed");
  }

  heartbeatData(): HeartbeatData {
    return {
      clientID: this.clientId,
      producerDataSet: [...this.producers.keys()].map((groupName) => ({ groupName })),
      consumerDataSet: [...this.consumers.values()].map((c) => c.consumerData()),
    };
  }

  async shutdown(): Promise<void> {
    if (this.state === "stopped") return;
    this.state = "stopped";
    for (const t of this.timers.splice(0)) clearInterval(t);
    this.requests.failAll(clientError("client instance is shut down", ResponseCode.SERVICE_NOT_AVAILABLE));
    await Promise.allSettled([...this.routeLoads.values()]);
    await this.remoting.shutdown();
  }

  private async refreshAllRoutes(): Promise<void> {
    const topics = new Set<string>();
    for (const m of [...this.producers.values(), ...this.consumers.values()])
      for (const t of m.topics()) topics.add(t);
    await Promise.all(
      [...topics].map((t) =>
        this.refreshRoute(t).catch((err: unknown) => {
          this.log.warn({ topic: t, err: (err as Error).message }, "route refresh failed");
        }),
      ),
    );
  }

  private every(ms: number, task: () => Promise<void>): void {
    let busy = false;
    const timer = setInterval(() => {
      if (busy || this.state !== "running") return;
      busy = true;
      task()
        .catch((err: unknown) => this.log.error({ err }, "periodic task failed"))
        .finally(() => {
          busy = false;
        });
    }, ms);
    this.timers.push(timer);
  }

  /**
   * Hands a broker's check (spec broker §10.3) to the producer of the message's PGROUP, which
   * answers with a oneway END_TRANSACTION; a check for a group this client does not run is ignored.
   */
  private answerTransactionCheck(req: RemotingCommand, addr: string): void {
    let check: CheckTransactionStateRequestHeader;
    let msg: MessageExt;
    try {
      check = CheckTransactionStateRequestHeader.decode(req.extFields);
      if (!req.body) throw new Error("no message in the check");
      msg = toMessageExt(decodeRecord(req.body), check.bname ?? "");
    } catch (err) {
      this.log.warn({ err: (err as Error).message, addr }, "unreadable transaction check ignored");
      return;
    }
    const uniq = msg.properties[MessageConst.UNIQ_KEY];
    if (uniq) msg.transactionId = uniq;
    const group = msg.properties[MessageConst.PGROUP] ?? "";
    const producer = this.producers.get(group);
    if (!producer?.checkTransactionState) {
      this.log.debug({ group, addr }, "transaction check for a group this client does not produce for");
      return;
    }
    void producer.checkTransactionState(addr, msg, check);
  }

  private registerProcessors(): void {
    const registry = this.remoting.registry;
    registry.register(RequestCode.NOTIFY_CONSUMER_IDS_CHANGED, (req) => {
      const { consumerGroup } = NotifyConsumerIdsChangedRequestHeader.decode(req.extFields);
      this.log.info({ group: consumerGroup }, "consumer ids changed, rebalancing");
      this.consumers.get(consumerGroup)?.rebalanceSoon();
      return null;
    });
    registry.register(RequestCode.RESET_CONSUMER_CLIENT_OFFSET, async (req) => {
      const topic = req.ext("topic") ?? "";
      const group = req.ext("group") ?? "";
      const consumer = this.consumers.get(group);
      if (consumer?.resetOffsets && req.body) {
        await consumer.resetOffsets(topic, decodeResetOffsetBody(req.body));
      }
      return RemotingCommand.response(ResponseCode.SUCCESS);
    });
    registry.register(RequestCode.CHECK_TRANSACTION_STATE, (req, rc) => {
      this.answerTransactionCheck(req, rc.connection.remoteAddress);
      return null;
    });
    registry.register(RequestCode.PUSH_REPLY_MESSAGE_TO_CLIENT, (req) =>
      receiveReply(req, this.requests, this.log),
    );
    registry.register(RequestCode.GET_CONSUMER_RUNNING_INFO, (req) =>
      answerRunningInfo(req, (group) => this.consumers.get(group), this),
    );
    registry.register(RequestCode.GET_CONSUMER_STATUS_FROM_CLIENT, (req) =>
      answerConsumerStatus(req, (group) => this.consumers.get(group)),
    );
  }
}

function hasTopic(c: ConsumerMember, topic: string): boolean {
  for (const t of c.topics()) if (t === topic) return true;
  return false;
}

function parseIpSafe(ip: string): Uint8Array {
  try {
    return parseIp(ip);
  } catch {
    return hostAddress("127.0.0.1", 0).ip;
  }
}

/**
 * ResetOffsetBody: `{"offsetTable":{{"brokerName":..,"queueId":..,"topic":..}:offset}}` with
 * fastjson object keys; returns `brokerName/queueId` → offset.
 */
export function decodeResetOffsetBody(body: Uint8Array): Map<string, number> {
  const out = new Map<string, number>();
  for (const [mq, offset] of decodeQueueKeyedTable(body))
    out.set(`${mq.brokerName}/${mq.queueId}`, Number(offset));
  return out;
}

export { MQClientError };
