/**
 * Gateway test support: a scriptable Cluster (records what routes asked, answers what the test set,
 * throws what it is told) and the app built around it with test-sized limits.
 */

import { createGateway } from "../../gateway/app.ts";
import { ApiKeys } from "../../gateway/auth.ts";
import type {
  Cluster,
  LeasedMessage,
  LeaseRequest,
  OutgoingMessage,
  QueueRef,
  ReadPage,
  ReadRequest,
  SendOutcome,
  SendTarget,
} from "../../gateway/cluster.ts";
import type { GatewayDeps, GatewayOptions } from "../../gateway/context.ts";
import { GatewayMetrics } from "../../gateway/metrics.ts";
import { HandleSigner } from "../../gateway/receipt-handle.ts";
import type { QueueLag } from "../../src/client/admin-reads.ts";
import { MQClientError } from "../../src/client/errors.ts";
import type { MessageExt } from "../../src/client/message.ts";
import type { ClusterInfo, TopicRouteData } from "../../src/protocol/route/index.ts";
import { silent } from "../support/silent.ts";

export const TEST_OPTIONS: GatewayOptions = {
  requestBytesMax: 64 * 1024,
  messageBytesMax: 16 * 1024,
  batchItemsMax: 8,
  pullWaitMsMax: 30_000,
  pullMessagesMax: 64,
  retryAfterSeconds: 3,
  corsOrigins: null,
  wsInflightMax: 2,
  wsBufferedBytesMax: 64 * 1024,
  wsSubscriptionsMax: 4,
  wsCreditMax: 64,
};

export const TEST_HANDLE_SECRET = "test-handle-secret";

export function brokerError(code: number, remark = "refused"): MQClientError {
  return new MQClientError({ code, remark });
}

export function message(over: Partial<MessageExt> = {}): MessageExt {
  return {
    topic: "orders",
    body: new TextEncoder().encode("hello"),
    tags: "created",
    keys: ["k1"],
    msgId: "0A0B0C0D0E0F00000000000000000001",
    offsetMsgId: "7F00000100002A9F0000000000000000",
    properties: { region: "eu", TAGS: "created", KEYS: "k1", UNIQ_KEY: "0A0B0C0D0E0F00000000000000000001" },
    queueId: 1,
    queueOffset: 5,
    commitLogOffset: 0,
    brokerName: "b1",
    bornTimestamp: 1000,
    bornHost: "127.0.0.1:1",
    storeTimestamp: 1001,
    storeHost: "127.0.0.1:10911",
    reconsumeTimes: 0,
    flag: 0,
    sysFlag: 0,
    bodyCrc: 0,
    storeSize: 0,
    ...over,
  };
}

/** A broker receipt handle (spec pop §A.6) whose lease runs `invisibleMs` from `popTime`. */
export function brokerHandle(offset: number, popTime = Date.now(), invisibleMs = 60_000): string {
  return `${offset} ${popTime} ${invisibleMs} 0 0 b1 1 ${offset} ${1000 + offset}`;
}

/** A Cluster whose answers a test sets; every call is recorded in `calls`. */
export class FakeCluster implements Cluster {
  readonly calls: { method: string; args: unknown[] }[] = [];
  sent: { topic: string; msg: OutgoingMessage; target: SendTarget }[] = [];
  /** Throw this from every call, when set. */
  failWith: unknown = null;
  /** send() waits on this when set (in-flight tests). */
  sendGate: Promise<void> | null = null;
  page: ReadPage = {
    brokerName: "b1",
    status: "FOUND",
    messages: [message()],
    nextOffset: 6,
    minOffset: 0,
    maxOffset: 6,
  };
  found: MessageExt | null = message();
  readyAnswer = { ok: true, detail: "1 broker(s) registered" };
  /** What receive answers (then empties). */
  leased: LeasedMessage[] = [{ message: message(), brokerHandle: brokerHandle(5) }];
  /** Broker handles acked, and changed with their new invisible time. */
  acked: string[] = [];
  changed: { brokerHandle: string; invisibleMs: number }[] = [];

  private record(method: string, args: unknown[]) {
    this.calls.push({ method, args });
    if (this.failWith !== null) throw this.failWith;
  }

  async send(topic: string, msg: OutgoingMessage, target: SendTarget): Promise<SendOutcome> {
    this.record("send", [topic, msg, target]);
    if (this.sendGate) await this.sendGate;
    this.sent.push({ topic, msg, target });
    return {
      msgId: `ID${this.sent.length}`,
      brokerName: "b1",
      queueId: 0,
      queueOffset: this.sent.length - 1,
      status: "SEND_OK",
    };
  }
  private offered: (() => void)[] = [];
  /** Hands messages to the next receive, waking one that long-polls. */
  offer(msgs: LeasedMessage[]): void {
    this.leased.push(...msgs);
    for (const wake of this.offered.splice(0)) wake();
  }
  /** When set, every receive answers what this makes (an endless backlog). */
  source: ((max: number) => LeasedMessage[]) | null = null;
  /** Answers `leased` (at most maxMessages, the rest stays), else long-polls like the broker. */
  async receive(r: LeaseRequest): Promise<LeasedMessage[]> {
    this.record("receive", [r]);
    if (this.source) return this.source(r.maxMessages);
    if (this.leased.length === 0 && r.waitMs > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, r.waitMs);
        this.offered.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return this.leased.splice(0, r.maxMessages);
  }
  async ack(group: string, topic: string, handles: readonly string[]) {
    this.record("ack", [group, topic, handles]);
    this.acked.push(...handles);
  }
  async changeInvisible(group: string, topic: string, handle: string, invisibleMs: number) {
    this.record("changeInvisible", [group, topic, handle, invisibleMs]);
    this.changed.push({ brokerHandle: handle, invisibleMs });
    const offset = Number(handle.split(" ")[7]);
    return brokerHandle(offset, Date.now(), invisibleMs);
  }
  async read(r: ReadRequest) {
    this.record("read", [r]);
    return this.page;
  }
  async offsetsAtTime(topic: string, timestamp: number, queue?: QueueRef) {
    this.record("offsetsAtTime", [topic, timestamp, queue]);
    return [{ brokerName: "b1", queueId: queue?.queueId ?? 0, offset: 42 }];
  }
  async topics() {
    this.record("topics", []);
    return ["audit", "orders", "orders-eu"];
  }
  async createTopic(r: { topic: string; queues: number; order: boolean }) {
    this.record("createTopic", [r]);
    return ["127.0.0.1:10911"];
  }
  async route(topic: string): Promise<TopicRouteData> {
    this.record("route", [topic]);
    return {
      queueDatas: [{ brokerName: "b1", readQueueNums: 4, writeQueueNums: 4, perm: 6, topicSysFlag: 0 }],
      brokerDatas: [
        {
          cluster: "c1",
          brokerName: "b1",
          brokerAddrs: new Map([[0, "127.0.0.1:10911"]]),
          enableActingMaster: false,
        },
      ],
      filterServerTable: new Map(),
    };
  }
  async topicStats(topic: string) {
    this.record("topicStats", [topic]);
    return [
      { brokerName: "b1", queueId: 0, minOffset: 0, maxOffset: 3 },
      { brokerName: "b1", queueId: 1, minOffset: 1, maxOffset: 2 },
    ];
  }
  async groups() {
    this.record("groups", []);
    return ["billing"];
  }
  async groupLag(group: string, topic?: string): Promise<QueueLag[]> {
    this.record("groupLag", [group, topic]);
    return [
      {
        mq: { topic: "orders", brokerName: "b1", queueId: 0 },
        brokerOffset: 10,
        consumerOffset: 4,
        lag: 6,
        lastTimestamp: 5,
      },
    ];
  }
  async clusterInfo(): Promise<ClusterInfo> {
    this.record("clusterInfo", []);
    return {
      brokerAddrTable: new Map([
        [
          "b1",
          {
            cluster: "c1",
            brokerName: "b1",
            brokerAddrs: new Map([[0, "127.0.0.1:10911"]]),
            enableActingMaster: false,
          },
        ],
      ]),
      clusterAddrTable: new Map([["c1", new Set(["b1"])]]),
    };
  }
  async messageById(topic: string, msgId: string) {
    this.record("messageById", [topic, msgId]);
    return this.found;
  }
  async messagesByKey(topic: string, key: string, max: number) {
    this.record("messagesByKey", [topic, key, max]);
    return this.found ? [this.found] : [];
  }
  async ready() {
    return this.readyAnswer;
  }
  async close() {}
}

export const KEYS = {
  producer: "producer-key-0123456789",
  reader: "reader-key-0123456789",
  admin: "admin-key-0123456789",
  ordersAdmin: "orders-admin-0123456789",
};

export const TEST_API_KEYS = () =>
  new ApiKeys([
    { name: "producer", key: KEYS.producer, scopes: ["produce:orders*"] },
    { name: "reader", key: KEYS.reader, scopes: ["consume:orders"] },
    { name: "admin", key: KEYS.admin, scopes: ["admin"] },
    { name: "orders-admin", key: KEYS.ordersAdmin, scopes: ["admin:orders*"] },
  ]);

export function testDeps(
  over: Partial<Omit<GatewayDeps, "options">> & { options?: Partial<GatewayOptions> } = {},
): GatewayDeps {
  return {
    cluster: over.cluster ?? new FakeCluster(),
    options: { ...TEST_OPTIONS, ...over.options },
    apiKeys: over.apiKeys ?? null,
    metrics: over.metrics ?? new GatewayMetrics(),
    log: over.log ?? silent,
    handles: over.handles ?? new HandleSigner(TEST_HANDLE_SECRET),
  };
}

export function testApp(over: Parameters<typeof testDeps>[0] = {}) {
  const deps = testDeps(over);
  return { app: createGateway(deps), deps, cluster: deps.cluster as FakeCluster };
}

export const json = (body: unknown, headers: Record<string, string> = {}): RequestInit => ({
  method: "POST",
  headers: { "content-type": "application/json", ...headers },
  body: JSON.stringify(body),
});

export const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
