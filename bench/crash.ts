/**
 * Crash rounds (issue #12): `rocketbun start` takes sends (64 in flight) while a consumer pulls
 * every queue; the server is killed with SIGKILL at a random moment and started again on the
 * same home. Every acknowledged message must read back at the queue offset it was acknowledged
 * with, and every consumed offset must still name the message consumed. 20 rounds per flush mode.
 * Run: npm run bench -- crash   (BENCH_CRASH_ROUNDS=20)
 */
import pino from "pino";
import { RemotingClient } from "../src/remoting/index.ts";
import { rng } from "../test/crash/crash-check.ts";
import { printProgress } from "./lib/report.ts";
import { createTopic, decodeRecords, pullRequest, sendRequest } from "./lib/requests.ts";
import { startServer } from "./lib/start-server.ts";

const ROUNDS = Number(process.env.BENCH_CRASH_ROUNDS ?? 20);
const QUEUES = 4;
const IN_FLIGHT = 64;
const TOPIC = "BenchCrash";
const log = pino({ level: "silent" });

const text = new TextEncoder();
const bodyOf = (round: number, seq: number) => `round ${round} message ${seq} ${"x".repeat(seq % 900)}`;
/** `queueId/queueOffset` → body: what the broker acknowledged, and what the consumer was given. */
type Ledger = Map<string, string>;

interface RoundResult {
  acked: number;
  consumed: number;
  lost: number;
  renamed: number;
}

async function round(
  srv: Awaited<ReturnType<typeof startServer>>,
  r: number,
  killAfterMs: number,
): Promise<RoundResult> {
  const client = new RemotingClient({ name: "bench-crash", log });
  const addr = srv.brokerAddr;
  await createTopic(client, addr, TOPIC, QUEUES);
  const start = await Promise.all(
    Array.from({ length: QUEUES }, async (_, q) => {
      const res = await client.invoke(addr, pullRequest(TOPIC, q, 0));
      return Number(res.extFields?.maxOffset ?? 0);
    }),
  );
  const acked: Ledger = new Map();
  const consumed: Ledger = new Map();
  let running = true;
  let seq = 0;
  const senders = Array.from({ length: IN_FLIGHT }, async () => {
    while (running) {
      const s = seq++;
      const q = s % QUEUES;
      const body = bodyOf(r, s);
      try {
        const res = await client.invoke(addr, sendRequest(TOPIC, q, text.encode(body)), 3000);
        if (res.code === 0) acked.set(`${q}/${res.extFields!.queueOffset}`, body);
      } catch {
        // The connection died with the server: this send was never acknowledged.
      }
    }
  });
  const pullers = Array.from({ length: QUEUES }, async (_, q) => {
    let offset = start[q]!;
    while (running) {
      try {
        const res = await client.invoke(addr, pullRequest(TOPIC, q, offset, 200), 3000);
        if (res.code === 0 && res.body) {
          for (const m of decodeRecords(res.body)) {
            consumed.set(`${q}/${m.queueOffset}`, new TextDecoder().decode(m.body));
          }
        }
        offset = Number(res.extFields?.nextBeginOffset ?? offset);
      } catch {
        if (!running) return;
      }
    }
  });
  await Bun.sleep(killAfterMs);
  const killed = srv.restart("SIGKILL");
  running = false;
  await Promise.all([...senders, ...pullers]);
  await killed;
  await client.shutdown();

  // Read every queue back after the restart.
  const reader = new RemotingClient({ name: "bench-crash-reader", log });
  const stored: Ledger = new Map();
  for (let q = 0; q < QUEUES; q++) {
    for (let offset = start[q]!; ; ) {
      const res = await reader.invoke(addr, pullRequest(TOPIC, q, offset), 5000);
      if (res.code !== 0 || !res.body) break;
      for (const m of decodeRecords(res.body))
        stored.set(`${q}/${m.queueOffset}`, new TextDecoder().decode(m.body));
      offset = Number(res.extFields!.nextBeginOffset);
    }
  }
  await reader.shutdown();
  let lost = 0;
  for (const [at, body] of acked) if (stored.get(at) !== body) lost++;
  let renamed = 0;
  for (const [at, body] of consumed) if (stored.get(at) !== body) renamed++;
  return { acked: acked.size, consumed: consumed.size, lost, renamed };
}

const rows: string[] = [];
let missed = 0;
for (const flushDiskType of ["ASYNC_FLUSH", "SYNC_FLUSH"] as const) {
  const srv = await startServer({ brokerConf: { flushDiskType }, name: "rocketbun-bench-crash" });
  const random = rng(flushDiskType === "ASYNC_FLUSH" ? 12 : 21);
  const total: RoundResult = { acked: 0, consumed: 0, lost: 0, renamed: 0 };
  const t0 = performance.now();
  for (let r = 0; r < ROUNDS; r++) {
    const res = await round(srv, r, 200 + Math.floor(random() * 1300));
    for (const k of Object.keys(total) as (keyof RoundResult)[]) total[k] += res[k];
    printProgress({
      bench: "crash",
      round: r + 1,
      rounds: ROUNDS,
      name: `${flushDiskType}, acknowledged then SIGKILL`,
      value: res.acked,
      unit: "msgs",
      note: `${res.lost} lost, ${res.consumed} consumed, ${res.renamed} renamed`,
    });
  }
  await srv.stop();
  const ok = total.lost === 0 && total.renamed === 0;
  if (!ok) missed++;
  const secs = ((performance.now() - t0) / 1000).toFixed(0);
  rows.push(
    [
      `${flushDiskType} ${ROUNDS} rounds (${secs} s)`.padEnd(30),
      total.acked.toLocaleString("en-US").padStart(10),
      String(total.lost).padStart(6),
      total.consumed.toLocaleString("en-US").padStart(10),
      String(total.renamed).padStart(8),
      `  0 lost, 0 renamed: ${ok ? "met" : "MISSED"}`,
    ].join(" "),
  );
}
console.log(
  "\n## crash (rocketbun start: SIGKILL under load, restart on the same home, read everything back)",
);
console.log(
  `${"flush mode".padEnd(30)} ${"acked".padStart(10)} ${"lost".padStart(6)} ${"consumed".padStart(10)} ${"renamed".padStart(8)}  target`,
);
for (const row of rows) console.log(row);
if (missed > 0) process.exitCode = 1;
