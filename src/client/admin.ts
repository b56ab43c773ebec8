/**
 * Admin API (the parts of Java's DefaultMQAdminExt the gateway and CLI need): topics and
 * subscription groups on every master, routes and per-queue stats, the cluster list, broker
 * runtime info, consumer progress and connections, offset reset by time, message lookups.
 */
import {
  CreateTopicRequestHeader,
  DeleteSubscriptionGroupRequestHeader,
  ResetOffsetRequestHeader,
} from "../protocol/headers/admin.ts";
import { PullSysFlag } from "../protocol/headers/pull.ts";
import { jsonBytes } from "../protocol/json/index.ts";
import { decodeOffsetMessageId } from "../protocol/message/index.ts";
import {
  type ClusterInfo,
  DEFAULT_PERM,
  decodeKVTable,
  MASTER_ID,
  type TopicRouteData,
} from "../protocol/route/index.ts";
import { RequestCode, ResponseCode } from "../remoting/index.ts";
import {
  type ConsumerConnection,
  decodeConsumerConnection,
  type SubscriptionGroupConfig,
  subscriptionGroupConfig,
} from "./admin-bodies.ts";
import type { PullResult } from "./broker-api.ts";
import { GetConsumerConnectionListRequestHeader } from "./client-headers.ts";
import { type ClientInstance, decodeResetOffsetBody } from "./client-instance.ts";
import { clientError, decodeAnswer, MQClientError } from "./errors.ts";
import { decodeMessages, type MessageExt, retryTopic } from "./message.ts";
import { compareMq, type MessageQueue } from "./message-queue.ts";
import { OFFLINE_RESET_CODES, resetOffsetsOffline } from "./offline-reset.ts";
import type { ClientOptions } from "./options.ts";
import { newClient } from "./producer.ts";
import { call } from "./rpc.ts";
import { AUTO_CREATE_TOPIC_KEY } from "./send-request.ts";

export interface CreateTopicOptions {
  readQueueNums?: number;
  writeQueueNums?: number;
  perm?: number;
  order?: boolean;
  /** Masters of this cluster (default: every master the NameServer knows). */
  clusterName?: string;
  /** Or exactly these broker names. */
  brokerNames?: readonly string[];
}

export interface QueueStats {
  mq: MessageQueue;
  minOffset: number;
  maxOffset: number;
}

export interface QueueProgress {
  mq: MessageQueue;
  brokerOffset: number;
  /** -1 when the group has no offset for the queue. */
  consumerOffset: number;
  lag: number;
}

export class Admin {
  constructor(
    readonly client: ClientInstance,
    private readonly ownsClient: boolean,
  ) {}

  async createTopic(topic: string, o: CreateTopicOptions = {}): Promise<string[]> {
    const addrs = await this.masters(o);
    const ext = CreateTopicRequestHeader.encode({
      topic,
      defaultTopic: AUTO_CREATE_TOPIC_KEY,
      readQueueNums: o.readQueueNums ?? 8,
      writeQueueNums: o.writeQueueNums ?? 8,
      perm: o.perm ?? DEFAULT_PERM,
      topicFilterType: "SINGLE_TAG",
      topicSysFlag: 0,
      order: o.order ?? false,
    });
    await Promise.all(addrs.map((a) => this.call(a, RequestCode.UPDATE_AND_CREATE_TOPIC, ext)));
    return addrs;
  }

  /** Deletes the topic on the masters that serve it, then on every NameServer. */
  async deleteTopic(topic: string): Promise<void> {
    const route = await this.client.namesrv.topicRoute(topic);
    const addrs = route ? this.routeMasters(route) : [];
    await Promise.all(addrs.map((a) => this.call(a, RequestCode.DELETE_TOPIC_IN_BROKER, { topic })));
    await this.client.namesrv.deleteTopicEverywhere(topic);
    this.client.routes.remove(topic);
  }

  async createSubscriptionGroup(
    group: string,
    init: Partial<Omit<SubscriptionGroupConfig, "groupName">> = {},
    o: Pick<CreateTopicOptions, "clusterName" | "brokerNames"> = {},
  ): Promise<void> {
    const body = jsonBytes(subscriptionGroupConfig(group, init));
    const addrs = await this.masters(o);
    await Promise.all(
      addrs.map((a) => this.call(a, RequestCode.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP, null, body)),
    );
  }

  async deleteSubscriptionGroup(group: string, cleanOffset = false): Promise<void> {
    const ext = DeleteSubscriptionGroupRequestHeader.encode({ groupName: group, cleanOffset });
    const addrs = await this.masters({});
    await Promise.all(addrs.map((a) => this.call(a, RequestCode.DELETE_SUBSCRIPTIONGROUP, ext)));
  }

  async topicRoute(topic: string): Promise<TopicRouteData> {
    const route = await this.client.namesrv.topicRoute(topic);
    if (!route)
      throw new MQClientError({
        code: ResponseCode.TOPIC_NOT_EXIST,
        remark: `No topic route info for ${topic}`,
      });
    return route;
  }

  /** Min and max offset of every readable queue. */
  async topicStats(topic: string): Promise<QueueStats[]> {
    const mqs = await this.queuesOf(topic);
    return Promise.all(
      mqs.map(async (mq) => {
        const addr = await this.client.masterAddr(mq.brokerName, topic);
        const [minOffset, maxOffset] = await Promise.all([
          this.client.broker.minOffset(addr, topic, mq.queueId),
          this.client.broker.maxOffset(addr, topic, mq.queueId),
        ]);
        return { mq, minOffset, maxOffset };
      }),
    );
  }

  clusterList(): Promise<ClusterInfo> {
    return this.client.namesrv.clusterInfo();
  }

  async brokerRuntimeInfo(addr: string): Promise<Map<string, string>> {
    const r = await this.call(addr, RequestCode.GET_BROKER_RUNTIME_INFO, null);
    return decodeAnswer(addr, RequestCode.GET_BROKER_RUNTIME_INFO, () =>
      decodeKVTable(r.body ?? new TextEncoder().encode("{}")),
    );
  }

  async consumerConnections(group: string): Promise<ConsumerConnection> {
    const addrs = await this.masters({});
    let last: unknown;
    for (const addr of addrs) {
      try {
        const r = await this.call(
          addr,
          RequestCode.GET_CONSUMER_CONNECTION_LIST,
          GetConsumerConnectionListRequestHeader.encode({ consumerGroup: group }),
        );
        const body = r.body;
        if (body)
          return decodeAnswer(addr, RequestCode.GET_CONSUMER_CONNECTION_LIST, () =>
            decodeConsumerConnection(body),
          );
      } catch (err) {
        last = err;
      }
    }
    throw last ?? clientError(`no consumer connection for group ${group}`, ResponseCode.CONSUMER_NOT_ONLINE);
  }

  /**
   * Per-queue broker offset, consumer offset and lag of a group on the given topics (default: the
   * topics its online consumers subscribe to, plus its retry topic).
   */
  async consumerProgress(group: string, topics?: readonly string[]): Promise<QueueProgress[]> {
    const list = topics
      ? [...topics]
      : [...(await this.consumerConnections(group)).subscriptions.map((s) => s.topic)];
    if (!topics && !list.includes(retryTopic(group))) list.push(retryTopic(group));
    const out: QueueProgress[] = [];
    for (const topic of list) {
      const mqs = await this.queuesOf(topic).catch(() => []);
      const rows = await Promise.all(
        mqs.map(async (mq) => {
          const addr = await this.client.masterAddr(mq.brokerName, topic);
          const [brokerOffset, consumerOffset] = await Promise.all([
            this.client.broker.maxOffset(addr, topic, mq.queueId),
            this.client.broker.queryConsumerOffset(addr, group, topic, mq.queueId),
          ]);
          return {
            mq,
            brokerOffset,
            consumerOffset,
            lag: Math.max(0, brokerOffset - Math.max(consumerOffset, 0)),
          };
        }),
      );
      out.push(...rows);
    }
    return out.sort((a, b) => compareMq(a.mq, b.mq));
  }

  /**
   * Moves a group's offsets on a topic to the first message stored at or after `timestamp`.
   * Asks each broker to do it and tell the online consumers (INVOKE_BROKER_TO_RESET_OFFSET); when
   * the group is offline there (CONSUMER_NOT_ONLINE) or the broker lacks that request, the offsets
   * are written directly, as mqadmin falls back to resetOffsetByTimeOld.
   */
  async resetOffsetByTime(
    group: string,
    topic: string,
    timestamp: number,
    force = true,
  ): Promise<Map<string, number>> {
    const route = await this.topicRoute(topic);
    const result = new Map<string, number>();
    for (const addr of this.routeMasters(route)) {
      const ext = ResetOffsetRequestHeader.encode({ topic, group, timestamp, isForce: force });
      try {
        const r = await call(
          this.client.remoting,
          addr,
          RequestCode.INVOKE_BROKER_TO_RESET_OFFSET,
          ext,
          null,
          this.timeout,
        );
        const body = r.body;
        if (body) {
          const offsets = decodeAnswer(addr, RequestCode.INVOKE_BROKER_TO_RESET_OFFSET, () =>
            decodeResetOffsetBody(body),
          );
          for (const [k, v] of offsets) result.set(k, v);
        }
        continue;
      } catch (err) {
        if (!(err instanceof MQClientError) || !OFFLINE_RESET_CODES.has(err.code)) throw err;
      }
      const brokerName =
        route.brokerDatas.find((b) => b.brokerAddrs.get(MASTER_ID) === addr)?.brokerName ?? "";
      const queues = this.client.routes
        .subscribeQueues(topic, route)
        .filter((q) => q.brokerName === brokerName);
      for (const [mq, offset] of await resetOffsetsOffline(
        this.client,
        addr,
        queues,
        group,
        timestamp,
        force,
      ))
        result.set(`${brokerName}/${mq.queueId}`, offset);
    }
    return result;
  }

  /**
   * Every stored copy of the message whose UNIQ_KEY is `uniqueKey` (a retried send stores more
   * than one), from every broker of the topic.
   */
  async queryMessageByUniqueKey(topic: string, uniqueKey: string, maxNum = 32): Promise<MessageExt[]> {
    const found = await this.queryMessages(topic, uniqueKey, maxNum, 0, Date.now() + 60_000, true);
    return found.filter((m) => m.msgId === uniqueKey);
  }

  /** By UNIQ_KEY (the id producers report), else by offset id. */
  async queryMessageById(topic: string, msgId: string): Promise<MessageExt | null> {
    const [hit] = await this.queryMessageByUniqueKey(topic, msgId);
    if (hit) return hit;
    let decoded: ReturnType<typeof decodeOffsetMessageId>;
    try {
      decoded = decodeOffsetMessageId(msgId);
    } catch {
      return null;
    }
    const route = await this.topicRoute(topic);
    const broker = route.brokerDatas.find((b) => [...b.brokerAddrs.values()].includes(decoded.address));
    return this.client.broker
      .viewMessage(decoded.address, decoded.physicalOffset, broker?.brokerName ?? "")
      .catch(() => null);
  }

  /** Messages whose KEYS contain `key`, from every broker of the topic. */
  async queryMessageByKey(
    topic: string,
    key: string,
    maxNum = 32,
    begin = 0,
    end = Date.now(),
  ): Promise<MessageExt[]> {
    const all = await this.queryMessages(topic, key, maxNum, begin, end, false);
    return all.filter((m) => m.keys.includes(key)).slice(0, maxNum);
  }

  /**
   * One non-suspending pull of at most `maxMsgNums` messages at `offset`, with its own "*"
   * subscription as Java's pull consumer sends it: a broker answers SUBSCRIPTION_NOT_EXIST to a
   * group no heartbeat registered. `addr` defaults to the queue's master.
   */
  async pullFrom(
    mq: MessageQueue,
    offset: number,
    maxMsgNums: number,
    group = "TOOLS_CONSUMER",
    addr?: string,
  ): Promise<PullResult> {
    return this.client.broker.pull(
      addr ?? (await this.client.masterAddr(mq.brokerName, mq.topic)),
      {
        consumerGroup: group,
        topic: mq.topic,
        queueId: mq.queueId,
        queueOffset: offset,
        maxMsgNums,
        sysFlag: PullSysFlag.SUBSCRIPTION,
        commitOffset: 0,
        suspendTimeoutMillis: 0,
        subscription: "*",
        expressionType: "TAG",
        subVersion: 0,
      },
      this.timeout,
    );
  }

  /** The message at one queue offset, or null. */
  async queryMessageByOffset(mq: MessageQueue, offset: number): Promise<MessageExt | null> {
    const r = await this.pullFrom(mq, offset, 1);
    if (r.status !== "FOUND" || !r.body) return null;
    return decodeMessages(r.body, mq.brokerName).find((m) => m.queueOffset === offset) ?? null;
  }

  async shutdown(): Promise<void> {
    if (this.ownsClient) await this.client.shutdown();
  }

  private get timeout(): number {
    return this.client.options.mqClientApiTimeoutMs;
  }

  private async queryMessages(
    topic: string,
    key: string,
    maxNum: number,
    begin: number,
    end: number,
    unique: boolean,
  ) {
    const route = await this.topicRoute(topic);
    const lists = await Promise.all(
      route.brokerDatas.map((b) => {
        const addr = b.brokerAddrs.get(MASTER_ID);
        if (!addr) return [];
        return this.client.broker.queryMessage(addr, b.brokerName, {
          topic,
          key,
          maxNum,
          begin,
          end,
          unique,
        });
      }),
    );
    return lists.flat();
  }

  private async queuesOf(topic: string): Promise<MessageQueue[]> {
    const route = await this.topicRoute(topic);
    this.client.routes.update(topic, route);
    return this.client.routes.subscribeQueues(topic, route);
  }

  private routeMasters(route: TopicRouteData): string[] {
    return route.brokerDatas
      .map((b) => b.brokerAddrs.get(MASTER_ID))
      .filter((a): a is string => a !== undefined);
  }

  private async masters(o: Pick<CreateTopicOptions, "clusterName" | "brokerNames">): Promise<string[]> {
    const info = await this.client.namesrv.clusterInfo();
    let names = o.brokerNames ? [...o.brokerNames] : [...info.brokerAddrTable.keys()];
    if (o.clusterName) {
      const inCluster = info.clusterAddrTable.get(o.clusterName);
      if (!inCluster) throw clientError(`cluster ${o.clusterName} does not exist`, ResponseCode.SYSTEM_ERROR);
      names = names.filter((n) => inCluster.has(n));
    }
    const addrs = names
      .map((n) => info.brokerAddrTable.get(n)?.brokerAddrs.get(MASTER_ID))
      .filter((a): a is string => !!a);
    if (addrs.length === 0) throw clientError("no master broker found", ResponseCode.SYSTEM_ERROR);
    return addrs;
  }

  private call(
    addr: string,
    code: number,
    ext: Record<string, string> | null,
    body: Uint8Array | null = null,
  ) {
    return call(this.client.remoting, addr, code, ext, body, this.timeout);
  }
}

export async function createAdmin(
  options: Partial<ClientOptions> & { client?: ClientInstance },
): Promise<Admin> {
  const owns = !options.client;
  const client = options.client ?? newClient(options);
  return new Admin(client, owns);
}
