/**
 * Integration harness: a real broker on 127.0.0.1 port 0 with its store in a temp dir (in-process),
 * `rocketbun start` in a child process on free ports, and raw-frame helpers for both serializations.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { type Broker, createBroker } from "../../broker/index.ts";
import { loadRoleConfig } from "../../src/config/load.ts";
import { PullSysFlag } from "../../src/protocol/headers/pull.ts";
import { SendMessageRequestHeader, SendMessageRequestHeaderV2 } from "../../src/protocol/headers/send.ts";
import {
  type DecodedRecord,
  decodeRecord,
  encodeProperties,
  MessageConst,
} from "../../src/protocol/message/index.ts";
import {
  type ExtFields,
  RemotingClient,
  RemotingCommand,
  RequestCode,
  SerializeType,
} from "../../src/remoting/index.ts";

export const silent = pino({ level: "silent" });

export const SERIALIZE_TYPES = [
  ["JSON", SerializeType.JSON],
  ["ROCKETMQ", SerializeType.ROCKETMQ],
] as const;

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

/** A free loopback port whose VIP neighbour (port - 2) is free too. */
export function freePort(): number {
  for (;;) {
    const port = 20000 + Math.floor(Math.random() * 30000);
    try {
      const a = Bun.listen({ hostname: "127.0.0.1", port, socket: { data() {} } });
      try {
        const b = Bun.listen({ hostname: "127.0.0.1", port: port - 2, socket: { data() {} } });
        b.stop(true);
        return port;
      } finally {
        a.stop(true);
      }
    } catch {
      // taken: try another
    }
  }
}

/** A broker on a free port pair (main and VIP), so a restart can bind the same ports again. */
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

/** A request in the given serialization. */
export function request(
  code: number,
  ext: ExtFields | null = null,
  body: Uint8Array | null = null,
  serializeType: SerializeType = SerializeType.JSON,
): RemotingCommand {
  const req = RemotingCommand.request(code, ext, body);
  req.serializeType = serializeType;
  return req;
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
    sysFlag: 0,
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

/**
 * Resolves once `check` returns a truthy value, re-checking after every macrotask turn; rejects
 * with `what` after `limitMs` so a broken invariant fails the test instead of hanging it.
 */
export async function waitFor<T>(
  what: string,
  check: () => T | Promise<T>,
  limitMs = 20_000,
): Promise<NonNullable<T>> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const v = await check();
    if (v) return v as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what}`);
    await new Promise<void>((resolve) => setTimeout(resolve, 5));
  }
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
  const text = new TextDecoder()
    .decode(body ?? new Uint8Array())
    .replace(/\{"brokerName":"[^"]*","queueId":(\d+),"topic":"([^"]*)"\}:/g, '"$2/$1":');
  return JSON.parse(text);
}

const root = join(import.meta.dir, "..", "..");

export interface StartedCli extends AsyncDisposable {
  namesrvAddr: string;
  brokerAddr: string;
  home: string;
  /** SIGTERM, wait for exit, start again on the same home and ports. */
  restart(): Promise<void>;
  /** The child's pid, for RSS readings. */
  readonly pid: number;
}

/**
 * `rocketbun start` in a child process (the running Bun) on free loopback ports with a temp home;
 * resolves once the broker's boot line is printed (it registers with the NameServer before that).
 */
export async function startRocketbun(): Promise<StartedCli> {
  const home = await mkdtemp(join(tmpdir(), "rocketbun-start-it-"));
  const [nsPort, brokerPort, gwPort] = [freePort(), freePort(), freePort()];
  let child: ReturnType<typeof Bun.spawn> | null = null;
  const spawn = async () => {
    const proc = Bun.spawn(
      [
        process.execPath,
        "src/cli/main.ts",
        "start",
        "--home",
        home,
        "--namesrv-port",
        String(nsPort),
        "--broker-port",
        String(brokerPort),
        "--gateway-port",
        String(gwPort),
      ],
      {
        cwd: root,
        stdout: "pipe",
        stderr: "ignore",
        env: { ...process.env, ROCKETBUN_LOG_LEVEL: "warn" },
      },
    );
    child = proc;
    await waitForLine(proc.stdout, /The broker\[.*boot success/);
  };
  await spawn();
  return {
    namesrvAddr: `127.0.0.1:${nsPort}`,
    brokerAddr: `127.0.0.1:${brokerPort}`,
    home,
    get pid() {
      return child!.pid;
    },
    async restart() {
      child?.kill("SIGTERM");
      await child?.exited;
      await spawn();
    },
    async [Symbol.asyncDispose]() {
      child?.kill("SIGTERM");
      await child?.exited;
      await rm(home, { recursive: true, force: true });
    },
  };
}

/** Reads `stream` until a line matches, then keeps draining it in the background. */
export async function waitForLine(stream: ReadableStream<Uint8Array>, pattern: RegExp): Promise<string> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let text = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the process exited before printing ${pattern}: ${text}`);
    text += decoder.decode(value, { stream: true });
    const line = text.split("\n").find((l) => pattern.test(l));
    if (line) {
      void (async () => {
        while (!(await reader.read().catch(() => ({ done: true }))).done) {
          // drain, so the child never blocks on a full pipe
        }
      })();
      return line;
    }
  }
}

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
