/**
 * bench/client (issue #6): the broker benchmark's scenarios driven by the native client beside the raw
 * remoting client (hand-built SEND_MESSAGE_V2 / PULL_MESSAGE frames) against the same `rocketbun start`
 * child in the same run: sync send with 1 in flight, 128 in flight, batches of 32, and draining a
 * backlog (raw pulls vs a push consumer). 1 KiB bodies; the raw frames carry the properties the
 * producer sets (TAGS, WAIT, a UNIQ_KEY per message), so both ask the broker for the same work.
 * Each send scenario runs `BENCH_ROUNDS` rounds, the drain `BENCH_DRAIN_ROUNDS` (a drain of the
 * backlog takes well under a second, so its rounds scatter more); in a round the send scenarios alternate raw and client
 * in short slices (see `pairedLoop`) and the drains run whole in ABBA order (see `pairedDrain`).
 * The table shows medians and the per-round ratios follow it. Target: the client costs at most
 * 15 % of throughput, i.e. ratio ≥ 0.85 against the raw client. BENCH_ONLY=drain (words, comma
 * separated) runs only the scenarios named with them. The server and this process run on CPUs of
 * their own (see lib/pin.ts; BENCH_PIN=0 unpins).
 */
import pino from "pino";
import { createProducer, createPushConsumer, type Message } from "../src/client/index.ts";
import { PullSysFlag } from "../src/protocol/headers/pull.ts";
import { SendMessageRequestHeaderV2 } from "../src/protocol/headers/send.ts";
import { encodeBatch, encodeProperties } from "../src/protocol/message/index.ts";
import { RemotingClient, RemotingCommand, RequestCode } from "../src/remoting/index.ts";
import { runSlice } from "./lib/load.ts";
import { pinApart } from "./lib/pin.ts";
import { printProgress, printTable, type Row } from "./lib/report.ts";
import { createTopic, ok } from "./lib/requests.ts";
import { startServer } from "./lib/start-server.ts";

const durationMs = Number(process.env.BENCH_DURATION_MS ?? 2000);
const BACKLOG = Number(process.env.BENCH_BACKLOG ?? 100_000);
/** Rounds per scenario; figures are the median over rounds. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const DRAIN_ROUNDS = Number(process.env.BENCH_DRAIN_ROUNDS ?? 11);
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

function countRecords(body: Uint8Array): number {
  const dv = new DataView(body.buffer, body.byteOffset, body.byteLength);
  let n = 0;
  for (let pos = 0; pos < body.length; pos += dv.getInt32(pos)) n++;
  return n;
}

const srv = await startServer();
const pinning = pinApart(srv.pid);
const raw = new RemotingClient({ name: "bench-raw", log });
const broker = srv.brokerAddr;
for (const topic of ["BenchClient", "BenchBacklog"]) await createTopic(raw, broker, topic, QUEUES);
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

/** Slices per side in one paired measure (see `pairedLoop`). */
const SLICES = 8;

/**
 * Raw and client closed loops, `inflight` calls of `perCall` messages each, measured in
 * `SLICES` alternating slices of `durationMs / SLICES` per side (the first side alternating too):
 * this machine's speed drifts by 2x within seconds, and slices put the drift on both sides alike.
 * A short warm-up of each side runs first.
 */
async function pairedLoop(
  rawCall: () => Promise<unknown>,
  clientCall: () => Promise<unknown>,
  inflight: number,
  perCall = 1,
): Promise<{ raw: Measure; client: Measure }> {
  await runSlice(rawCall, inflight, 200);
  await runSlice(clientCall, inflight, 200);
  const sides = {
    raw: { call: rawCall, calls: 0, ms: 0, cpuUs: 0 },
    client: { call: clientCall, calls: 0, ms: 0, cpuUs: 0 },
  };
  for (let k = 0; k < SLICES; k++) {
    for (const side of k % 2 === 0 ? [sides.raw, sides.client] : [sides.client, sides.raw]) {
      const before = process.cpuUsage();
      const { calls, ms } = await runSlice(side.call, inflight, durationMs / SLICES);
      const used = process.cpuUsage(before);
      side.calls += calls;
      side.ms += ms;
      side.cpuUs += used.user + used.system;
    }
  }
  const measure = (x: typeof sides.raw): Measure => ({
    rate: (perCall * x.calls * 1000) / x.ms,
    cpuUs: x.cpuUs / Math.max(perCall * x.calls, 1),
  });
  return { raw: measure(sides.raw), client: measure(sides.client) };
}

/** BENCH_ONLY=drain,batch runs the scenarios whose names contain one of the words. */
const only = process.env.BENCH_ONLY?.split(",").filter((w) => w.length > 0);
const selected = (name: string) => !only || only.some((w) => name.includes(w));
const DRAIN = "backlog drain";

// Backlog: fill once (only if the drain runs); every round drains all of it again, raw pulls from
// offset 0 and a push consumer in a new group from the first offset, so each round reads the same
// stored messages.
for (let sent = 0; selected(DRAIN) && sent < BACKLOG; sent += BATCH * QUEUES) {
  await Promise.all(
    Array.from({ length: QUEUES }, (_, i) =>
      ok(raw.invoke(broker, rawSend("BenchBacklog", i, batchBody, true), 10_000)),
    ),
  );
}
const perQueue = await Promise.all(
  Array.from({ length: selected(DRAIN) ? QUEUES : 0 }, async (_, queueId) => {
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
  rawName: string;
  clientName: string;
  rounds: number;
  /** One round: both sides measured. */
  run: () => Promise<{ raw: Measure; client: Measure }>;
}

let drainRoundsRun = 0;
/**
 * Drains cannot be sliced: each round runs each side twice, whole, in ABBA order (the first side
 * alternating between rounds), so a drift in machine speed across the round falls on both sides
 * alike. A side's figure is its two drains together.
 */
async function pairedDrain(): Promise<{ raw: Measure; client: Measure }> {
  const order = drainRoundsRun++ % 2 === 0 ? [rawDrain, pushDrain] : [pushDrain, rawDrain];
  const runs = new Map<() => Promise<Measure>, Measure[]>(order.map((f) => [f, []]));
  for (const f of [order[0]!, order[1]!, order[1]!, order[0]!]) runs.get(f)!.push(await f());
  return { raw: combined(runs.get(rawDrain)!), client: combined(runs.get(pushDrain)!) };
}

/** Two drains of the same backlog as one: messages over summed time, CPU averaged. */
function combined([a, b]: Measure[]): Measure {
  return { rate: 2 / (1 / a!.rate + 1 / b!.rate), cpuUs: (a!.cpuUs + b!.cpuUs) / 2 };
}

const allScenarios: Scenario[] = [
  {
    name: "send, 1 in flight",
    rawName: "raw SEND_MESSAGE_V2, 1 in flight",
    clientName: "producer.send, 1 in flight",
    rounds: ROUNDS,
    run: () => pairedLoop(rawOne, () => producer.send(message), 1),
  },
  {
    name: "send, 128 in flight",
    rawName: "raw SEND_MESSAGE_V2, 128 in flight",
    clientName: "producer.send, 128 in flight",
    rounds: ROUNDS,
    run: () => pairedLoop(rawOne, () => producer.send(message), 128),
  },
  {
    name: "batch of 32",
    rawName: "raw batch of 32, 8 in flight",
    clientName: "producer.sendBatch of 32, 8 in flight",
    rounds: ROUNDS,
    run: () => pairedLoop(rawBatch, () => producer.sendBatch(batch), 8, BATCH),
  },
  {
    name: DRAIN,
    rawName: `raw pull drain of ${backlog.toLocaleString("en-US")} msgs`,
    clientName: "push consumer drain of the same backlog",
    rounds: DRAIN_ROUNDS,
    run: pairedDrain,
  },
];
const scenarios = allScenarios.filter((sc) => selected(sc.name));
if (scenarios.length === 0) {
  console.error(`BENCH_ONLY matched no scenario (have: ${allScenarios.map((sc) => sc.name).join("; ")})`);
  await producer.shutdown();
  await raw.shutdown();
  await srv.stop();
  process.exit(2);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const results = scenarios.map(() => ({ raw: [] as Measure[], client: [] as Measure[] }));
const mostRounds = Math.max(...scenarios.map((sc) => sc.rounds));
for (let round = 0; round < mostRounds; round++) {
  for (const [i, s] of scenarios.entries()) {
    if (round >= s.rounds) continue;
    const m = await s.run();
    results[i]!.raw.push(m.raw);
    results[i]!.client.push(m.client);
    const unit = "msgs/s";
    printProgress({
      bench: "client",
      round: round + 1,
      rounds: s.rounds,
      name: s.clientName,
      value: m.client.rate,
      unit,
      ceiling: m.raw.rate,
    });
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
  // Each round measures both sides under the same conditions: the verdict uses the median of the
  // rounds' ratios, not the ratio of medians taken from different rounds.
  const ratios = r.client.map((m, k) => m.rate / r.raw[k]!.rate);
  rows.push({ name: s.rawName, value: rawRate, unit: "msgs/s" });
  rows.push({
    name: s.clientName,
    value: median(r.client.map((m) => m.rate)),
    unit: "msgs/s",
    ceiling: rawRate,
    ratio: median(ratios),
    target: TARGET,
  });
  const rawCpu = median(r.raw.map((m) => m.cpuUs));
  cpuRows.push({ name: `CPU, ${s.rawName}`, value: rawCpu, unit: "µs/msg" });
  // No target: the ratio here is how much more CPU a message costs through the client.
  cpuRows.push({
    name: `CPU, ${s.clientName}`,
    value: median(r.client.map((m) => m.cpuUs)),
    ceiling: rawCpu,
    unit: "µs/msg",
  });
  ratioLines.push(
    `${s.name.padEnd(22)} per round ${ratios.map((x) => x.toFixed(2)).join(" ")}  median ${median(ratios).toFixed(2)}`,
  );
}
console.log(`\n${pinning}`);
printTable(
  `client vs raw remoting client against rocketbun start, 1 KiB bodies, ${durationMs} ms per side per round, ${ROUNDS} rounds (drain ${DRAIN_ROUNDS}) (rates: medians; ratio: median of the rounds' ratios)`,
  rows,
);
// The bench's own process: CPU per message, steadier than rates on a shared machine.
printTable(
  "CPU of this process per message (client side only), median of the rounds; ratio: client/raw",
  cpuRows,
);
console.log("\nclient/raw ratio");
for (const line of ratioLines) console.log(line);
process.exit(0);
