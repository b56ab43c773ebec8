/**
 * bench/soak (`npm run bench -- soak`, not in the default set: it runs minutes): one producer with
 * 16 sends in flight and two push consumers in one group against `rocketbun start`, for
 * BENCH_SOAK_MS (default 150 s, past the servers' 120 s idle limit and the broker's 120 s channel
 * expiry, where a busy connection used to be dropped). Every 10 s it prints throughput, what was
 * consumed, broker RSS and client heap; at the end it checks what must hold however long it runs:
 * nothing lost, nothing consumed twice, no connection lost, and broker memory not growing.
 */
import pino from "pino";
import { createAdmin, createProducer, createPushConsumer } from "../src/client/index.ts";
import { printProgress } from "./lib/report.ts";
import { startServer } from "./lib/start-server.ts";

const durationMs = Number(process.env.BENCH_SOAK_MS ?? 150_000);
const SAMPLE_MS = 10_000;
const IN_FLIGHT = 16;
/** Broker RSS may end at most this much above its median over the run (GC and page-cache noise). */
const RSS_DRIFT_MAX_MIB = 64;

const log = pino({ level: "silent" });
const srv = await startServer({ name: "rocketbun-soak" });
const namesrvAddr = srv.namesrvAddr;
const admin = await createAdmin({ namesrvAddr, log });
await admin.createTopic("BenchSoak", { readQueueNums: 8, writeQueueNums: 8 });
await admin.shutdown();

let lostConnections = 0;
const producer = await createProducer({ namesrvAddr, log, group: "BENCH_SOAK_P" });
producer.client.remoting.onConnectionLost(() => lostConnections++);
/** One byte per message id: bit 1 acknowledged to the producer, bit 2 consumed (a Set would be GBs of heap). */
let marks = new Uint8Array(1 << 20);
const ACKED = 1;
const CONSUMED = 2;
function mark(id: number, bit: number): boolean {
  if (id >= marks.length) {
    const grown = new Uint8Array(Math.max(marks.length * 2, id + 1));
    grown.set(marks);
    marks = grown;
  }
  const had = (marks[id]! & bit) !== 0;
  marks[id]! |= bit;
  return had;
}
let consumed = 0;
let duplicates = 0;
const consumers = await Promise.all(
  [0, 1].map(async () => {
    const c = await createPushConsumer({
      namesrvAddr,
      log,
      group: "BENCH_SOAK_G",
      subscriptions: { BenchSoak: "*" },
      consumeFromWhere: "CONSUME_FROM_FIRST_OFFSET",
      consumeBatchSize: 32,
      onMessage: (msgs) => {
        for (const m of msgs) {
          if (mark(new DataView(m.body.buffer, m.body.byteOffset).getUint32(0), CONSUMED)) duplicates++;
          else consumed++;
        }
      },
    });
    c.client.remoting.onConnectionLost(() => lostConnections++);
    return c;
  }),
);

let nextId = 0;
let sent = 0;
let failed = 0;
let stopping = false;
const senders = Array.from({ length: IN_FLIGHT }, async () => {
  while (!stopping) {
    const id = nextId++;
    const body = new Uint8Array(512);
    new DataView(body.buffer).setUint32(0, id);
    await producer.send({ topic: "BenchSoak", body }).then(
      () => {
        mark(id, ACKED);
        sent++;
      },
      () => failed++,
    );
  }
});

const rss: number[] = [];
const started = performance.now();
let lastSent = 0;
let lastAt = started;
console.log(
  `\n## soak: 1 producer (${IN_FLIGHT} in flight, 512 B), 2 push consumers, ${durationMs / 1000} s`,
);
while (performance.now() - started < durationMs) {
  await Bun.sleep(SAMPLE_MS);
  const now = performance.now();
  rss.push(await srv.rssMiB());
  const rate = ((sent - lastSent) * 1000) / (now - lastAt);
  lastSent = sent;
  lastAt = now;
  const heap = process.memoryUsage().heapUsed / 1048576;
  const t = Math.round((now - started) / 1000);
  printProgress({
    bench: "soak",
    round: rss.length,
    rounds: Math.ceil(durationMs / SAMPLE_MS),
    name: `t=${t} s, sent`,
    value: rate,
    unit: "msgs/s",
    note: `consumed ${consumed.toLocaleString("en-US")}/${sent.toLocaleString("en-US")}, broker RSS ${rss.at(-1)!.toFixed(1)} MiB, client heap ${heap.toFixed(1)} MiB`,
  });
}
stopping = true;
await Promise.all(senders);
const drainUntil = performance.now() + 20_000;
const lost = () => {
  let n = 0;
  for (let id = 0; id < nextId; id++) if (marks[id] === ACKED) n++;
  return n;
};
while (lost() > 0 && performance.now() < drainUntil) await Bun.sleep(200);
for (const c of consumers) await c.shutdown();
await producer.shutdown();
await srv.stop();

const sorted = [...rss].sort((a, b) => a - b);
const medianRss = sorted[Math.floor(sorted.length / 2)]!;
const endRss = rss.at(-1)!;
const verdict = (ok: boolean) => (ok ? "met" : "MISSED");
console.log(`\nsent ${sent.toLocaleString("en-US")} (${failed} sends failed and were not counted)`);
const lostCount = lost();
console.log(`lost (acknowledged, never consumed)  ${lostCount}  target 0 ${verdict(lostCount === 0)}`);
console.log(`consumed twice                ${duplicates}  target 0 ${verdict(duplicates === 0)}`);
console.log(`client connections lost       ${lostConnections}  target 0 ${verdict(lostConnections === 0)}`);
console.log(
  `broker RSS end vs median      ${endRss.toFixed(1)} / ${medianRss.toFixed(1)} MiB (peak ${sorted.at(-1)!.toFixed(1)})  target end ≤ median + ${RSS_DRIFT_MAX_MIB} ${verdict(endRss <= medianRss + RSS_DRIFT_MAX_MIB)}`,
);
process.exit(0);
