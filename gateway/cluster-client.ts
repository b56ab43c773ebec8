/**
 * The Cluster interface over the native client: one ClientInstance shared by a producer and an
 * admin, reaching NameServer and brokers through whatever connector it was given (in process under
 * `start`, TCP for `rocketbun gateway`), signing requests when the gateway has ACL keys.
 */
import type { Logger } from "pino";
import { groupLag, subscriptionGroupNames } from "../src/client/admin-reads.ts";
import {
  type Admin,
  ClientInstance,
  createAdmin,
  createProducer,
  type Message,
  MQClientError,
  type Producer,
  type SendOptions,
  type SendResult,
} from "../src/client/index.ts";
import type { MessageQueue } from "../src/client/message-queue.ts";
import { offsetAtTime, readAtOffset } from "../src/client/offset-reader.ts";
import { PopApi } from "../src/client/pop-api.ts";
import { PopBrokers } from "../src/client/pop-brokers.ts";
import { ExpressionType } from "../src/protocol/body/subscription.ts";
import { MASTER_ID } from "../src/protocol/route/index.ts";
import type { Connector } from "../src/remoting/index.ts";
import { ResponseCode } from "../src/remoting/index.ts";
import type {
  Cluster,
  LeaseRequest,
  OutgoingMessage,
  QueueRef,
  ReadRequest,
  SendOutcome,
  SendTarget,
} from "./cluster.ts";
import { problems } from "./errors.ts";

/** MQVersion V5_0_0: the first broker version with timer messages. */
const TIMER_MIN_BROKER_VERSION = 413;

/** The options of an ordinary send (shared: never changed). */
const NO_OPTIONS: SendOptions = Object.freeze({});

function outcomeOf(r: SendResult): SendOutcome {
  return {
    msgId: r.msgId,
    brokerName: r.messageQueue.brokerName,
    queueId: r.messageQueue.queueId,
    queueOffset: r.queueOffset,
    status: r.sendStatus,
  };
}

export interface ClientClusterOptions {
  namesrvAddr: string;
  connector?: Connector;
  accessKey?: string;
  secretKey?: string;
  producerGroup: string;
  replayGroup: string;
  sendTimeoutMs: number;
  messageBytesMax: number;
  log: Logger;
}

export async function createClientCluster(o: ClientClusterOptions): Promise<Cluster> {
  const client = new ClientInstance({
    namesrvAddr: o.namesrvAddr,
    instanceName: `gateway-${process.pid}-${crypto.randomUUID().slice(0, 8)}`,
    log: o.log,
    ...(o.connector ? { connector: o.connector } : {}),
    ...(o.accessKey && o.secretKey ? { accessKey: o.accessKey, secretKey: o.secretKey } : {}),
  });
  const producer = await createProducer({
    client,
    group: o.producerGroup,
    sendMsgTimeoutMs: o.sendTimeoutMs,
    maxMessageBytes: o.messageBytesMax,
  });
  const admin = await createAdmin({ client });
  return new ClientCluster(client, producer, admin, o);
}

class ClientCluster implements Cluster {
  private readonly pop: PopApi;
  private readonly popBrokers: PopBrokers;

  constructor(
    private readonly client: ClientInstance,
    private readonly producer: Producer,
    private readonly admin: Admin,
    private readonly o: ClientClusterOptions,
  ) {
    this.pop = new PopApi(client);
    this.popBrokers = new PopBrokers(client);
  }

  async receive(r: LeaseRequest) {
    const result = await this.pop.pop({
      group: r.group,
      topic: r.topic,
      brokerName: await this.popBrokers.next(r.topic),
      maxMessages: r.maxMessages,
      invisibleMs: r.invisibleMs,
      awaitMs: r.waitMs,
      ...(r.sql !== undefined
        ? { expression: r.sql, expressionType: ExpressionType.SQL92 }
        : { expression: r.tags === undefined || r.tags.trim() === "" ? "*" : r.tags }),
      ...(r.ordered ? { order: true } : {}),
    });
    return result.messages.map((message) => ({ message, brokerHandle: message.receiptHandle }));
  }

  ack(group: string, topic: string, brokerHandles: readonly string[]) {
    return this.pop.ackMany(group, topic, brokerHandles);
  }

  changeInvisible(group: string, topic: string, brokerHandle: string, invisibleMs: number) {
    return this.pop.changeInvisible(group, topic, brokerHandle, invisibleMs);
  }

  send(topic: string, msg: OutgoingMessage, target: SendTarget): Promise<SendOutcome> {
    if (msg.delayMs !== undefined || msg.deliverAtMs !== undefined)
      return this.checkTimers(topic).then(() => this.sendNow(topic, msg, target));
    return this.sendNow(topic, msg, target);
  }

  /**
   * Refuses a delayed send when a broker of the topic is older than RocketMQ 5.0, which has no
   * timer messages: it would ignore TIMER_DELAY_MS / TIMER_DELIVER_MS and deliver at once, which
   * is not what the caller asked for. Versions come from the brokers' heartbeat answers.
   */
  private async checkTimers(topic: string): Promise<void> {
    // No route: nothing to check here; the send itself then fails and answers why.
    const route = await this.client.route(topic).catch(() => null);
    for (const broker of route?.brokerDatas ?? []) {
      const addr = broker.brokerAddrs.get(MASTER_ID);
      if (addr === undefined) continue;
      const version = await this.client.brokerVersion(addr);
      if (version !== undefined && version < TIMER_MIN_BROKER_VERSION)
        throw problems.unsupportedByBroker(
          "timer-unsupported",
          "Timer messages are not supported by the broker",
          `broker ${broker.brokerName} (MQVersion ${version}) is older than RocketMQ 5.0 and has no timer messages: it would deliver a message with delayMs or deliverAt at once`,
          "timer messages (TIMER_DELAY_MS / TIMER_DELIVER_MS, RocketMQ 5.0)",
        );
    }
  }

  private sendNow(topic: string, msg: OutgoingMessage, target: SendTarget): Promise<SendOutcome> {
    // Field by field, not spreads of conditional objects, and no async layer: this runs for every
    // HTTP produce. producer.send never throws (a bad message is a rejection).
    const m: Message = { topic, body: msg.body };
    if (msg.tags !== undefined) m.tags = msg.tags;
    if (msg.keys !== undefined) m.keys = msg.keys;
    if (msg.properties !== undefined) m.properties = msg.properties;
    if (msg.delayMs !== undefined) m.timerDelayMs = msg.delayMs;
    if (msg.deliverAtMs !== undefined) m.timerDeliverMs = msg.deliverAtMs;
    return this.producer
      .send(m, target.shardingKey !== undefined ? { shardingKey: target.shardingKey } : NO_OPTIONS)
      .then(outcomeOf);
  }

  async read(r: ReadRequest) {
    const mq = await this.queue(r);
    const page = await readAtOffset(this.client, mq, {
      offset: r.offset,
      maxMessages: r.maxMessages,
      waitMs: r.waitMs,
      group: this.o.replayGroup,
      ...(r.tags !== undefined ? { tags: r.tags } : {}),
    });
    return { brokerName: mq.brokerName, ...page };
  }

  async offsetsAtTime(topic: string, timestamp: number, queue?: QueueRef) {
    const mqs = queue ? [await this.queue(queue)] : await this.queues(topic);
    return Promise.all(
      mqs.map(async (mq) => ({
        brokerName: mq.brokerName,
        queueId: mq.queueId,
        offset: await offsetAtTime(this.client, mq, timestamp),
      })),
    );
  }

  topics() {
    return this.client.namesrv.allTopics().then((t) => [...t].sort());
  }

  createTopic(r: { topic: string; queues: number; order: boolean }) {
    return this.admin.createTopic(r.topic, {
      readQueueNums: r.queues,
      writeQueueNums: r.queues,
      order: r.order,
    });
  }

  route(topic: string) {
    return this.admin.topicRoute(topic);
  }

  async topicStats(topic: string) {
    const stats = await this.admin.topicStats(topic);
    return stats.map((s) => ({
      brokerName: s.mq.brokerName,
      queueId: s.mq.queueId,
      minOffset: s.minOffset,
      maxOffset: s.maxOffset,
    }));
  }

  groups() {
    return subscriptionGroupNames(this.client);
  }

  groupLag(group: string, topic?: string) {
    return groupLag(this.client, group, topic);
  }

  clusterInfo() {
    return this.admin.clusterList();
  }

  messageById(topic: string, msgId: string) {
    return this.admin.queryMessageById(topic, msgId);
  }

  messagesByKey(topic: string, key: string, max: number) {
    return this.admin.queryMessageByKey(topic, key, max);
  }

  async ready() {
    try {
      const info = await this.client.namesrv.clusterInfo();
      const brokers = info.brokerAddrTable.size;
      return brokers > 0
        ? { ok: true, detail: `${brokers} broker(s) registered` }
        : { ok: false, detail: "the NameServer knows no broker yet" };
    } catch (err) {
      return { ok: false, detail: `NameServer unreachable: ${(err as Error).message}` };
    }
  }

  async close() {
    await this.producer.shutdown();
    await this.client.shutdown();
  }

  /** The readable queues of a topic; TOPIC_NOT_EXIST when the NameServer has no route. */
  private async queues(topic: string, fresh = false): Promise<MessageQueue[]> {
    const route = fresh ? await this.client.refreshRoute(topic) : await this.client.route(topic);
    if (!route)
      throw new MQClientError({
        code: ResponseCode.TOPIC_NOT_EXIST,
        remark: `No route info of this topic: ${topic}`,
      });
    return this.client.routes.subscribeQueues(topic, route);
  }

  /** One queue of a topic; a cached route that lacks it is refreshed once (queues may have been added). */
  private async queue(ref: QueueRef): Promise<MessageQueue> {
    const pick = (qs: MessageQueue[]) =>
      qs.filter(
        (q) => q.queueId === ref.queueId && (ref.brokerName === undefined || q.brokerName === ref.brokerName),
      );
    let found = pick(await this.queues(ref.topic));
    if (found.length === 0) found = pick(await this.queues(ref.topic, true));
    if (found.length === 0)
      throw problems.notFound(
        `topic ${ref.topic} has no readable queue ${ref.queueId}${ref.brokerName ? ` on broker ${ref.brokerName}` : ""}`,
      );
    if (found.length > 1)
      throw problems.badRequest(
        `queue ${ref.queueId} of ${ref.topic} exists on several brokers (${found.map((q) => q.brokerName).join(", ")}): name one with ?broker=`,
      );
    return found[0]!;
  }
}
