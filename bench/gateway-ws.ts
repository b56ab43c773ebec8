/**
 * The WS push measure of the gateway benchmark (issue 19) alone, for profiling and A/B runs: a
 * backlog of 1 KiB messages produced by the native client, then per round issue 19's ceiling (a Bun
 * WS echo, lib/ws-echo.ts), the stricter Bun WS pusher (lib/ws-ceiling.ts) and the gateway pushing
 * to one subscriber with credit 128, beside the server's CPU per pushed message (Linux /proc), which swings far less than rates on a shared machine.
 * Run: bun bench/gateway-ws.ts   (BENCH_DURATION_MS=3000, BENCH_ROUNDS=3, BENCH_BACKLOG=200000;
 * BENCH_SERVER_CPU_PROF=DIR writes the server's CPU profile there, gateway-ws.md, when it stops)
 */
import pino from "pino";
import { createProducer } from "../src/client/index.ts";
import { spawnServer } from "./lib/child.ts";
import { wsEchoRate, wsPushRate } from "./lib/gateway-lease.ts";
import { createGatewayTopic, waitGatewayReady } from "./lib/gateway-topics.ts";
import { pinApart } from "./lib/pin.ts";
import { cpuProfileLauncher, processUsage } from "./lib/proc-cpu.ts";
import { printTable } from "./lib/report.ts";
import { startServer } from "./lib/start-server.ts";

const durationMs = Number(process.env.BENCH_DURATION_MS ?? 3000);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
// Each round drains the backlog from its start in a group of its own: it must outlast a round
// (warm-up + BENCH_DURATION_MS at the push rate), or the rate measured is the backlog's size.
const backlog = Number(process.env.BENCH_BACKLOG ?? 200_000);
const profDir = process.env.BENCH_SERVER_CPU_PROF;
const TOPIC = "BenchGatewayLease";
const quiet = pino({ level: "warn" });
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

const srv = await startServer({
  name: "rocketbun-bench-gateway-ws",
  env: { ...process.env, ROCKETBUN_LOG_LEVEL: "warn" },
  ...(profDir ? { launcher: cpuProfileLauncher(profDir, "gateway-ws") } : {}),
});
const wsCeiling = await spawnServer(new URL("./lib/ws-ceiling.ts", import.meta.url).pathname);
const wsEcho = await spawnServer(new URL("./lib/ws-echo.ts", import.meta.url).pathname);
try {
  await waitGatewayReady(srv.gatewayUrl);
  await createGatewayTopic(srv.gatewayUrl, TOPIC);
  const producer = await createProducer({ namesrvAddr: srv.namesrvAddr, group: "BENCH_GW_WS_P", log: quiet });
  try {
    const msg = { topic: TOPIC, body: "x".repeat(1024), tags: "bench" };
    for (let n = 0; n < backlog; n += 64)
      await Promise.all(Array.from({ length: 64 }, () => producer.send(msg)));
  } finally {
    await producer.shutdown();
  }
  const pinning = pinApart(srv.pid);
  pinApart(wsCeiling.proc.pid);
  pinApart(wsEcho.proc.pid);
  const wsUrl = `${srv.gatewayUrl.replace("http", "ws")}/v1/ws`;
  const ceilingUrl = `ws://127.0.0.1:${wsCeiling.port}/`;
  const rates: number[] = [];
  const ceilings: number[] = [];
  const ratios: number[] = [];
  const echoes: number[] = [];
  const echoRatios: number[] = [];
  const cpuPerMsg: number[] = [];
  const sysPerMsg: number[] = [];
  const faultsPerMsg: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const subscribe = { group: `BENCH_GW_WS${round}`, topic: TOPIC, invisibleMs: 60_000 };
    const echo = await wsEchoRate(`ws://127.0.0.1:${wsEcho.port}/`, 128, durationMs);
    const c = await wsPushRate(ceilingUrl, subscribe, 128, durationMs);
    const u0 = processUsage(srv.pid);
    const t0 = performance.now();
    const g = await wsPushRate(wsUrl, subscribe, 128, durationMs);
    // The warm-up's messages are pushed too: CPU over the whole run, per message at the measured rate.
    const ms = performance.now() - t0;
    const u = processUsage(srv.pid);
    const pushed = (g * ms) / 1000;
    cpuPerMsg.push(((u.userMs + u.systemMs - u0.userMs - u0.systemMs) * 1000) / pushed);
    sysPerMsg.push(((u.systemMs - u0.systemMs) * 1000) / pushed);
    faultsPerMsg.push((u.minorFaults - u0.minorFaults) / pushed);
    rates.push(g);
    ceilings.push(c);
    ratios.push(g / c);
    echoes.push(echo);
    echoRatios.push(g / echo);
  }
  printTable(`Gateway WS push (${pinning}; ${rounds} rounds of ${durationMs} ms)`, [
    {
      name: "WS push 1 KiB, 1 subscriber, credit 128",
      value: median(rates),
      ceiling: median(echoes),
      ratio: median(echoRatios),
      target: 0.5,
      unit: "msg/s (ceiling: Bun WS echo, 128 in flight)",
    },
    {
      name: "  the same beside a Bun WS server pushing its frames",
      value: median(rates),
      ceiling: median(ceilings),
      ratio: median(ratios),
      unit: "msg/s",
    },
    { name: "server CPU per WS-pushed message", value: median(cpuPerMsg), unit: "µs/msg" },
    // Kernel time and minor faults: memory the allocator returns to the system and faults back in
    // shows here (see gateway/README.md, "WebSocket push cost").
    { name: "  of which system (kernel) CPU", value: median(sysPerMsg), unit: "µs/msg" },
    {
      name: "server minor page faults per WS-pushed message",
      value: median(faultsPerMsg),
      unit: "faults/msg",
    },
  ]);
} finally {
  await wsCeiling.stop();
  await wsEcho.stop();
  await srv.stop();
}
