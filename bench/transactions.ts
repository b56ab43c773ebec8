/**
 * Transaction benchmark (issue #16): `rocketbun start` in a child process, the native client here.
 * 1. 1 KiB transactional sends committed by the local transaction, one at a time and 128 in
 *    flight, beside plain sends of the same bodies in the same run (rounds in ABBA order, median).
 *    A transactional round ends when every commit is stored in the topic (END_TRANSACTION is
 *    oneway: the producer is done before the broker is), so both sides count stored messages.
 * 2. Check-back: BENCH_TX_PENDING transactions left unknown, then one check round
 *    (transactionCheckInterval BENCH_TX_CHECK_INTERVAL_MS) asks the producer about each: checks/s
 *    from the first check to the last, and whether all came within one interval.
 * Beside the rates: the server's and this client's CPU µs per message, which explain the ratio.
 * A reference side (BENCH_TX_PAIR=0 leaves it out): two plain sends one after the other per call
 * (a transaction's two requests without the transaction), whose rate and CPU per call are the floor
 * a transaction's two requests set by construction.
 * Run: bun bench/transactions.ts   (BENCH_DURATION_MS=2000 BENCH_ROUNDS=5 BENCH_TX_PENDING=10000;
 *      BENCH_TX_PENDING=0 skips the check-back; BENCH_INFLIGHT=1,128; BENCH_SERVER_CPU_PROF=<dir>
 *      runs the server under --cpu-prof-md)
 */
import pino from "pino";
import {
  createProducer,
  createTransactionProducer,
  type LocalTransactionState,
  type Message,
} from "../src/client/index.ts";
import { RemotingClient, RemotingCommand, RequestCode } from "../src/remoting/index.ts";
import { runSlice } from "./lib/load.ts";
import { cpuProfileLauncher, ownCpuMicros, processCpuMs } from "./lib/proc-cpu.ts";
import { printProgress, printTable, type Row } from "./lib/report.ts";
import { BODY, createTopic } from "./lib/requests.ts";
import { startServer } from "./lib/start-server.ts";

const DURATION_MS = Number(process.env.BENCH_DURATION_MS ?? 2000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const PENDING = Number(process.env.BENCH_TX_PENDING ?? 10_000);
const CHECK_INTERVAL_MS = Number(process.env.BENCH_TX_CHECK_INTERVAL_MS ?? 10_000);
const INFLIGHTS = (process.env.BENCH_INFLIGHT ?? "1,128").split(",").map(Number);
const SERVER_CPU_PROF = process.env.BENCH_SERVER_CPU_PROF;
const PAIR = process.env.BENCH_TX_PAIR !== "0";
const QUEUES = 8;
const log = pino({ level: "silent" });

const srv = await startServer({
  name: "rocketbun-bench-tx",
  brokerConf: {
    transactionCheckInterval: String(CHECK_INTERVAL_MS),
    transactionTimeOut: "1000",
    // Every send waits for its flush only in the store's default async mode: as plain sends do.
  },
  ...(SERVER_CPU_PROF ? { launcher: cpuProfileLauncher(SERVER_CPU_PROF, "transactions") } : {}),
});
const raw = new RemotingClient({ name: "bench-tx", log });
let checkState: LocalTransactionState = "COMMIT_MESSAGE";
let executeState: LocalTransactionState = "COMMIT_MESSAGE";
const checkTimes: number[] = [];
try {
  for (const t of ["BenchTxPlain", "BenchTx", "BenchTxPending", "BenchTxPair"])
    await createTopic(raw, srv.brokerAddr, t, QUEUES);
  const plain = await createProducer({ namesrvAddr: srv.namesrvAddr, log, group: "BENCH_TX_PLAIN" });
  const tx = await createTransactionProducer({
    namesrvAddr: srv.namesrvAddr,
    log,
    group: "BENCH_TX",
    executeLocalTransaction: () => executeState,
    checkLocalTransaction: () => {
      checkTimes.push(performance.now());
      return checkState;
    },
  });
  const plainMsg: Message = { topic: "BenchTxPlain", body: BODY };
  const txMsg: Message = { topic: "BenchTx", body: BODY };
  const pairMsg: Message = { topic: "BenchTxPair", body: BODY };

  const stored = async (topic: string) => {
    let sum = 0;
    for (let q = 0; q < QUEUES; q++) {
      const r = await raw.invoke(
        srv.brokerAddr,
        RemotingCommand.request(RequestCode.GET_MAX_OFFSET, { topic, queueId: String(q) }),
      );
      sum += Number(r.extFields?.offset ?? 0);
    }
    return sum;
  };
  /** CPU ms the server process has used (Linux /proc; clock ticks of 10 ms). */
  const serverCpuMs = () => processCpuMs(srv.pid);
  const cpu = new Map<string, number[]>();
  const clientCpu = new Map<string, number[]>();
  /**
   * Calls per second: calls for DURATION_MS, then until the topic holds all `perCall` messages of
   * each. CPU is kept per call.
   */
  const measure = async (topic: string, send: () => Promise<unknown>, inflight: number, perCall = 1) => {
    const before = await stored(topic);
    const cpuBefore = serverCpuMs();
    const ownBefore = ownCpuMicros();
    const start = performance.now();
    const { calls } = await runSlice(send, inflight, DURATION_MS);
    const ownMicros = ownCpuMicros() - ownBefore;
    while ((await stored(topic)) - before < calls * perCall) await Bun.sleep(1);
    const rate = (calls * 1000) / (performance.now() - start);
    const key = `${topic}/${inflight}`;
    cpu.set(key, [...(cpu.get(key) ?? []), ((serverCpuMs() - cpuBefore) * 1000) / calls]);
    clientCpu.set(key, [...(clientCpu.get(key) ?? []), ownMicros / calls]);
    return rate;
  };
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

  const rows: Row[] = [];
  for (const inflight of INFLIGHTS) {
    const plainRates: number[] = [];
    const txRates: number[] = [];
    const ratios: number[] = [];
    const pairRatios: number[] = [];
    const pairRates: number[] = [];
    await measure("BenchTx", () => tx.sendMessageInTransaction(txMsg), inflight); // warm-up
    for (let r = 0; r < ROUNDS; r++) {
      // ABBA: on a shared machine, speed drifts within seconds; alternate who goes first.
      const plainSide = () => measure("BenchTxPlain", () => plain.send(plainMsg), inflight);
      const txSide = () => measure("BenchTx", () => tx.sendMessageInTransaction(txMsg), inflight);
      let p: number;
      let t: number;
      if (r % 2 === 0) {
        p = await plainSide();
        t = await txSide();
      } else {
        t = await txSide();
        p = await plainSide();
      }
      if (PAIR) {
        const pairSend = () => plain.send(pairMsg).then(() => plain.send(pairMsg));
        const pair = await measure("BenchTxPair", pairSend, inflight, 2);
        pairRates.push(pair);
        pairRatios.push(pair / p);
      }
      plainRates.push(p);
      txRates.push(t);
      ratios.push(t / p);
      printProgress({
        bench: "transactions",
        round: r + 1,
        rounds: ROUNDS,
        name: `transactional send + commit, ${inflight} in flight`,
        value: t,
        unit: "msgs/s",
        ceiling: p,
      });
    }
    rows.push({ name: `plain send, ${inflight} in flight`, value: median(plainRates), unit: "msgs/s" });
    rows.push({
      name: `transactional send + commit, ${inflight} in flight`,
      value: median(txRates),
      ceiling: median(plainRates),
      ratio: median(ratios),
      target: 0.5,
      unit: "msgs/s",
    });
    rows.push({
      name: `  server CPU per plain send, ${inflight} in flight`,
      value: median(cpu.get(`BenchTxPlain/${inflight}`)!),
      unit: "µs",
    });
    rows.push({
      name: `  server CPU per transaction, ${inflight} in flight`,
      value: median(cpu.get(`BenchTx/${inflight}`)!),
      unit: "µs",
    });
    rows.push({
      name: `  client CPU per plain send, ${inflight} in flight`,
      value: median(clientCpu.get(`BenchTxPlain/${inflight}`)!),
      unit: "µs",
    });
    rows.push({
      name: `  client CPU per transaction, ${inflight} in flight`,
      value: median(clientCpu.get(`BenchTx/${inflight}`)!),
      unit: "µs",
    });
    if (PAIR) {
      // The bound a transaction's two requests set: each call is two plain sends, one after the
      // other, so its rate against plain sends says what 0.5 asks of the transaction's own work.
      rows.push({
        name: `  reference: 2 plain sends in a row per call, ${inflight} in flight`,
        value: median(pairRates),
        ceiling: median(plainRates),
        ratio: median(pairRatios),
        unit: "calls/s",
      });
      rows.push({
        name: `  server CPU per 2 sends in a row, ${inflight} in flight`,
        value: median(cpu.get(`BenchTxPair/${inflight}`)!),
        unit: "µs",
      });
      rows.push({
        name: `  client CPU per 2 sends in a row, ${inflight} in flight`,
        value: median(clientCpu.get(`BenchTxPair/${inflight}`)!),
        unit: "µs",
      });
    }
  }

  // Check-back: PENDING transactions left unknown, then answered "commit" when checked.
  if (PENDING > 0) await checkBack(rows);
  printTable("transactions: 1 KiB bodies, commit", rows);
  await tx.shutdown();
  await plain.shutdown();

  async function checkBack(rows: Row[]): Promise<void> {
    executeState = "UNKNOW";
    checkState = "COMMIT_MESSAGE";
    const pendingMsg: Message = { topic: "BenchTxPending", body: BODY };
    let sent = 0;
    await Promise.all(
      Array.from({ length: 128 }, async () => {
        while (sent < PENDING) {
          sent++;
          await tx.sendMessageInTransaction(pendingMsg);
        }
      }),
    );
    checkTimes.length = 0;
    const sentAt = performance.now();
    while ((await stored("BenchTxPending")) < PENDING) await Bun.sleep(5);
    const first = checkTimes[0]!;
    const last = checkTimes.at(-1)!;
    const checks = `check-back: ${PENDING} unknown, checks answered`;
    const checkRate = (checkTimes.length * 1000) / Math.max(1, last - first);
    printProgress({
      bench: "transactions",
      round: 1,
      rounds: 1,
      name: checks,
      value: checkRate,
      unit: "checks/s",
    });
    rows.push({ name: checks, value: checkRate, unit: "checks/s" });
    rows.push({
      name: "check-back: first to last check",
      value: last - first,
      ceiling: CHECK_INTERVAL_MS,
      unit: `ms (all within one ${CHECK_INTERVAL_MS} ms interval: ${last - first < CHECK_INTERVAL_MS})`,
    });
    rows.push({
      name: "check-back: sent → all committed by checks",
      value: performance.now() - sentAt,
      unit: "ms",
    });
  }
} finally {
  await raw.shutdown();
  await srv.stop();
}
