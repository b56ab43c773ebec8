/**
 * bench/client (issue #6): the broker benchmark's scenarios driven by the native client beside the raw
 * remoting client (hand-built SEND_MESSAGE_V2 / PULL_MESSAGE frames) against the same `rocketbun start`
 * child in the same run: sync send with 1 in flight, 128 in flight, batches of 32, and draining a
 * backlog (raw pulls vs a push consumer). 1 KiB bodies; the raw frames carry the properties the
 * producer sets (TAGS, WAIT, a UNIQ_KEY per message), so both ask the broker for the same work. Target: the client costs at most 15 % of
 * throughput, i.e. ratio ≥ 0.85 against the raw client.
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

const durationMs = Number(process.env.BENCH_DURATION_MS ?? 3000);
const BACKLOG = Number(process.env.BENCH_BACKLOG ?? 100_000);
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

const raw1 = await closedLoop(rawOne, 1, durationMs);
const client1 = await closedLoop(() => producer.send(message), 1, durationMs);
const raw128 = await closedLoop(rawOne, 128, durationMs);
const client128 = await closedLoop(() => producer.send(message), 128, durationMs);
const rawBatchRun = await cpuPerCall((count) => closedLoop(() => rawBatch().then(count), 8, durationMs));
const rawBatchRate = BATCH * rawBatchRun.result;
const clientBatchRun = await cpuPerCall((count) =>
  closedLoop(() => producer.sendBatch(batch).then(count), 8, durationMs),
);
const clientBatchRate = BATCH * clientBatchRun.result;

// Backlog: fill, then drain it with raw pulls (8 queues in parallel), then with a push consumer.
for (let sent = 0; sent < BACKLOG; sent += BATCH) {
  await Promise.all(
    Array.from({ length: QUEUES }, (_, i) =>
      ok(raw.invoke(broker, rawSend("BenchBacklog", i, batchBody, true), 10_000)),
    ),
  );
  sent += BATCH * (QUEUES - 1);
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
let started = performance.now();
let drained = 0;
let cpuBefore = process.cpuUsage();
await Promise.all(
  perQueue.map(async (max, queueId) => {
    for (let offset = 0; offset < max; ) {
      const r = await raw.invoke(broker, rawPull("BenchBacklog", queueId, offset), 10_000);
      if (r.code !== 0 || !r.body) break;
      const n = countRecords(r.body);
      drained += n;
      offset = Number(r.ext("nextBeginOffset"));
    }
  }),
);
const rawDrain = (drained * 1000) / (performance.now() - started);
let cpu = process.cpuUsage(cpuBefore);
const rawDrainCpuUs = (cpu.user + cpu.system) / Math.max(drained, 1);

let consumed = 0;
let allConsumed: () => void = () => {};
const done = new Promise<void>((resolve) => {
  allConsumed = resolve;
});
started = performance.now();
cpuBefore = process.cpuUsage();
const consumer = await createPushConsumer({
  namesrvAddr: srv.namesrvAddr,
  group: "BENCH_CLIENT_CG",
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
const pushDrain = (consumed * 1000) / (performance.now() - started);
cpu = process.cpuUsage(cpuBefore);
const pushDrainCpuUs = (cpu.user + cpu.system) / Math.max(consumed, 1);
await consumer.shutdown();
await producer.shutdown();
await raw.shutdown();
await srv.stop();

const rows: Row[] = [
  { name: "raw SEND_MESSAGE_V2, 1 in flight", value: raw1, unit: "msgs/s" },
  { name: "producer.send, 1 in flight", value: client1, unit: "msgs/s", ceiling: raw1, target: TARGET },
  { name: "raw SEND_MESSAGE_V2, 128 in flight", value: raw128, unit: "msgs/s" },
  { name: "producer.send, 128 in flight", value: client128, unit: "msgs/s", ceiling: raw128, target: TARGET },
  { name: "raw batch of 32, 8 in flight", value: rawBatchRate, unit: "msgs/s" },
  {
    name: "producer.sendBatch of 32, 8 in flight",
    value: clientBatchRate,
    unit: "msgs/s",
    ceiling: rawBatchRate,
    target: TARGET,
  },
  { name: `raw pull drain of ${backlog.toLocaleString("en-US")} msgs`, value: rawDrain, unit: "msgs/s" },
  {
    name: "push consumer drain of the same backlog",
    value: pushDrain,
    unit: "msgs/s",
    ceiling: rawDrain,
    target: TARGET,
  },
  // The bench's own process: client CPU per message, steadier than rates on a shared machine.
  { name: "CPU, raw batch of 32", value: rawBatchRun.cpuUs / BATCH, unit: "µs/msg" },
  { name: "CPU, producer.sendBatch of 32", value: clientBatchRun.cpuUs / BATCH, unit: "µs/msg" },
  { name: "CPU, raw pull drain", value: rawDrainCpuUs, unit: "µs/msg" },
  { name: "CPU, push consumer drain (start included)", value: pushDrainCpuUs, unit: "µs/msg" },
];
printTable(
  `client vs raw remoting client against rocketbun start, 1 KiB bodies, ${durationMs} ms per measure`,
  rows,
);
process.exit(0);
