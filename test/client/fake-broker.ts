/**
 * A small, honest broker for client tests until the real one lands: an in-memory store of real
 * stored records (encodeRecord), long-polling pulls, offsets, heartbeats with
 * NOTIFY_CONSUMER_IDS_CHANGED, send-back into %RETRY% (delivered at once: no delay levels), and
 * REGISTER_BROKER to a NameServer. Faults can be injected per request code.
 */

import { parseHeartbeat } from "../../src/protocol/body/heartbeat.ts";
import {
  buildSubscription,
  matchesTagsCode,
  type SubscriptionData,
} from "../../src/protocol/body/subscription.ts";
import { PullMessageRequestHeader, PullSysFlag } from "../../src/protocol/headers/pull.ts";
import { decodeSendHeader } from "../../src/protocol/headers/send.ts";
import {
  decodeBatch,
  decodeProperties,
  decodeRecord,
  encodeOffsetMessageId,
  encodeProperties,
  encodeRecord,
  type HostAddress,
  MessageConst,
  mergeBatchProperties,
  parseHostAddress,
  tagsCodeOf,
} from "../../src/protocol/message/index.ts";
import { encodeRegisterBrokerBody, type TopicConfig, topicConfig } from "../../src/protocol/route/index.ts";
import {
  type Connection,
  type ExtFields,
  RemotingClient,
  RemotingCommand,
  RemotingServer,
  RequestCode,
  ResponseCode,
} from "../../src/remoting/index.ts";
import { silent } from "../support/silent.ts";

interface Stored {
  bytes: Uint8Array;
  tagsCode: number;
  storeTimestamp: number;
  physicalOffset: number;
  keys: string[];
  uniq: string | undefined;
  topic: string;
}

interface HeldPull {
  ctx: { reply(r: RemotingCommand): void };
  run: () => RemotingCommand;
  timer: ReturnType<typeof setTimeout>;
  offset: number;
}

export interface FakeBrokerOptions {
  namesrvAddr: string;
  brokerName?: string;
  clusterName?: string;
  /** Topics created at start, with 4 queues each unless given. */
  topics?: (string | TopicConfig)[];
  /** 4.9's "head of the queue is in memory" rule: a group without offset starts at 0 (default true). */
  headInMemory?: boolean;
}

export class FakeBroker {
  server: RemotingServer;
  readonly brokerName: string;
  readonly topics = new Map<string, TopicConfig>();
  readonly queues = new Map<string, Stored[]>();
  readonly offsets = new Map<string, number>();
  /** group → clientId → connection */
  readonly consumers = new Map<string, Map<string, Connection>>();
  readonly subscriptions = new Map<string, Map<string, SubscriptionData>>();
  /** SYSFLAG of every pull received. */
  readonly pullSysFlags: number[] = [];
  readonly producers = new Map<string, Set<string>>();
  /** Every request code received, in order (for assertions). */
  readonly received: number[] = [];
  private readonly faults = new Map<number, { code: number; times: number }>();
  private readonly held = new Map<string, Set<HeldPull>>();
  private readonly byPhysical = new Map<number, Stored>();
  private readonly nsClient = new RemotingClient({ name: "fake-broker-ns", log: silent });
  private physical = 0;
  private storeHost: HostAddress = { ip: new Uint8Array([127, 0, 0, 1]), port: 0 };

  constructor(
    private readonly o: FakeBrokerOptions,
    port = 0,
  ) {
    this.brokerName = o.brokerName ?? "broker-a";
    this.server = new RemotingServer({
      name: this.brokerName,
      listenPort: port,
      bindAddress: "127.0.0.1",
      log: silent,
    });
    // Java brokers always register system topics named after themselves and the self-test topic.
    this.topics.set(
      this.brokerName,
      topicConfig(this.brokerName, { readQueueNums: 1, writeQueueNums: 1, perm: 7 }),
    );
    this.topics.set(
      "SELF_TEST_TOPIC",
      topicConfig("SELF_TEST_TOPIC", { readQueueNums: 1, writeQueueNums: 1 }),
    );
    for (const t of o.topics ?? []) {
      const tc = typeof t === "string" ? topicConfig(t, { readQueueNums: 4, writeQueueNums: 4 }) : t;
      this.topics.set(tc.topicName, tc);
    }
    this.registerProcessors();
    this.server.endpoint.onConnectionClosed((conn) => this.dropConnection(conn));
  }

  get addr(): string {
    return `127.0.0.1:${this.server.port}`;
  }

  async start(): Promise<void> {
    await this.server.start();
    this.storeHost = { ip: new Uint8Array([127, 0, 0, 1]), port: this.server.port };
    await this.register();
  }

  /** Stops listening (every connection closes) and listens again on the same port, keeping the store. */
  async restart(): Promise<void> {
    const port = this.server.port;
    this.clearHeld();
    await this.server.stop();
    this.consumers.clear();
    this.server = new RemotingServer({
      name: this.brokerName,
      listenPort: port,
      bindAddress: "127.0.0.1",
      log: silent,
    });
    this.registerProcessors();
    this.server.endpoint.onConnectionClosed((conn) => this.dropConnection(conn));
    await this.server.start();
  }

  private clearHeld(): void {
    for (const set of this.held.values()) for (const h of set) clearTimeout(h.timer);
    this.held.clear();
  }

  async stop(): Promise<void> {
    this.clearHeld();
    await this.nsClient.shutdown();
    await this.server.stop();
  }

  /** Requests with this code are never answered (timeouts). */
  readonly hung = new Set<number>();

  /** Rewrites the body of the next pull answered with messages (a corrupt record, say). */
  mangleNextPull: ((body: Uint8Array) => Uint8Array) | undefined;

  /** The next `times` requests with this code are answered with `code`. */
  fail(requestCode: number, code: number, times = 1): void {
    this.faults.set(requestCode, { code, times });
  }

  createTopic(name: string, queues = 4): Promise<void> {
    this.topics.set(name, topicConfig(name, { readQueueNums: queues, writeQueueNums: queues }));
    return this.register();
  }

  /** Every stored record of a topic, decoded. */
  messages(topic: string) {
    const out = [];
    for (const [key, list] of this.queues) {
      if (key.startsWith(`${topic}@`)) for (const s of list) out.push(decodeRecord(s.bytes));
    }
    return out;
  }

  async register(): Promise<void> {
    const body = encodeRegisterBrokerBody({
      topicConfigSerializeWrapper: {
        topicConfigTable: new Map(this.topics),
        dataVersion: { stateVersion: 0, timestamp: Date.now(), counter: this.topics.size },
        topicQueueMappingInfoMap: new Map(),
      },
      filterServerList: [],
    });
    const req = RemotingCommand.request(
      RequestCode.REGISTER_BROKER,
      {
        brokerName: this.brokerName,
        brokerAddr: this.addr,
        clusterName: this.o.clusterName ?? "DefaultCluster",
        haServerAddr: this.addr,
        brokerId: "0",
        compressed: "false",
      },
      body,
    );
    const r = await this.nsClient.invoke(this.o.namesrvAddr, req, 3000);
    if (r.code !== 0) throw new Error(`register failed: ${r.remark}`);
  }

  /** Appends a message as the store would; returns its placement. */
  put(input: {
    topic: string;
    queueId: number;
    body: Uint8Array;
    properties: string;
    flag: number;
    sysFlag: number;
    bornTimestamp: number;
    bornHost: HostAddress;
    reconsumeTimes: number;
  }): { queueOffset: number; physicalOffset: number; msgId: string } {
    const key = `${input.topic}@${input.queueId}`;
    const list = this.queues.get(key) ?? [];
    this.queues.set(key, list);
    const props = decodeProperties(input.properties);
    props.set(MessageConst.CLUSTER, this.o.clusterName ?? "DefaultCluster");
    const storeTimestamp = Date.now();
    const at = { queueOffset: list.length, physicalOffset: this.physical, storeTimestamp };
    const bytes = encodeRecord(
      {
        ...input,
        storeHost: this.storeHost,
        preparedTransactionOffset: 0,
        properties: encodeProperties(props),
      },
      at,
    );
    const stored: Stored = {
      bytes,
      tagsCode: tagsCodeOf(props.get(MessageConst.TAGS)),
      storeTimestamp,
      physicalOffset: this.physical,
      keys: (props.get(MessageConst.KEYS) ?? "").split(" ").filter(Boolean),
      uniq: props.get(MessageConst.UNIQ_KEY),
      topic: input.topic,
    };
    list.push(stored);
    this.byPhysical.set(this.physical, stored);
    this.physical += bytes.length;
    this.wake(key);
    return { ...at, msgId: encodeOffsetMessageId(this.storeHost, at.physicalOffset) };
  }

  private ensureTopic(topic: string, queues = 4): TopicConfig {
    let tc = this.topics.get(topic);
    if (!tc) {
      tc = topicConfig(topic, { readQueueNums: queues, writeQueueNums: queues });
      this.topics.set(topic, tc);
      void this.register().catch(() => {});
    }
    return tc;
  }

  private registerProcessors(): void {
    const r = this.server.registry;
    r.setDefault((req) =>
      RemotingCommand.response(
        ResponseCode.REQUEST_CODE_NOT_SUPPORTED,
        ` request type ${req.code} not supported`,
      ),
    );
    const guard =
      (
        fn: (
          req: RemotingCommand,
          ctx: { connection: Connection; reply(r: RemotingCommand): void },
        ) => RemotingCommand | null,
      ) =>
      (req: RemotingCommand, ctx: { connection: Connection; reply(r: RemotingCommand): void }) => {
        this.received.push(req.code);
        if (this.hung.has(req.code)) return null;
        const fault = this.faults.get(req.code);
        if (fault && fault.times > 0) {
          fault.times -= 1;
          return RemotingCommand.response(fault.code, "injected fault");
        }
        return fn(req, ctx);
      };
    r.register(
      RequestCode.SEND_MESSAGE_V2,
      guard((req, ctx) => this.send(req, ctx.connection, true)),
    );
    r.register(
      RequestCode.SEND_BATCH_MESSAGE,
      guard((req, ctx) => this.send(req, ctx.connection, true)),
    );
    r.register(
      RequestCode.SEND_MESSAGE,
      guard((req, ctx) => this.send(req, ctx.connection, false)),
    );
    r.register(
      RequestCode.PULL_MESSAGE,
      guard((req, ctx) => this.pull(req, ctx)),
    );
    r.register(
      RequestCode.QUERY_CONSUMER_OFFSET,
      guard((req) => this.queryOffset(req)),
    );
    r.register(
      RequestCode.UPDATE_CONSUMER_OFFSET,
      guard((req) => {
        const e = req.extFields ?? {};
        this.offsets.set(`${e.topic}@${e.consumerGroup}@${e.queueId}`, Number(e.commitOffset));
        return RemotingCommand.response(0, null, {});
      }),
    );
    r.register(
      RequestCode.GET_MAX_OFFSET,
      guard((req) => offsetResponse(this.queue(req.extFields).length)),
    );
    r.register(
      RequestCode.GET_MIN_OFFSET,
      guard(() => offsetResponse(0)),
    );
    r.register(
      RequestCode.SEARCH_OFFSET_BY_TIMESTAMP,
      guard((req) => {
        const list = this.queue(req.extFields);
        const ts = Number(req.ext("timestamp"));
        const i = list.findIndex((s) => s.storeTimestamp >= ts);
        return offsetResponse(i < 0 ? list.length : i);
      }),
    );
    r.register(
      RequestCode.HEART_BEAT,
      guard((req, ctx) => this.heartbeat(req, ctx.connection)),
    );
    r.register(
      RequestCode.UNREGISTER_CLIENT,
      guard((req) => {
        const e = req.extFields ?? {};
        if (e.consumerGroup && this.consumers.get(e.consumerGroup)?.delete(e.clientID ?? ""))
          this.notify(e.consumerGroup);
        if (e.producerGroup) this.producers.get(e.producerGroup)?.delete(e.clientID ?? "");
        return RemotingCommand.response(0, null, {});
      }),
    );
    r.register(
      RequestCode.GET_CONSUMER_LIST_BY_GROUP,
      guard((req) => {
        const ids = [...(this.consumers.get(req.ext("consumerGroup") ?? "")?.keys() ?? [])];
        if (ids.length === 0)
          return RemotingCommand.response(ResponseCode.SYSTEM_ERROR, "no consumer for this group");
        return RemotingCommand.response(
          0,
          null,
          {},
          new TextEncoder().encode(JSON.stringify({ consumerIdList: ids })),
        );
      }),
    );
    r.register(
      RequestCode.CONSUMER_SEND_MSG_BACK,
      guard((req) => this.sendBack(req)),
    );
    r.register(
      RequestCode.VIEW_MESSAGE_BY_ID,
      guard((req) => {
        const s = this.byPhysical.get(Number(req.ext("offset")));
        if (!s)
          return RemotingCommand.response(ResponseCode.SYSTEM_ERROR, "can not find message by the offset");
        return RemotingCommand.response(0, null, {}, s.bytes);
      }),
    );
    r.register(
      RequestCode.QUERY_MESSAGE,
      guard((req) => {
        const e = req.extFields ?? {};
        const unique = e._UNIQUE_KEY_QUERY === "true";
        const hits = [...this.byPhysical.values()].filter(
          (s) => s.topic === e.topic && (unique ? s.uniq === e.key : s.keys.includes(e.key ?? "")),
        );
        if (hits.length === 0)
          return RemotingCommand.response(ResponseCode.QUERY_NOT_FOUND, "can not find message");
        return RemotingCommand.response(
          0,
          null,
          { indexLastUpdateTimestamp: "0", indexLastUpdatePhyoffset: "0" },
          Buffer.concat(hits.map((h) => h.bytes)),
        );
      }),
    );
    r.register(
      RequestCode.UPDATE_AND_CREATE_TOPIC,
      guard((req) => {
        const e = req.extFields ?? {};
        this.topics.set(
          e.topic!,
          topicConfig(e.topic!, {
            readQueueNums: Number(e.readQueueNums),
            writeQueueNums: Number(e.writeQueueNums),
            perm: Number(e.perm),
          }),
        );
        void this.register();
        return RemotingCommand.response(0, null, {});
      }),
    );
  }

  private queue(ext: ExtFields | null): Stored[] {
    return this.queues.get(`${ext?.topic}@${ext?.queueId}`) ?? [];
  }

  private send(req: RemotingCommand, conn: Connection, v2: boolean): RemotingCommand {
    const h = decodeSendHeader(req.extFields, v2);
    const tc = this.ensureTopic(h.topic, h.topic.startsWith("%RETRY%") ? 1 : h.defaultTopicQueueNums);
    const queueId = Math.max(h.queueId, 0);
    if (queueId >= tc.writeQueueNums)
      return RemotingCommand.response(ResponseCode.SYSTEM_ERROR, "queueId out of range");
    const base = {
      topic: h.topic,
      queueId,
      sysFlag: h.sysFlag,
      bornTimestamp: h.bornTimestamp,
      bornHost: parseHostAddress(conn.remoteAddress),
      reconsumeTimes: h.reconsumeTimes ?? 0,
    };
    const ext: ExtFields = { MSG_REGION: "DefaultRegion", TRACE_ON: "true", queueId: String(queueId) };
    if (h.batch) {
      const placed = decodeBatch(req.body ?? new Uint8Array()).map((item) =>
        this.put({
          ...base,
          body: item.body,
          flag: item.flag,
          properties: mergeBatchProperties(item.properties, h.properties ?? ""),
        }),
      );
      ext.msgId = placed.map((p) => p.msgId).join(",");
      ext.queueOffset = String(placed[0]?.queueOffset ?? 0);
    } else {
      const p = this.put({
        ...base,
        body: req.body ?? new Uint8Array(),
        flag: h.flag,
        properties: h.properties ?? "",
      });
      ext.msgId = p.msgId;
      ext.queueOffset = String(p.queueOffset);
      const uniq = decodeProperties(h.properties ?? "").get(MessageConst.UNIQ_KEY);
      if (uniq) ext.transactionId = uniq;
    }
    return RemotingCommand.response(0, null, ext);
  }

  private pull(req: RemotingCommand, ctx: { reply(r: RemotingCommand): void }): RemotingCommand | null {
    const h = PullMessageRequestHeader.decode(req.extFields);
    this.pullSysFlags.push(h.sysFlag);
    const key = `${h.topic}@${h.queueId}`;
    if (!this.topics.has(h.topic))
      return RemotingCommand.response(ResponseCode.TOPIC_NOT_EXIST, "topic not exist");
    const sub =
      (h.sysFlag & PullSysFlag.SUBSCRIPTION) !== 0
        ? buildSubscription(h.topic, h.subscription)
        : this.subscriptions.get(h.consumerGroup)?.get(h.topic);
    // A real broker answers so when no heartbeat brought the group's subscription.
    if (!sub) return RemotingCommand.response(ResponseCode.SUBSCRIPTION_NOT_EXIST, "subscription not exist");
    if ((h.sysFlag & PullSysFlag.COMMIT_OFFSET) !== 0) {
      this.offsets.set(`${h.topic}@${h.consumerGroup}@${h.queueId}`, h.commitOffset);
    }
    const run = () => this.readQueue(key, h.queueOffset, h.maxMsgNums, sub);
    const first = run();
    if (first.code === ResponseCode.SUCCESS && first.body && this.mangleNextPull) {
      first.body = this.mangleNextPull(first.body);
      this.mangleNextPull = undefined;
    }
    if (first.code !== ResponseCode.PULL_NOT_FOUND || (h.sysFlag & PullSysFlag.SUSPEND) === 0) return first;
    const held: HeldPull = {
      ctx,
      run,
      offset: h.queueOffset,
      timer: setTimeout(() => {
        this.held.get(key)?.delete(held);
        ctx.reply(run());
      }, h.suspendTimeoutMillis),
    };
    const set = this.held.get(key) ?? new Set();
    set.add(held);
    this.held.set(key, set);
    return null;
  }

  private wake(key: string): void {
    const set = this.held.get(key);
    if (!set) return;
    for (const h of [...set]) {
      const r = h.run();
      if (r.code === ResponseCode.PULL_NOT_FOUND) continue;
      set.delete(h);
      clearTimeout(h.timer);
      h.ctx.reply(r);
    }
  }

  private readQueue(
    key: string,
    offset: number,
    max: number,
    sub: SubscriptionData | undefined,
  ): RemotingCommand {
    const list = this.queues.get(key) ?? [];
    const maxOffset = list.length;
    const hdr = (next: number): ExtFields => ({
      suggestWhichBrokerId: "0",
      nextBeginOffset: String(next),
      minOffset: "0",
      maxOffset: String(maxOffset),
    });
    if (offset === maxOffset)
      return RemotingCommand.response(ResponseCode.PULL_NOT_FOUND, "OFFSET_OVERFLOW_ONE", hdr(offset));
    if (offset > maxOffset || offset < 0)
      return RemotingCommand.response(
        ResponseCode.PULL_OFFSET_MOVED,
        "OFFSET_OVERFLOW_BADLY",
        hdr(offset < 0 ? 0 : maxOffset),
      );
    const found: Uint8Array[] = [];
    let i = offset;
    for (; i < maxOffset && found.length < max && i < offset + 800; i++) {
      const s = list[i]!;
      if (matchesTagsCode(sub, s.tagsCode)) found.push(s.bytes);
    }
    if (found.length === 0)
      return RemotingCommand.response(ResponseCode.PULL_RETRY_IMMEDIATELY, "NO_MATCHED_MESSAGE", hdr(i));
    return RemotingCommand.response(0, "FOUND", hdr(i), Buffer.concat(found));
  }

  private queryOffset(req: RemotingCommand): RemotingCommand {
    const e = req.extFields ?? {};
    const stored = this.offsets.get(`${e.topic}@${e.consumerGroup}@${e.queueId}`);
    if (stored !== undefined) return offsetResponse(stored);
    if (this.o.headInMemory === false)
      return RemotingCommand.response(ResponseCode.QUERY_NOT_FOUND, "Not found");
    return offsetResponse(0);
  }

  private heartbeat(req: RemotingCommand, conn: Connection): RemotingCommand {
    const hb = parseHeartbeat(req.body);
    for (const c of hb.consumerDataSet) {
      const members = this.consumers.get(c.groupName) ?? new Map<string, Connection>();
      this.consumers.set(c.groupName, members);
      const changed = members.get(hb.clientID) !== conn;
      members.set(hb.clientID, conn);
      conn.attributes.set(`consumer:${c.groupName}`, hb.clientID);
      this.subscriptions.set(c.groupName, new Map(c.subscriptionDataSet.map((s) => [s.topic, s])));
      this.ensureTopic(`%RETRY%${c.groupName}`, 1);
      if (changed && c.messageModel !== "BROADCASTING") this.notify(c.groupName);
    }
    for (const p of hb.producerDataSet) {
      const set = this.producers.get(p.groupName) ?? new Set<string>();
      set.add(hb.clientID);
      this.producers.set(p.groupName, set);
    }
    return RemotingCommand.response(0, null, {});
  }

  private notify(group: string): void {
    for (const conn of this.consumers.get(group)?.values() ?? []) {
      const req = RemotingCommand.request(RequestCode.NOTIFY_CONSUMER_IDS_CHANGED, { consumerGroup: group });
      void this.server.endpoint.invokeOneway(conn, req, 10).catch(() => {});
    }
  }

  private dropConnection(conn: Connection): void {
    for (const [group, members] of this.consumers) {
      for (const [id, c] of members) {
        if (c === conn) {
          members.delete(id);
          this.notify(group);
        }
      }
    }
  }

  private sendBack(req: RemotingCommand): RemotingCommand {
    const e = req.extFields ?? {};
    const s = this.byPhysical.get(Number(e.offset));
    if (!s) return RemotingCommand.response(ResponseCode.SYSTEM_ERROR, "look message by offset failed");
    const m = decodeRecord(s.bytes);
    const props = new Map(m.properties);
    if (!props.has(MessageConst.RETRY_TOPIC)) props.set(MessageConst.RETRY_TOPIC, m.topic);
    if (!props.has(MessageConst.ORIGIN_MESSAGE_ID)) props.set(MessageConst.ORIGIN_MESSAGE_ID, m.msgId);
    const target =
      m.reconsumeTimes >= Number(e.maxReconsumeTimes ?? 16) ? `%DLQ%${e.group}` : `%RETRY%${e.group}`;
    this.ensureTopic(target, 1);
    this.put({
      topic: target,
      queueId: 0,
      body: m.body,
      properties: encodeProperties(props),
      flag: m.flag,
      sysFlag: m.sysFlag,
      bornTimestamp: m.bornTimestamp,
      bornHost: m.bornHost,
      reconsumeTimes: m.reconsumeTimes + 1,
    });
    return RemotingCommand.response(0, null, {});
  }
}

function offsetResponse(offset: number): RemotingCommand {
  return RemotingCommand.response(0, null, { offset: String(offset) });
}
