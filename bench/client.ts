/**
 * bench/client (issue #6): the broker benchmark's scenarios driven by the native client beside the raw
 * remoting client (hand-built SEND_MESSAGE_V2 / PULL_MESSAGE frames) against the same `rocketbun start`
 * child in the same run: sync send with 1 in flight, 128 in flight, batches of 32, and draining a
 * backlog (raw pulls vs a push consumer). 1 KiB bodies; the raw frames carry the properties the
 * producer sets (TAGS, WAIT, a UNIQ_KEY per message), so both ask the broker for the same work.
 * Each scenario runs `BENCH_ROUNDS` rounds, raw and client interleaved; the table shows medians
 * and the per-round ratios follow it. Target: the client costs at most 15 % of throughput, i.e.
 * ratio ≥ 0.85 against the raw client.
 */
import pino from "pino";
import { createProducer, createPushConsumer, type Message } from "../src/client/index.ts";
import { PullSysFlag } from "../src/protocol/headers/pull.ts";
import { SendMessageRequestHeaderV2 } from "../src/protocol/headers/send.ts";
import { encodeBatch, encodeProperties } from "../src/protocol/message/index.ts";
import { RemotingClient, RemotingCommand, RequestCode } from "../src/remoting/index.ts";
import { closedLoop } from "./lib/load.ts";
import { printTable, type Row } from "./lib/report.ts";
import { startServer } from "./lib/start-server.ts";

const durationMs = Number(process.env.BENCH_DURATION_MS ?? 2000);
const BACKLOG = Number(process.env.BENCH_BACKLOG ?? 100_000);
/** Rounds per scenario; figures are the median over rounds. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const QUEUES = 8;
const BATCH = 32;
const BODY = new Uint8Array(1024).fill(0x62);
const PROPS = encodeProperties(new Map([["TAGS", "bench"]]));
/** What the producer sends besides the tag (spec broker §2.2): WAIT and a 32-hex UNIQ_KEY per message. */
let uniq = 0;
const producerLikeProps = () =>
  encodeProperties(
    new Map([
      ["TAGS", "bench"],
      ["WAIT", "true"],
      ["UNIQ_KEY", (uniq++).toString(16).padStart(32, "0")],
    ]),
  );
const log = pino({ level: "silent" });
const TARGET = 0.85;

function rawSend(topic: string, queueId: number, body: Uint8Array = BODY, batch = false): RemotingCommand {
  const ext = SendMessageRequestHeaderV2.encode({
    producerGroup: "BENCH_RAW",
    topic,
    defaultTopic: "TBW102",
    defaultTopicQueueNums: QUEUES,
    queueId,
    sysFlag: 0,
    bornTimestamp: Date.now(),
    flag: 0,
    properties: batch ? PROPS : producerLikeProps(),
    ...(batch ? { batch: true } : {}),
  });
  return RemotingCommand.request(RequestCode.SEND_MESSAGE_V2, ext, body);
}

function rawPull(topic: string, queueId: number, offset: number): RemotingCommand {
  return RemotingCommand.request(RequestCode.PULL_MESSAGE, {
    consumerGroup: "BENCH_RAW_CG",
    topic,
    queueId: String(queueId),
    queueOffset: String(offset),
    maxMsgNums: String(BATCH),
    sysFlag: String(PullSysFlag.SUBSCRIPTION),
    commitOffset: "0",
    suspendTimeoutMillis: "0",
    subscription: "*",
    subVersion: "0",
  });
}

async function ok(p: Promise<RemotingCommand>): Promise<RemotingCommand> {
  const r = await p;
  if (r.code !== 0) throw new Error(`broker answered ${r.code} ${r.remark}`);
  return r;
}

/** This process's CPU time (user + system) per call of `run`, in µs: the client's own cost, free of broker noise. */
async function cpuPerCall<T>(run: (count: () => void) => Promise<T>): Promise<{ result: T; cpuUs: number }> {
  let calls = 0;
  const before = process.cpuUsage();
  const result = await run(() => calls++);
  const used = process.cpuUsage(before);
  return { result, cpuUs: (used.user + used.system) / Math.max(calls, 1) };
}

function countRecords(body: Uint8Array): number {
  const dv = new DataView(body.buffer, body.byteOffset, body.byteLength);
  let n = 0;
  for (let pos = 0; pos < body.length; pos += dv.getInt32(pos)) n++;
  return n;
}

const srv = await startServer();
const raw = new RemotingClient({ name: "bench-raw", log });
const broker = srv.brokerAddr;
for (const topic of ["BenchClient", "BenchBacklog"]) {
  await ok(
    raw.invoke(
      broker,
      RemotingCommand.request(RequestCode.UPDATE_AND_CREATE_TOPIC, {
        topic,
        readQueueNums: String(QUEUES),
        writeQueueNums: String(QUEUES),
        perm: "6",
        topicFilterType: "SINGLE_TAG",
      }),
    ),
  );
}
const producer = await createProducer({ namesrvAddr: srv.namesrvAddr, group: "BENCH_CLIENT", log });
const message: Message = { topic: "BenchClient", tags: "bench", body: BODY };
await producer.send(message);

let q = 0;
const rawOne = () => ok(raw.invoke(broker, rawSend("BenchClient", q++ % QUEUES), 10_000));
const batchBody = encodeBatch(
  Array.from({ length: BATCH }, () => ({ flag: 0, body: BODY, properties: producerLikeProps() })),
);
const rawBatch = () => ok(raw.invoke(broker, rawSend("BenchClient", q++ % QUEUES, batchBody, true), 10_000));
const batch = Array.from({ length: BATCH }, () => message);

/** One measure: messages per second and this process's CPU µs per message. */
interface Measure {
  rate: number;
  cpuUs: number;
}

/** `calls` closed-loop calls of `perCall` messages each, `inflight` at a time. */
async function loop(call: () => Promise<unknown>, inflight: number, perCall = 1): Promise<Measure> {
  const { result, cpuUs } = await cpuPerCall((count) =>
    closedLoop(() => call().then(count), inflight, durationMs),
  );
  return { rate: perCall * result, cpuUs: cpuUs / perCall };
}

// Backlog: fill once; every round drains all of it again, raw pulls from offset 0 and a push
// consumer in a new group from the first offset, so each round reads the same stored messages.
for (let sent = 0; sent < BACKLOG; sent += BATCH * QUEUES) {
  await Promise.all(
    Array.from({ length: QUEUES }, (_, i) =>
      ok(raw.invoke(broker, rawSend("BenchBacklog", i, batchBody, true), 10_000)),
    ),
  );
}
const perQueue = await Promise.all(
  Array.from({ length: QUEUES }, async (_, queueId) => {
    const r = await ok(
      raw.invoke(
        broker,
        RemotingCommand.request(RequestCode.GET_MAX_OFFSET, {
          topic: "BenchBacklog",
          queueId: String(queueId),
        }),
      ),
    );
    return Number(r.ext("offset"));
  }),
);
const backlog = perQueue.reduce((a, b) => a + b, 0);

async function rawDrain(): Promise<Measure> {
  let drained = 0;
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  await Promise.all(
    perQueue.map(async (max, queueId) => {
      for (let offset = 0; offset < max; ) {
        const r = await raw.invoke(broker, rawPull("BenchBacklog", queueId, offset), 10_000);
        if (r.code !== 0 || !r.body) break;
        drained += countRecords(r.body);
        offset = Number(r.ext("nextBeginOffset"));
      }
    }),
  );
  const cpu = process.cpuUsage(cpuBefore);
  return {
    rate: (drained * 1000) / (performance.now() - started),
    cpuUs: (cpu.user + cpu.system) / Math.max(drained, 1),
  };
}

let drainRound = 0;
/** Consumer start included: rebalance and the first pulls are part of a drain. */
async function pushDrain(): Promise<Measure> {
  let consumed = 0;
  let allConsumed: () => void = () => {};
  const done = new Promise<void>((resolve) => {
    allConsumed = resolve;
  });
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  const consumer = await createPushConsumer({
    namesrvAddr: srv.namesrvAddr,
    group: `BENCH_CLIENT_CG_${drainRound++}`,
    consumeFromWhere: "CONSUME_FROM_FIRST_OFFSET",
    subscriptions: { BenchBacklog: "*" },
    consumeBatchSize: BATCH,
    log,
    onMessage: (msgs) => {
      consumed += msgs.length;
      if (consumed >= backlog) allConsumed();
    },
  });
  await done;
  const rate = (consumed * 1000) / (performance.now() - started);
  const cpu = process.cpuUsage(cpuBefore);
  await consumer.shutdown();
  return { rate, cpuUs: (cpu.user + cpu.system) / Math.max(consumed, 1) };
}

interface Scenario {
  name: string;
  raw: { name: string; run: () => Promise<Measure> };
  client: { name: string; run: () => Promise<Measure> };
}

const scenarios: Scenario[] = [
  {
    name: "send, 1 in flight",
    raw: { name: "raw SEND_MESSAGE_V2, 1 in flight", run: () => loop(rawOne, 1) },
    client: { name: "producer.send, 1 in flight", run: () => loop(() => producer.send(message), 1) },
  },
  {
    name: "send, 128 in flight",
    raw: { name: "raw SEND_MESSAGE_V2, 128 in flight", run: () => loop(rawOne, 128) },
    client: { name: "producer.send, 128 in flight", run: () => loop(() => producer.send(message), 128) },
  },
  {
    name: "batch of 32",
    raw: { name: "raw batch of 32, 8 in flight", run: () => loop(rawBatch, 8, BATCH) },
    client: {
      name: "producer.sendBatch of 32, 8 in flight",
      run: () => loop(() => producer.sendBatch(batch), 8, BATCH),
    },
  },
  {
    name: "backlog drain",
    raw: { name: `raw pull drain of ${backlog.toLocaleString("en-US")} msgs`, run: rawDrain },
    client: { name: "push consumer drain of the same backlog", run: pushDrain },
  },
];

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

// Rounds interleave raw and client and alternate which goes first, so drift on a shared machine
// (other processes, the broker's page cache, JIT tiers) falls on both sides alike.
const results = scenarios.map(() => ({ raw: [] as Measure[], client: [] as Measure[] }));
for (let round = 0; round < ROUNDS; round++) {
  for (const [i, s] of scenarios.entries()) {
    const order = round % 2 === 0 ? (["raw", "client"] as const) : (["client", "raw"] as const);
    for (const side of order) results[i]![side].push(await s[side].run());
  }
}
await producer.shutdown();
await raw.shutdown();
await srv.stop();

const rows: Row[] = [];
const cpuRows: Row[] = [];
const ratioLines: string[] = [];
for (const [i, s] of scenarios.entries()) {
  const r = results[i]!;
  const rawRate = median(r.raw.map((m) => m.rate));
  rows.push({ name: s.raw.name, value: rawRate, unit: "msgs/s" });
  rows.push({
    name: s.client.name,
    value: median(r.client.map((m) => m.rate)),
    unit: "msgs/s",
    ceiling: rawRate,
    target: TARGET,
  });
  cpuRows.push({ name: `CPU, ${s.raw.name}`, value: median(r.raw.map((m) => m.cpuUs)), unit: "µs/msg" });
  cpuRows.push({
    name: `CPU, ${s.client.name}`,
    value: median(r.client.map((m) => m.cpuUs)),
    unit: "µs/msg",
  });
  const ratios = r.client.map((m, k) => m.rate / r.raw[k]!.rate);
  ratioLines.push(
    `${s.name.padEnd(22)} per round ${ratios.map((x) => x.toFixed(2)).join(" ")}  median ${median(ratios).toFixed(2)}`,
  );
}
printTable(
  `client vs raw remoting client against rocketbun start, 1 KiB bodies, ${durationMs} ms per measure, median of ${ROUNDS} rounds`,
  rows,
);
// The bench's own process: CPU per message, steadier than rates on a shared machine.
printTable("CPU of this process per message (client side only), median of the rounds", cpuRows);
console.log("\nclient/raw ratio");
for (const line of ratioLines) console.log(line);
process.exit(0);
