/**
 * The lease measures of the gateway benchmark (issue 19): HTTP receive + ack draining a backlog,
 * the same drain by the native SimpleConsumer (POP without HTTP), WS push under credit, and the
 * latency from an HTTP produce to its WS delivery at a fixed rate. Bun's fetch and WebSocket are
 * the load clients; each measure counts messages settled per second after a short warm-up.
 */
import type { Logger } from "pino";
import { createSimpleConsumer } from "../../src/client/index.ts";
import type { RemotingClient } from "../../src/remoting/index.ts";
import { type PacedLoadResult, pacedLoad, postRequest } from "./http-load.ts";
import { batchAckRequest, poppedCount, popRequest } from "./pop-requests.ts";
import { ok } from "./requests.ts";

const WARMUP_MS = 300;

/** Counts what `loop` settles once the warm-up is over; `loop` runs in `workers` copies until the end. */
async function measure(
  workers: number,
  durationMs: number,
  loop: (running: () => boolean, count: (n: number) => void) => Promise<void>,
): Promise<number> {
  let settled = 0;
  let counting = false;
  const end = performance.now() + WARMUP_MS + durationMs;
  const running = () => performance.now() < end;
  const count = (n: number) => {
    if (counting) settled += n;
  };
  const all = Promise.all(Array.from({ length: workers }, () => loop(running, count)));
  await Bun.sleep(WARMUP_MS);
  counting = true;
  const started = performance.now();
  await all;
  return (settled * 1000) / (performance.now() - started);
}

const json = (body: unknown): RequestInit => ({
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify(body),
});

/** HTTP receive of 32, then one ack request for the 32 handles, by `workers` loops at once. */
export function httpReceiveAck(
  gw: string,
  group: string,
  topic: string,
  workers: number,
  durationMs: number,
) {
  const base = `${gw}/v1/groups/${group}/topics/${topic}`;
  return measure(workers, durationMs, async (running, count) => {
    while (running()) {
      const r = await fetch(`${base}/receive`, json({ max: 32, waitMs: 1000, invisibleMs: 60_000 }));
      const { messages } = (await r.json()) as { messages: { receiptHandle: string }[] };
      if (messages.length === 0) continue;
      const a = await fetch(`${base}/ack`, json({ receiptHandles: messages.map((m) => m.receiptHandle) }));
      if (a.status !== 200) throw new Error(`ack answered ${a.status}: ${await a.text()}`);
      await a.arrayBuffer();
      count(messages.length);
    }
  });
}

/**
 * The broker's own fastest lease path, for a bound: raw POP_MESSAGE of 32 and one BATCH_ACK_MESSAGE
 * per batch (as the gateway's push acks), `workers` loops at once against the broker at `addr`.
 */
export function popBatchAckDrain(
  c: RemotingClient,
  addr: string,
  group: string,
  topic: string,
  workers: number,
  durationMs: number,
) {
  return measure(workers, durationMs, async (running, count) => {
    while (running()) {
      const r = await c.invoke(addr, popRequest(group, topic, 60_000), 10_000);
      if (r.code !== 0) continue;
      const n = poppedCount(r);
      await ok(c.invoke(addr, batchAckRequest(group, topic, r), 10_000));
      count(n);
    }
  });
}

/** The same drain with the native SimpleConsumer: receive 32, ack each, by `workers` loops at once. */
export async function popDrain(
  namesrvAddr: string,
  group: string,
  topic: string,
  workers: number,
  durationMs: number,
  log: Logger,
) {
  const consumer = await createSimpleConsumer({
    namesrvAddr,
    group,
    subscriptions: { [topic]: "*" },
    awaitDuration: 1000,
    invisibleDuration: 60_000,
    startFrom: "first",
    log,
  });
  try {
    return await measure(workers, durationMs, async (running, count) => {
      while (running()) {
        const got = await consumer.receive(32);
        await Promise.all(got.map((m) => consumer.ack(m)));
        count(got.length);
      }
    });
  } finally {
    await consumer.shutdown();
  }
}

interface Pushed {
  type: string;
  message?: { receiptHandle: string; body: string };
}

/**
 * One WebSocket subscriber holding `credit`: every `credit / 2` messages it acks them in one frame
 * and tops its credit up by as many, so the server never runs dry. `onMessage` sees each message.
 */
export async function wsSubscriber(
  url: string,
  subscribe: Record<string, unknown>,
  credit: number,
  onMessage: (body: string) => void,
): Promise<{ close(): void }> {
  const ws = new WebSocket(url);
  const handles: string[] = [];
  let id = 0;
  const half = Math.max(1, Math.floor(credit / 2));
  ws.onmessage = (e) => {
    const f = JSON.parse(String(e.data)) as Pushed;
    if (f.type === "error") throw new Error(`subscription error: ${String(e.data)}`);
    if (f.type !== "message" || !f.message) return;
    onMessage(f.message.body);
    handles.push(f.message.receiptHandle);
    if (handles.length >= half) {
      // An ack frame carries at most 64 handles.
      while (handles.length > 0)
        ws.send(JSON.stringify({ type: "ack", id: ++id, receiptHandles: handles.splice(0, 64) }));
      ws.send(JSON.stringify({ type: "credit", subscription: "s1", credit: half }));
    }
  };
  await new Promise<void>((resolve, reject) => {
    ws.onopen = () => resolve();
    ws.onerror = () => reject(new Error(`cannot open ${url}`));
  });
  ws.send(JSON.stringify({ type: "subscribe", ...subscribe, credit }));
  return { close: () => ws.close() };
}

/** A `message` frame as the gateway pushes one for a 1 KiB text body: what the echo ceiling echoes. */
const ECHO_FRAME = JSON.stringify({
  type: "message",
  subscription: "s1",
  message: {
    msgId: "7F0000010001000000000000000000000000",
    topic: "BenchGatewayLease",
    queueOffset: 0,
    body: "x".repeat(1024),
    bodyEncoding: "text",
    receiptHandle: `v1.${"h".repeat(120)}`,
    leaseExpiresAt: 0,
  },
});

/**
 * Messages per second a Bun WS echo server (lib/ws-echo.ts) sends back to one client keeping
 * `inflight` frames of the pushed size outstanding: issue 19's ceiling for WS push.
 */
export async function wsEchoRate(url: string, inflight: number, durationMs: number): Promise<number> {
  const ws = new WebSocket(url);
  let received = 0;
  ws.onmessage = () => {
    received++;
    ws.send(ECHO_FRAME);
  };
  await new Promise<void>((resolve, reject) => {
    ws.onopen = () => resolve();
    ws.onerror = () => reject(new Error(`cannot open ${url}`));
  });
  try {
    for (let i = 0; i < inflight; i++) ws.send(ECHO_FRAME);
    return await rateAfterWarmUp(() => received, durationMs);
  } finally {
    ws.close();
  }
}

/** How fast `count()` grows over `durationMs`, per second, once the warm-up has passed. */
async function rateAfterWarmUp(count: () => number, durationMs: number): Promise<number> {
  await Bun.sleep(WARMUP_MS);
  const from = count();
  const started = performance.now();
  await Bun.sleep(durationMs);
  return ((count() - from) * 1000) / (performance.now() - started);
}

/** Messages per second pushed to one subscriber with `credit`. */
export async function wsPushRate(
  url: string,
  subscribe: Record<string, unknown>,
  credit: number,
  durationMs: number,
): Promise<number> {
  let received = 0;
  const sub = await wsSubscriber(url, subscribe, credit, () => {
    received++;
  });
  try {
    return await rateAfterWarmUp(() => received, durationMs);
  } finally {
    sub.close();
  }
}

const now = () => performance.timeOrigin + performance.now();

/**
 * Latency from an HTTP produce to its WS delivery: `ratePerSec` produces, open loop (lib/http-load
 * pacedLoad over 64 keep-alive connections), each body the time it was sent; the subscriber notes
 * arrival. What the gateway answered per second is reported beside: a rate it cannot sustain shows.
 */
export async function produceToWsLatency(
  gw: string,
  group: string,
  topic: string,
  ratePerSec: number,
  durationMs: number,
): Promise<{ p50: number; p99: number; delivered: number; sent: number; producedPerSec: number }> {
  const latencies: number[] = [];
  // Only messages produced in the measured phase count: warm-up ones still arriving would make
  // more deliveries than sends and add their latencies.
  let measuredFrom = Number.POSITIVE_INFINITY;
  const sub = await wsSubscriber(
    `${gw.replace("http", "ws")}/v1/ws`,
    { group, topic, invisibleMs: 60_000 },
    1024,
    (body) => {
      const t = Number(JSON.parse(body).t);
      if (t >= measuredFrom) latencies.push(now() - t);
    },
  );
  const port = Number(new URL(gw).port);
  const path = `/v1/topics/${topic}/messages`;
  const request = () =>
    postRequest(
      `127.0.0.1:${port}`,
      path,
      "application/json",
      utf8.encode(JSON.stringify({ body: JSON.stringify({ t: now() }) })),
    );
  let result: PacedLoadResult;
  let ms: number;
  try {
    await pacedLoad(port, request, PACED_CONNECTIONS, ratePerSec, WARMUP_MS * 2, 201);
    measuredFrom = now();
    const started = performance.now();
    result = await pacedLoad(port, request, PACED_CONNECTIONS, ratePerSec, durationMs, 201);
    ms = performance.now() - started;
    await Bun.sleep(200); // the last deliveries
  } finally {
    sub.close();
  }
  const producedPerSec = (result.answered * 1000) / ms;
  const sorted = latencies.sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
  return { p50: at(0.5), p99: at(0.99), delivered: sorted.length, sent: result.sent, producedPerSec };
}

const utf8 = new TextEncoder();
/** Keep-alive connections of the paced producer: what the 64-connection produce measure uses. */
const PACED_CONNECTIONS = 64;
