/**
 * Broker benchmark (issue #5): `rocketbun start` in a child process, driven over TCP by the raw
 * RemotingClient (SEND_MESSAGE_V2 / PULL_MESSAGE frames) and by ali-ons. 1 KiB bodies. Sync send with
 * one in flight (rate and latency percentiles), async with 128 in flight, batches of 32, backlog
 * drain, end-to-end latency at a fixed rate, SYNC_FLUSH with 64 senders, and the child's RSS idle
 * and with a backlog. Each rate is printed beside the raw echo ceiling of a same-size frame and the
 * raw disk append ceiling of the same bytes, both measured in this run.
 * Run: bun bench/broker.ts   (BENCH_DURATION_MS=3000, BENCH_BACKLOG=200000)
 */

import { join } from "node:path";
import { Message as AliMessage, Producer as AliProducer } from "ali-ons";
import pino from "pino";
import { encodeBatch } from "../src/protocol/message/index.ts";
import { encodeFrame, RemotingClient, RemotingCommand, RequestCode } from "../src/remoting/index.ts";
import { ALI_ONS_LOCAL } from "../test/support/ali-ons.ts";
import { spawnServer } from "./lib/child.ts";
import { rawEchoRate } from "./lib/load.ts";
import { printTable, progressSteps, type Row } from "./lib/report.ts";
import { BODY, createTopic, decodeRecords, ok, pullRequest, sendRequest } from "./lib/requests.ts";
import { startServer } from "./lib/start-server.ts";
import { benchDir, rawWrite } from "./store/raw.ts";

const durationMs = Number(process.env.BENCH_DURATION_MS ?? 3000);
const BACKLOG = Number(process.env.BENCH_BACKLOG ?? 200_000);
const QUEUES = 8;
const log = pino({ level: "warn" });

/** The number of records in a pull body, walked by their total-size fields. */
function countRecords(body: Uint8Array): number {
  const dv = new DataView(body.buffer, body.byteOffset, body.byteLength);
  let n = 0;
  for (let pos = 0; pos < body.length; pos += dv.getInt32(pos)) n++;
  return n;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? Number.NaN;
}

/** `inflight` loops each calling `call` until `ms` passed; returns completed calls/s after a warm-up. */
async function closedLoopRate(call: () => Promise<unknown>, inflight: number, ms: number): Promise<number> {
  const run = async (forMs: number) => {
    let done = 0;
    const start = performance.now();
    const end = start + forMs;
    await Promise.all(
      Array.from({ length: inflight }, async () => {
        while (performance.now() < end) {
          await call();
          done++;
        }
      }),
    );
    return (done * 1000) / (performance.now() - start);
  };
  await run(Math.min(300, ms / 4));
  return run(ms);
}

const target = (value: number, min: number, unit: string) =>
  `${unit} (issue target ≥${min.toLocaleString("en-US")}: ${value >= min ? "met" : "MISSED"})`;

const step = progressSteps("broker", 12);

// ---- ceilings measured in this run ----
const sendFrame = encodeFrame(sendRequest("BenchBroker", 0));
const echo = await spawnServer(join(import.meta.dir, "lib", "echo-server.ts"), ["raw"]);
const echo1 = step(
  "raw TCP echo, 1 in flight",
  await rawEchoRate(echo.port, sendFrame, 1, durationMs),
  "round trips/s",
);
const echo128 = step(
  "raw TCP echo, 128 in flight",
  await rawEchoRate(echo.port, sendFrame, 128, durationMs),
  "round trips/s",
);
await echo.stop();

// ---- ASYNC_FLUSH broker ----
const srv = await startServer();
const c = new RemotingClient({ name: "bench", log });
const addr = srv.brokerAddr;
await createTopic(c, addr, "BenchBroker", QUEUES);
await createTopic(c, addr, "BenchE2E", QUEUES);
// Idle: booted, topics created, nothing sent yet; let the boot's garbage settle first.
await Bun.sleep(1000);
const idleRss = await srv.rssMiB();

// The stored size of one bench record, for the disk ceiling in messages/s.
const first = await ok(c.invoke(addr, sendRequest("BenchBroker", 0)));
const probe = await ok(c.invoke(addr, pullRequest("BenchBroker", 0, Number(first.extFields!.queueOffset))));
const recordBytes = new DataView(probe.body!.buffer, probe.body!.byteOffset).getInt32(0);

const dir = await benchDir();
const diskN = 100_000;
const diskAsyncMBps = await rawWrite(join(dir.path, "raw-async"), {
  bytes: diskN * recordBytes,
  writes: Math.ceil((diskN * recordBytes) / 65536),
  syncs: 1,
});
const diskAsync = (diskAsyncMBps * 2 ** 20) / recordBytes;
step("raw disk append", diskAsyncMBps, "MB/s");
// SYNC_FLUSH with 64 senders: at best one fdatasync per 64 records (group commit).
const syncN = 64 * 400;
const diskSyncMBps = await rawWrite(join(dir.path, "raw-sync"), {
  bytes: syncN * recordBytes,
  writes: syncN / 64,
  syncs: syncN / 64,
});
const diskSync = (diskSyncMBps * 2 ** 20) / recordBytes;
step("raw disk append, an fdatasync per 64 records", diskSyncMBps, "MB/s");

// Sync send, one in flight, with latency per send.
let q = 0;
const latencies: number[] = [];
const send1 = await closedLoopRate(
  async () => {
    const t0 = performance.now();
    await ok(c.invoke(addr, sendRequest("BenchBroker", q++ % QUEUES)));
    latencies.push(performance.now() - t0);
  },
  1,
  durationMs,
);
latencies.sort((a, b) => a - b);
step("raw send, 1 in flight (ASYNC_FLUSH)", send1, "msgs/s", echo1);

const send128 = await closedLoopRate(
  () => ok(c.invoke(addr, sendRequest("BenchBroker", q++ % QUEUES))),
  128,
  durationMs,
);
step("raw send, 128 in flight", send128, "msgs/s", echo128);

const BATCH = 32;
const batchBody = encodeBatch(
  Array.from({ length: BATCH }, () => ({ flag: 0, body: BODY, properties: "TAGS\u0001bench\u0002" })),
);
const batchRate =
  BATCH *
  (await closedLoopRate(
    () => ok(c.invoke(addr, sendRequest("BenchBroker", q++ % QUEUES, batchBody, true))),
    8,
    durationMs,
  ));
step(`raw batch of ${BATCH}, 8 in flight`, batchRate, "msgs/s", diskAsync);

// ali-ons: one at a time and 128 in flight.
const ali = new AliProducer({
  ...ALI_ONS_LOCAL,
  nameSrv: srv.namesrvAddr,
  producerGroup: "BENCH_ALI",
});
await ali.ready();
const aliSend = async () => {
  const r = (await ali.send(new AliMessage("BenchBroker", "bench", Buffer.from(BODY)))) as {
    sendStatus: string;
  };
  if (r.sendStatus !== "SEND_OK") throw new Error(r.sendStatus);
};
const ali1 = step("ali-ons send, 1 in flight", await closedLoopRate(aliSend, 1, durationMs), "msgs/s", echo1);
const ali128 = step(
  "ali-ons send, 128 in flight",
  await closedLoopRate(aliSend, 128, durationMs),
  "msgs/s",
  echo128,
);
await ali.close();

// Backlog: top the topic up to BACKLOG messages with batches, then drain every queue from 0.
const maxOffsets = async () => {
  const out: number[] = [];
  for (let queueId = 0; queueId < QUEUES; queueId++) {
    const r = await c.invoke(
      addr,
      RemotingCommand.request(RequestCode.GET_MAX_OFFSET, { topic: "BenchBroker", queueId: String(queueId) }),
    );
    out.push(Number(r.extFields!.offset));
  }
  return out;
};
let stored = (await maxOffsets()).reduce((a, b) => a + b, 0);
await Promise.all(
  Array.from({ length: 8 }, async () => {
    while (stored < BACKLOG) {
      stored += BATCH;
      await ok(c.invoke(addr, sendRequest("BenchBroker", q++ % QUEUES, batchBody, true)));
    }
  }),
);
const ends = await maxOffsets();
const backlog = ends.reduce((a, b) => a + b, 0);
const backlogRss = await srv.rssMiB();
const d0 = performance.now();
let drained = 0;
await Promise.all(
  ends.map(async (end, queueId) => {
    for (let offset = 0; offset < end; ) {
      const r = await ok(c.invoke(addr, pullRequest("BenchBroker", queueId, offset)));
      drained += countRecords(r.body!);
      offset = Number(r.extFields!.nextBeginOffset);
    }
  }),
);
const drainSecs = (performance.now() - d0) / 1000;
const drainRate = drained / drainSecs;
step(`backlog drain, ${drained.toLocaleString("en-US")} msgs, pull 32`, drainRate, "msgs/s");
const afterDrainRss = await srv.rssMiB();

// End-to-end latency at a fixed rate: long-polling pull loops on every queue, a paced sender.
const E2E_RATE = 5000;
const e2e: number[] = [];
let e2eRunning = true;
const consumer = new RemotingClient({ name: "bench-consumer", log });
const pullers = Array.from({ length: QUEUES }, async (_, queueId) => {
  let offset = 0;
  while (e2eRunning) {
    const r = await consumer.invoke(addr, pullRequest("BenchE2E", queueId, offset, 1000), 5000);
    if (r.code === 0) {
      const now = performance.timeOrigin + performance.now();
      for (const rec of decodeRecords(r.body!)) {
        e2e.push(now - new DataView(rec.body.buffer, rec.body.byteOffset, 8).getFloat64(0));
      }
    }
    offset = Number(r.extFields?.nextBeginOffset ?? offset);
  }
});
const e2eBody = new Uint8Array(1024);
const e2eStart = performance.now();
let e2eSent = 0;
const pending: Promise<unknown>[] = [];
while (performance.now() - e2eStart < durationMs) {
  const due = Math.floor(((performance.now() - e2eStart) * E2E_RATE) / 1000);
  while (e2eSent < due) {
    const body = e2eBody.slice();
    new DataView(body.buffer).setFloat64(0, performance.timeOrigin + performance.now());
    pending.push(ok(c.invoke(addr, sendRequest("BenchE2E", e2eSent++ % QUEUES, body))));
  }
  await Bun.sleep(1);
}
await Promise.all(pending);
const e2eDeadline = performance.now() + 5000;
while (e2e.length < e2eSent && performance.now() < e2eDeadline) await Bun.sleep(5);
e2eRunning = false;
await Promise.all(pullers);
await consumer.shutdown();
e2e.sort((a, b) => a - b);
step(`e2e latency at ${E2E_RATE}/s p50`, percentile(e2e, 0.5), "ms");

await c.shutdown();
await srv.stop();

// ---- SYNC_FLUSH broker, 64 concurrent senders ----
const srvSync = await startServer({ brokerConf: { flushDiskType: "SYNC_FLUSH" } });
const cs = new RemotingClient({ name: "bench-sync", log });
await createTopic(cs, srvSync.brokerAddr, "BenchSync", QUEUES);
let qs = 0;
const sync64 = await closedLoopRate(
  () => ok(cs.invoke(srvSync.brokerAddr, sendRequest("BenchSync", qs++ % QUEUES))),
  64,
  durationMs,
);
step("SYNC_FLUSH raw send, 64 in flight", sync64, "msgs/s", diskSync);
await cs.shutdown();
await srvSync.stop();

const ms = (n: number) => Number(n.toFixed(3));
const rows: Row[] = [
  {
    name: "raw send, 1 in flight (ASYNC_FLUSH)",
    value: send1,
    ceiling: echo1,
    unit: target(send1, 15_000, "msgs/s vs echo"),
  },
  {
    name: "  latency p50 / p99 / p999 (ms)",
    value: ms(percentile(latencies, 0.5)),
    unit: `p99 ${ms(percentile(latencies, 0.99))}  p999 ${ms(percentile(latencies, 0.999))}`,
  },
  {
    name: "raw send, 128 in flight",
    value: send128,
    ceiling: echo128,
    unit: target(send128, 70_000, "msgs/s vs echo"),
  },
  {
    name: "raw send, 128 in flight vs disk",
    value: send128,
    ceiling: diskAsync,
    unit: "msgs/s vs raw disk append",
  },
  {
    name: `raw batch of ${BATCH}, 8 in flight`,
    value: batchRate,
    ceiling: diskAsync,
    unit: "msgs/s vs raw disk append",
  },
  { name: "ali-ons send, 1 in flight", value: ali1, ceiling: echo1, unit: "msgs/s vs echo" },
  { name: "ali-ons send, 128 in flight", value: ali128, ceiling: echo128, unit: "msgs/s vs echo" },
  {
    name: `backlog drain, ${backlog.toLocaleString("en-US")} msgs, pull 32`,
    value: drainRate,
    unit: target(drainRate, 100_000, `msgs/s (${drainSecs.toFixed(1)} s)`),
  },
  {
    name: `e2e latency at ${E2E_RATE}/s p50 (ms)`,
    value: ms(percentile(e2e, 0.5)),
    unit: `p99 ${ms(percentile(e2e, 0.99))}  p999 ${ms(percentile(e2e, 0.999))}  (${e2e.length}/${e2eSent} received)`,
  },
  {
    name: "SYNC_FLUSH raw send, 64 in flight",
    value: sync64,
    ceiling: diskSync,
    unit: target(sync64, 20_000, "msgs/s vs raw disk, 1 fdatasync per 64"),
  },
  {
    name: "RSS of start, idle (MiB)",
    value: idleRss,
    unit: `MiB (issue target ≤80: ${idleRss <= 80 ? "met" : "MISSED"})`,
  },
  {
    name: `RSS with ${backlog.toLocaleString("en-US")}-message backlog`,
    value: backlogRss,
    unit: `MiB (${afterDrainRss.toFixed(0)} after draining it)`,
  },
];
printTable(`broker (1 KiB bodies, stored record ${recordBytes} B, ${durationMs} ms per run)`, rows);
console.log(
  `ceilings: echo of a ${sendFrame.length}-byte frame 1/128 in flight ${Math.round(echo1)}/${Math.round(echo128)} round trips/s; ` +
    `raw disk ${diskAsyncMBps.toFixed(0)} MB/s sequential (${Math.round(diskAsync)} records/s), ` +
    `${diskSyncMBps.toFixed(0)} MB/s with an fdatasync every 64 records (${Math.round(diskSync)} records/s)`,
);
await dir[Symbol.asyncDispose]();
// ali-ons leaves timers behind after close(); the figures are printed, so end here.
process.exit(0);
