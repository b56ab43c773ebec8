/**
 * Gateway benchmark (issue 19): HTTP produce of 1 KiB JSON messages through `rocketbun start`
 * (gateway → broker in process, stored and acknowledged), with 1 and 64 keep-alive connections,
 * each beside its ceiling measured in the same run: Bun.serve with a trivial Hono handler that reads
 * the body and answers 200. Target: ≥ 0.6 of the ceiling. Rounds alternate ceiling and gateway;
 * the ratio reported is the median of the per-round ratios. The load client is raw HTTP/1.1 over
 * Bun.connect in this process, pinned apart from the server (see lib/pin.ts). For scale, the same
 * messages sent by the native client over TCP (1 and 64 in flight) are printed too: what the broker
 * itself takes per message, which the trivial ceiling does not pay.
 * Run: bun bench/gateway.ts   (BENCH_DURATION_MS=3000, BENCH_ROUNDS=3)
 */
import pino from "pino";
import { createProducer } from "../src/client/index.ts";
import { spawnServer } from "./lib/child.ts";
import { httpLoad, postRequest } from "./lib/http-load.ts";
import { runSlice } from "./lib/load.ts";
import { pinApart } from "./lib/pin.ts";
import { printTable, type Row } from "./lib/report.ts";
import { startServer } from "./lib/start-server.ts";

const durationMs = Number(process.env.BENCH_DURATION_MS ?? 3000);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const TOPIC = "BenchGateway";
const body = new TextEncoder().encode(JSON.stringify({ body: "x".repeat(1024), tags: "bench" }));

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

const srv = await startServer({
  name: "rocketbun-bench-gateway",
  env: { ...process.env, ROCKETBUN_LOG_LEVEL: "warn" },
});
const ceiling = await spawnServer(new URL("./lib/hono-ceiling.ts", import.meta.url).pathname);
try {
  const gwPort = Number(new URL(srv.gatewayUrl).port);
  for (;;) {
    const r = await fetch(`${srv.gatewayUrl}/readyz`).catch(() => null);
    if (r?.ok) break;
    await Bun.sleep(20);
  }
  const created = await fetch(`${srv.gatewayUrl}/v1/topics`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ topic: TOPIC, queues: 8 }),
  });
  if (created.status !== 201) throw new Error(`topic not created: ${created.status} ${await created.text()}`);
  for (;;) {
    const r = await fetch(`${srv.gatewayUrl}/v1/topics/${TOPIC}/route`);
    if (r.ok) break;
    await Bun.sleep(20);
  }
  const pinning = pinApart(srv.pid);
  pinApart(ceiling.proc.pid);
  const path = `/v1/topics/${TOPIC}/messages`;
  const gwRequest = postRequest(`127.0.0.1:${gwPort}`, path, "application/json", body);
  const ceilRequest = postRequest(`127.0.0.1:${ceiling.port}`, path, "application/json", body);
  const rows: Row[] = [];
  for (const connections of [1, 64]) {
    const gw: number[] = [];
    const ceil: number[] = [];
    const ratios: number[] = [];
    for (let round = 0; round < rounds; round++) {
      const c = await httpLoad(ceiling.port, ceilRequest, connections, durationMs, 200);
      const g = await httpLoad(gwPort, gwRequest, connections, durationMs, 201);
      if (g.unexpected > 0) throw new Error(`gateway answered ${g.unexpected} non-201: ${g.firstUnexpected}`);
      gw.push(g.rate);
      ceil.push(c.rate);
      ratios.push(g.rate / c.rate);
    }
    rows.push({
      name: `HTTP produce 1 KiB, ${connections} connection${connections > 1 ? "s" : ""}`,
      value: median(gw),
      ceiling: median(ceil),
      ratio: median(ratios),
      target: 0.6,
      unit: "req/s",
    });
  }
  const producer = await createProducer({
    namesrvAddr: srv.namesrvAddr,
    group: "BENCH_GW_NATIVE",
    log: pino({ level: "warn" }),
  });
  try {
    const msg = { topic: TOPIC, body: "x".repeat(1024), tags: "bench" };
    for (const inflight of [1, 64]) {
      await runSlice(() => producer.send(msg), inflight, Math.min(500, durationMs / 4));
      const { calls, ms } = await runSlice(() => producer.send(msg), inflight, durationMs);
      rows.push({
        name: `reference: native client send over TCP, ${inflight} in flight`,
        value: (calls * 1000) / ms,
        unit: "msg/s",
      });
    }
  } finally {
    await producer.shutdown();
  }
  printTable(`Gateway (${pinning}; ${rounds} rounds of ${durationMs} ms)`, rows);
} finally {
  await ceiling.stop();
  await srv.stop();
}
