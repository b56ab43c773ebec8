/**
 * POP benchmark (issue #18): `rocketbun start` in a child process.
 *
 * 1. Throughput: a backlog of BENCH_POP_BACKLOG 1 KiB messages over 8 queues is drained twice in
 *    the same run, in 5 rounds of alternating order: by PULL (one puller per queue, 32 a pull: the
 *    ceiling) and by POP (8 consumers popping 32 at a time from any queue and acking each batch
 *    with one BATCH_ACK); the ratio is the median of the rounds' ratios.
 * 2. Leases: BENCH_POP_LEASES small messages are popped and left un-acked, each pop with the
 *    invisible time that makes every lease expire at one instant; RSS of the child idle and with
 *    all leases held; then how fast the broker redelivers them all (revive into the retry topic).
 *
 * Run: bun bench/pop.ts   (BENCH_POP_BACKLOG=200000 BENCH_POP_LEASES=1000000;
 *      BENCH_SERVER_CPU_PROF=<dir> runs the server under --cpu-prof-md)
 */
import pino from "pino";
import { encodeBatch } from "../src/protocol/message/index.ts";
import { RemotingClient, RemotingCommand, RequestCode } from "../src/remoting/index.ts";
import { batchAckRequest, poppedCount, popRequest } from "./lib/pop-requests.ts";
import { cpuProfileLauncher } from "./lib/proc-cpu.ts";
import { printProgress, printTable, type Row } from "./lib/report.ts";
import { BODY, createTopic, ok, pullRequest, sendRequest } from "./lib/requests.ts";
import { startServer } from "./lib/start-server.ts";

const BACKLOG = Number(process.env.BENCH_POP_BACKLOG ?? 200_000);
const LEASES = Number(process.env.BENCH_POP_LEASES ?? 1_000_000);
const QUEUES = 8;
const CONSUMERS = 8;
const ROUNDS = 5;
const WARMUP = 20_000;
const SEND_BATCH = 32;
const SEND_INFLIGHT = 8;
const POLLING_TIMEOUT = 210;
const log = pino({ level: "warn" });

/** Stores `n` messages of `body` in `topic` with batch sends, round robin over the queues. */
async function fill(c: RemotingClient, addr: string, topic: string, n: number, body: Uint8Array) {
  const batch = encodeBatch(
    Array.from({ length: SEND_BATCH }, () => ({ flag: 0, body, properties: "TAGS\u0001bench\u0002" })),
  );
  let next = 0;
  const requests = Math.ceil(n / SEND_BATCH);
  await Promise.all(
    Array.from({ length: SEND_INFLIGHT }, async () => {
      for (let i = next++; i < requests; i = next++) {
        await ok(c.invoke(addr, sendRequest(topic, i % QUEUES, batch, true)));
      }
    }),
  );
  return requests * SEND_BATCH;
}

/** Pulls every queue of `topic` from 0 to its end; resolves to msgs/s. */
async function pullDrain(c: RemotingClient, addr: string, topic: string, total: number) {
  let got = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: QUEUES }, async (_, queueId) => {
      let offset = 0;
      for (;;) {
        const r = await c.invoke(addr, pullRequest(topic, queueId, offset), 10_000);
        if (r.code !== 0) break;
        const next = Number(r.extFields?.nextBeginOffset ?? offset);
        got += next - offset;
        offset = next;
      }
    }),
  );
  if (got < total) throw new Error(`pull drained ${got} of ${total}`);
  return (got * 1000) / (performance.now() - start);
}

/**
 * CONSUMERS consumers pop 32 at a time and ack each batch with one BATCH_ACK until `total` are
 * acked; as Java's and the gRPC clients' async acks do, a batch's ack overlaps the next pop (one
 * ack outstanding per consumer). Resolves to msgs/s.
 */
async function popDrain(
  c: RemotingClient,
  addr: string,
  group: string,
  topic: string,
  total: number,
  overlap = true,
) {
  let popped = 0;
  let acked = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: CONSUMERS }, async () => {
      let ack: Promise<unknown> = Promise.resolve();
      while (popped < total) {
        const r = await c.invoke(addr, popRequest(group, topic, 60_000), 10_000);
        if (r.code === POLLING_TIMEOUT) continue;
        if (r.code !== 0) throw new Error(`pop answered ${r.code} ${r.remark}`);
        const n = poppedCount(r);
        popped += n;
        await ack;
        ack = ok(c.invoke(addr, batchAckRequest(group, topic, r))).then(() => {
          acked += n;
        });
        if (!overlap) await ack;
      }
      await ack;
    }),
  );
  if (acked < total) throw new Error(`popped and acked ${acked} of ${total}`);
  return (acked * 1000) / (performance.now() - start);
}

/** Pops `total` messages and leaves them leased, all expiring at `expireAt`; resolves to msgs/s. */
async function popAndHold(
  c: RemotingClient,
  addr: string,
  group: string,
  topic: string,
  total: number,
  expireAt: number,
) {
  let held = 0;
  let late = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: CONSUMERS }, async () => {
      while (held < total) {
        const invisible = expireAt - Date.now();
        if (invisible < 1000) late++;
        const r = await c.invoke(addr, popRequest(group, topic, Math.max(1000, invisible)), 10_000);
        if (r.code === POLLING_TIMEOUT) break;
        if (r.code !== 0) throw new Error(`pop answered ${r.code} ${r.remark}`);
        held += poppedCount(r);
      }
    }),
  );
  return { rate: (held * 1000) / (performance.now() - start), held, late };
}

async function runtimeInfo(c: RemotingClient, addr: string): Promise<Record<string, string>> {
  const r = await ok(c.invoke(addr, RemotingCommand.request(RequestCode.GET_BROKER_RUNTIME_INFO)));
  return JSON.parse(new TextDecoder().decode(r.body!)).table as Record<string, string>;
}

async function maxOffset(c: RemotingClient, addr: string, topic: string): Promise<number> {
  const r = await c.invoke(
    addr,
    RemotingCommand.request(RequestCode.GET_MAX_OFFSET, { topic, queueId: "0" }),
  );
  return Number(r.extFields?.offset ?? 0);
}

const SERVER_CPU_PROF = process.env.BENCH_SERVER_CPU_PROF;
const srv = await startServer({
  name: "bench-pop",
  ...(SERVER_CPU_PROF ? { launcher: cpuProfileLauncher(SERVER_CPU_PROF, "pop") } : {}),
});
const c = new RemotingClient({ name: "bench-pop", log });
const addr = srv.brokerAddr;
await createTopic(c, addr, "BenchPop", QUEUES);
await createTopic(c, addr, "BenchLease", QUEUES);
await createTopic(c, addr, "BenchWarm", QUEUES);

// 1. Throughput from one backlog: ROUNDS rounds of a PULL drain and a POP drain (a new group each
// round), the first side alternating, since this machine's speed drifts within seconds.
// A small warm-up of both paths first, so that neither pays the JIT's first tiers in round 0.
const warm = await fill(c, addr, "BenchWarm", WARMUP, BODY);
await pullDrain(c, addr, "BenchWarm", warm);
await popDrain(c, addr, "BENCH_WARM", "BenchWarm", warm);
const backlog = await fill(c, addr, "BenchPop", BACKLOG, BODY);
const pullRates: number[] = [];
const popRates: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  const pull = () => pullDrain(c, addr, "BenchPop", backlog).then((r) => pullRates.push(r));
  const pop = () =>
    popDrain(c, addr, `BENCH_POP_${round}`, "BenchPop", backlog).then((r) => popRates.push(r));
  if (round % 2 === 0) await pull().then(pop);
  else await pop().then(pull);
  printProgress({
    bench: "pop",
    round: round + 1,
    rounds: ROUNDS,
    name: "POP + BATCH_ACK drain",
    value: popRates.at(-1)!,
    unit: "msgs/s",
    ceiling: pullRates.at(-1)!,
  });
}
// For comparison: each consumer waits for its ack before popping again.
const strictRate = await popDrain(c, addr, "BENCH_POP_STRICT", "BenchPop", backlog, false);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const pullRate = mean(pullRates);
const popRate = mean(popRates);
const popRatio = median(popRates.map((r, i) => r / pullRates[i]!));

// 2. A million leases held, then expiring together.
const leaseBody = new Uint8Array(64).fill(0x6c);
const leaseCount = await fill(c, addr, "BenchLease", LEASES, leaseBody);
await Bun.sleep(2000);
const idleRss = await srv.rssMiB();
// Popping without acks runs at least as fast as popping with them; leave generous room.
const expireAt = Date.now() + Math.ceil((leaseCount / Math.max(popRate, 1)) * 2000) + 10_000;
const hold = await popAndHold(c, addr, "BENCH_LEASE", "BenchLease", leaseCount, expireAt);
printProgress({
  bench: "pop",
  round: 1,
  rounds: 2,
  name: `pop ${leaseCount} and hold`,
  value: hold.rate,
  unit: "msgs/s",
});
await Bun.sleep(2000);
const heldRss = await srv.rssMiB();
const inflight = Number((await runtimeInfo(c, addr)).popInflightLeases);
await Bun.sleep(Math.max(0, expireAt - Date.now()));
let left = inflight;
while (left > 0) {
  await Bun.sleep(100);
  left = Number((await runtimeInfo(c, addr)).popInflightLeases);
}
const revivedMs = Date.now() - expireAt;
const copies = await maxOffset(c, addr, "%RETRY%BENCH_LEASE_BenchLease");
const reviveRate = (inflight * 1000) / Math.max(1, revivedMs);
printProgress({
  bench: "pop",
  round: 2,
  rounds: 2,
  name: "redelivery when all expire together",
  value: reviveRate,
  unit: "leases/s",
});
const afterRss = await srv.rssMiB();
await c.shutdown();
await srv.stop();

const above = heldRss - idleRss;
const rows: Row[] = [
  {
    name: `PULL drain of ${backlog.toLocaleString("en-US")} (1 KiB)`,
    value: pullRate,
    unit: "msgs/s, 8 pullers × 32",
  },
  {
    name: "POP + BATCH_ACK drain of the same backlog",
    value: popRate,
    ceiling: pullRate,
    ratio: popRatio,
    target: 0.6,
    unit: `msgs/s, 8 consumers × 32, one BATCH_ACK per pop overlapping the next pop; ratio: median of ${ROUNDS} paired rounds (${popRates.map((r, i) => (r / pullRates[i]!).toFixed(2)).join(" ")})`,
  },
  {
    name: "the same, each ack awaited before the next pop",
    value: strictRate,
    ceiling: pullRate,
    unit: "msgs/s, one drain after the rounds, against the rounds' mean PULL",
  },
  {
    name: `pop ${leaseCount.toLocaleString("en-US")} and hold (64 B)`,
    value: hold.rate,
    unit: `msgs/s; ${hold.held.toLocaleString("en-US")} held, ${hold.late} pops too late to share the expiry`,
  },
  { name: "RSS of start, idle (MiB)", value: idleRss, unit: "MiB, after the backlogs were stored" },
  {
    name: `RSS with ${inflight.toLocaleString("en-US")} leases (MiB)`,
    value: heldRss,
    unit: `MiB, ${above.toFixed(0)} above idle (issue target ≤200: ${above <= 200 ? "met" : "MISSED"}); ${afterRss.toFixed(0)} after redelivery`,
  },
  {
    name: "redelivery when all expire together",
    value: reviveRate,
    unit: `leases/s (issue target ≥50,000: ${reviveRate >= 50_000 ? "met" : "MISSED"}); all revived ${revivedMs} ms after expiry, ${copies.toLocaleString("en-US")} retry copies`,
  },
];
printTable(`pop (${QUEUES} queues)`, rows);
process.exit(0);
