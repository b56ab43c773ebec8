/**
 * Integration harness: a real broker on 127.0.0.1 port 0 with its store in a temp dir (in-process),
 * `rocketbun start` in a child process on free ports, and raw-frame helpers for both serializations.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { request, SERIALIZE_TYPES } from "../support/frames.ts";

export { request, SERIALIZE_TYPES };

import {
  freePort,
  type StartedRocketbun,
  startRocketbun,
  waitFor,
  waitForLine,
} from "../support/rocketbun-child.ts";

export { freePort, startRocketbun, waitFor, waitForLine };

import { type Broker, createBroker } from "../../broker/index.ts";
import { loadRoleConfig } from "../../src/config/load.ts";
import { decodeQueueKeyedBody } from "../../src/protocol/body/queue-keyed.ts";
import { PullSysFlag } from "../../src/protocol/headers/pull.ts";
import { SendMessageRequestHeader, SendMessageRequestHeaderV2 } from "../../src/protocol/headers/send.ts";
import {
  type DecodedRecord,
  decodeRecord,
  encodeProperties,
  MessageConst,
} from "../../src/protocol/message/index.ts";
import {
  RemotingClient,
  type RemotingCommand,
  RequestCode,
  SerializeType,
} from "../../src/remoting/index.ts";

import { silent } from "../support/silent.ts";

export { silent };

export interface BrokerHarness extends AsyncDisposable {
  broker: Broker;
  /** `127.0.0.1:<main port>` */
  addr: string;
  vipAddr: string;
  dir: string;
  /** A client with its own TCP connection; shut down with the harness. */
  client(): RemotingClient;
  /** Stops the broker and starts a new one on the same store and port. */
  restart(): Promise<void>;
}

/** Property overrides every test broker gets: loopback only, no NameServer, a temp store. */
function baseOverrides(dir: string, port: number): Record<string, string> {
  return {
    listenPort: String(port),
    bindAddress: "127.0.0.1",
    brokerIP1: "127.0.0.1",
    brokerIP2: "127.0.0.1",
    brokerName: "broker-it",
    namesrvAddr: "",
    storePathRootDir: join(dir, "store"),
    rocketbunHome: dir,
  };
}

export async function brokerConfig(dir: string, port: number, overrides: Record<string, string> = {}) {
  const loaded = await loadRoleConfig("broker", {
    env: {},
    overrides: { ...baseOverrides(dir, port), ...overrides },
  });
  return loaded.config;
}

export async function startBroker(overrides: Record<string, string> = {}): Promise<BrokerHarness> {
  const dir = await mkdtemp(join(tmpdir(), "rocketbun-broker-it-"));
  const port = freePort();
  let broker = createBroker(await brokerConfig(dir, port, overrides), { log: silent });
  await broker.start();
  const clients: RemotingClient[] = [];
  const h: BrokerHarness = {
    get broker() {
      return broker;
    },
    addr: `127.0.0.1:${port}`,
    get vipAddr() {
      return `127.0.0.1:${broker.vipServer.port}`;
    },
    dir,
    client() {
      const c = new RemotingClient({ name: "it-client", log: silent });
      clients.push(c);
      return c;
    },
    async restart() {
      await broker.stop();
      broker = createBroker(await brokerConfig(dir, port, overrides), { log: silent });
      await broker.start();
    },
    async [Symbol.asyncDispose]() {
      for (const c of clients) await c.shutdown();
      await broker.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
  return h;
}

export interface SendSpec {
  topic: string;
  body: string | Uint8Array;
  tags?: string;
  keys?: string;
  queueId?: number;
  properties?: Record<string, string>;
  producerGroup?: string;
  /** `10` (long names) or `310` (V2 one-letter names). */
  code?: number;
  bornTimestamp?: number;
  /** The `m`/`batch` header flag: the body is an encodeBatch body. */
  batch?: boolean;
  /** Header sysFlag (default 0); 4 marks a transaction's half (PREPARED). */
  sysFlag?: number;
}

export function messageProperties(s: Pick<SendSpec, "tags" | "keys" | "properties">): string {
  const props = new Map<string, string>();
  if (s.tags) props.set(MessageConst.TAGS, s.tags);
  if (s.keys) props.set(MessageConst.KEYS, s.keys);
  for (const [k, v] of Object.entries(s.properties ?? {})) props.set(k, v);
  return encodeProperties(props);
}

/** SEND_MESSAGE (10) or SEND_MESSAGE_V2 (310) as a Java producer builds it. */
export function sendRequest(s: SendSpec, serializeType: SerializeType = SerializeType.JSON): RemotingCommand {
  const header = {
    producerGroup: s.producerGroup ?? "IT_PG",
    topic: s.topic,
    defaultTopic: "TBW102",
    defaultTopicQueueNums: 4,
    queueId: s.queueId ?? 0,
    sysFlag: s.sysFlag ?? 0,
    bornTimestamp: s.bornTimestamp ?? Date.now(),
    flag: 0,
    properties: messageProperties(s),
    reconsumeTimes: 0,
    unitMode: false,
    ...(s.batch ? { batch: true } : {}),
  };
  const code = s.code ?? RequestCode.SEND_MESSAGE_V2;
  const ext =
    code === RequestCode.SEND_MESSAGE
      ? SendMessageRequestHeader.encode(header)
      : SendMessageRequestHeaderV2.encode(header);
  const body = typeof s.body === "string" ? new TextEncoder().encode(s.body) : s.body;
  return request(code, ext, body, serializeType);
}

export interface PullSpec {
  group: string;
  topic: string;
  queueId: number;
  offset: number;
  subscription?: string;
  maxMsgNums?: number;
  suspendMs?: number;
  commitOffset?: number;
}

/** PULL_MESSAGE carrying its own subscription (sysFlag SUBSCRIPTION, SUSPEND when suspendMs > 0). */
export function pullRequest(p: PullSpec, serializeType: SerializeType = SerializeType.JSON): RemotingCommand {
  let sysFlag = PullSysFlag.SUBSCRIPTION;
  if ((p.suspendMs ?? 0) > 0) sysFlag |= PullSysFlag.SUSPEND;
  if (p.commitOffset !== undefined) sysFlag |= PullSysFlag.COMMIT_OFFSET;
  return request(
    RequestCode.PULL_MESSAGE,
    {
      consumerGroup: p.group,
      topic: p.topic,
      queueId: String(p.queueId),
      queueOffset: String(p.offset),
      maxMsgNums: String(p.maxMsgNums ?? 32),
      sysFlag: String(sysFlag),
      commitOffset: String(p.commitOffset ?? 0),
      suspendTimeoutMillis: String(p.suspendMs ?? 0),
      subscription: p.subscription ?? "*",
      subVersion: "0",
      expressionType: "TAG",
    },
    null,
    serializeType,
  );
}

/** Every record of a pull/query body. */
export function decodeRecords(body: Uint8Array | null): DecodedRecord[] {
  const out: DecodedRecord[] = [];
  if (!body) return out;
  for (let pos = 0; pos < body.length; ) {
    const r = decodeRecord(body, pos);
    out.push(r);
    pos += r.storeSize;
  }
  return out;
}

/** The parts of a stored record a test compares. */
export function summary(r: DecodedRecord) {
  return {
    topic: r.topic,
    queueId: r.queueId,
    queueOffset: r.queueOffset,
    body: new TextDecoder().decode(r.body),
    tags: r.properties.get(MessageConst.TAGS),
    keys: r.properties.get(MessageConst.KEYS),
    msgId: r.msgId,
  };
}

/** A topic created through UPDATE_AND_CREATE_TOPIC (17). */
export async function createTopic(c: RemotingClient, addr: string, topic: string, queues = 4): Promise<void> {
  const reply = await c.invoke(
    addr,
    request(RequestCode.UPDATE_AND_CREATE_TOPIC, {
      topic,
      defaultTopic: "TBW102",
      readQueueNums: String(queues),
      writeQueueNums: String(queues),
      perm: "6",
      topicFilterType: "SINGLE_TAG",
      topicSysFlag: "0",
      order: "false",
    }),
  );
  if (reply.code !== 0) throw new Error(`create topic ${topic}: ${reply.code} ${reply.remark}`);
}

export function json(body: Uint8Array | null): unknown {
  return JSON.parse(new TextDecoder().decode(body ?? new Uint8Array()));
}

/** A HEART_BEAT body for one consumer group (and optionally one producer group). */
export function heartbeatBody(
  clientID: string,
  consumer?: { group: string; topic: string; subString?: string; messageModel?: string },
  producerGroup?: string,
): Uint8Array {
  const consumerDataSet = consumer
    ? [
        {
          groupName: consumer.group,
          consumeType: "CONSUME_PASSIVELY",
          messageModel: consumer.messageModel ?? "CLUSTERING",
          consumeFromWhere: "CONSUME_FROM_FIRST_OFFSET",
          subscriptionDataSet: [
            {
              topic: consumer.topic,
              subString: consumer.subString ?? "*",
              tagsSet: [],
              codeSet: [],
              subVersion: 1,
              classFilterMode: false,
              expressionType: "TAG",
            },
          ],
          unitMode: false,
        },
      ]
    : [];
  const producerDataSet = producerGroup ? [{ groupName: producerGroup }] : [];
  return new TextEncoder().encode(JSON.stringify({ clientID, consumerDataSet, producerDataSet }));
}

/**
 * A MessageQueue-keyed admin body (fastjson writes the queue object as the key) as plain JSON,
 * each key rewritten to `topic/queueId`.
 */
export function queueKeyed(body: Uint8Array | null): Record<string, unknown> {
  const { fields, table } = decodeQueueKeyedBody(body ?? new Uint8Array());
  return {
    ...fields,
    offsetTable: Object.fromEntries(table.map(([mq, v]) => [`${mq.topic}/${mq.queueId}`, v])),
  };
}

export type StartedCli = StartedRocketbun;

/** Creates a topic on the broker and waits until the NameServer routes it. */
export async function createRoutedTopic(cli: StartedCli, topic: string, queues: number): Promise<void> {
  const c = new RemotingClient({ name: "it-admin", log: silent });
  try {
    await createTopic(c, cli.brokerAddr, topic, queues);
    await waitFor(`route of ${topic}`, async () => {
      const r = await c.invoke(cli.namesrvAddr, request(RequestCode.GET_ROUTEINFO_BY_TOPIC, { topic }));
      return r.code === 0;
    });
  } finally {
    await c.shutdown();
  }
}
