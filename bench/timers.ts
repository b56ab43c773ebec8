/**
 * Timer benchmark (issue #15): `rocketbun start` in a child process. Schedules BENCH_TIMERS timer
 * messages (TIMER_DELIVER_MS, 100-byte bodies, 256 sends in flight) due at random moments over a
 * 60 s window that opens once scheduling should be done, and measures: the scheduling rate beside
 * a plain send rate of the same bodies in the same run; the child's RSS idle and with every timer
 * pending; delivery lateness (store time of the delivered copy minus its due time) p50/p99/max;
 * and, in a second phase, BENCH_BURST timers due at one instant, delivered at how many per second.
 * Run: bun bench/timers.ts   (BENCH_TIMERS=1000000 BENCH_WINDOW_MS=60000 BENCH_BURST=200000)
 */
import pino from "pino";
import { encodeProperties, MessageConst } from "../src/protocol/message/index.ts";
import { RemotingClient, RemotingCommand, RequestCode } from "../src/remoting/index.ts";
import { closedLoop } from "./lib/load.ts";
import { printTable, progressSteps, type Row } from "./lib/report.ts";
import { createTopic, decodeRecords, ok, pullRequest, sendRequest } from "./lib/requests.ts";
import { startServer } from "./lib/start-server.ts";

const TIMERS = Number(process.env.BENCH_TIMERS ?? 1_000_000);
const WINDOW_MS = Number(process.env.BENCH_WINDOW_MS ?? 60_000);
const BURST = Number(process.env.BENCH_BURST ?? 200_000);
const INFLIGHT = 256;
const QUEUES = 8;
const BODY = new Uint8Array(100).fill(0x74);
const log = pino({ level: "warn" });

const percentile = (sorted: Float64Array, p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;

/** A SEND_MESSAGE_V2 of a 100-byte body due at `due` (epoch ms). */
function timerRequest(topic: string, queueId: number, due: number): RemotingCommand {
  const req = sendRequest(topic, queueId, BODY);
  req.extFields!.i = encodeProperties(new Map([[MessageConst.TIMER_DELIVER_MS, String(due)]]));
  return req;
}

/** Sends `n` requests with `inflight` outstanding; resolves to sends per second. */
async function sendAll(c: RemotingClient, addr: string, n: number, make: (i: number) => RemotingCommand) {
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: INFLIGHT }, async () => {
      for (let i = next++; i < n; i = next++) await ok(c.invoke(addr, make(i)));
    }),
  );
  return (n * 1000) / (performance.now() - start);
}

/**
 * Long-polls every queue of `topic` until `n` records arrived; for each, lateness = store time −
 * TIMER_DELIVER_MS. Resolves to the latenesses and the first and last store times.
 */
async function collect(c: RemotingClient, addr: string, topic: string, n: number, from: number[]) {
  const lateness = new Float64Array(n);
  let got = 0;
  let first = Number.POSITIVE_INFINITY;
  let last = 0;
  await Promise.all(
    from.map(async (start, queueId) => {
      let offset = start;
      while (got < n) {
        const r = await c.invoke(addr, pullRequest(topic, queueId, offset, 1000), 5000);
        if (r.code === 0) {
          for (const rec of decodeRecords(r.body!)) {
            const due = Number(rec.properties.get(MessageConst.TIMER_DELIVER_MS));
            if (got < n) lateness[got++] = rec.storeTimestamp - due;
            first = Math.min(first, rec.storeTimestamp);
            last = Math.max(last, rec.storeTimestamp);
          }
        }
        offset = Number(r.extFields?.nextBeginOffset ?? offset);
      }
    }),
  );
  return { lateness: lateness.sort(), first, last };
}

/** Waits until the timer service has read its queue to the end (runtime info timerOffsetBehind 0). */
async function indexed(c: RemotingClient, addr: string): Promise<void> {
  for (;;) {
    const r = await ok(c.invoke(addr, RemotingCommand.request(RequestCode.GET_BROKER_RUNTIME_INFO)));
    const table = JSON.parse(new TextDecoder().decode(r.body!)).table as Record<string, string>;
    if (table.timerOffsetBehind === "0") return;
    await Bun.sleep(10);
  }
}

const srv = await startServer({ name: "bench-timers" });
const c = new RemotingClient({ name: "bench-timers", log });
const addr = srv.brokerAddr;
await createTopic(c, addr, "BenchTimer", QUEUES);
await createTopic(c, addr, "BenchBurst", QUEUES);
await createTopic(c, addr, "BenchPlain", QUEUES);
await Bun.sleep(1000);
const idleRss = await srv.rssMiB();

const step = progressSteps("timers", 5);
// Plain sends of the same body, the ceiling of the scheduling rate.
let q = 0;
const plainRate = step(
  "plain send, 256 in flight (100 B)",
  await closedLoop(() => ok(c.invoke(addr, sendRequest("BenchPlain", q++ % QUEUES, BODY))), INFLIGHT, 3000),
  "msgs/s",
);

// Phase 1: TIMERS timers over a window opening once they should all be scheduled.
// Scheduling runs at about 0.7 of plain sends: open the window a little after it should be done.
const lead = Math.max(5000, Math.ceil((TIMERS / Math.max(plainRate * 0.55, 1)) * 1000) + 2000);
const windowStart = Date.now() + lead;
const scheduleRate = await sendAll(c, addr, TIMERS, (i) =>
  timerRequest("BenchTimer", i % QUEUES, windowStart + Math.floor(Math.random() * WINDOW_MS)),
);
const scheduledAt = Date.now();
step(
  `schedule ${TIMERS} timers (the window closes in ${Math.round((windowStart + WINDOW_MS - scheduledAt) / 1000)} s)`,
  scheduleRate,
  "msgs/s",
  plainRate,
);
await indexed(c, addr);
const pendingRss = await srv.rssMiB();
const main = await collect(c, addr, "BenchTimer", TIMERS, Array(QUEUES).fill(0));
step("delivery lateness p99", percentile(main.lateness, 0.99), "ms");

// Phase 2: BURST timers due at one instant, after scheduling them.
const burstLead = Math.max(3000, Math.ceil((BURST / Math.max(scheduleRate, 1)) * 1000) + 2000);
const burstAt = Date.now() + burstLead;
const burstScheduleRate = await sendAll(c, addr, BURST, (i) =>
  timerRequest("BenchBurst", i % QUEUES, burstAt),
);
step(`schedule a burst of ${BURST} due at one instant`, burstScheduleRate, "msgs/s");
const burst = await collect(c, addr, "BenchBurst", BURST, Array(QUEUES).fill(0));
const burstRate = step("burst delivered", (BURST * 1000) / Math.max(1, burst.last - burstAt), "due msgs/s");
const afterRss = await srv.rssMiB();
await c.shutdown();
await srv.stop();

const late = main.lateness;
const rows: Row[] = [
  { name: "plain send, 256 in flight (100 B)", value: plainRate, unit: "msgs/s" },
  {
    name: `schedule ${TIMERS.toLocaleString("en-US")} timers, 256 in flight`,
    value: scheduleRate,
    ceiling: plainRate,
    unit: `msgs/s vs plain send (done ${((windowStart - scheduledAt) / 1000).toFixed(1)} s before the window)`,
  },
  { name: "delivery lateness p50 (ms)", value: percentile(late, 0.5), unit: "ms, store time − due time" },
  {
    name: "delivery lateness p99 (ms)",
    value: percentile(late, 0.99),
    unit: `ms (issue target ≤100: ${percentile(late, 0.99) <= 100 ? "met" : "MISSED"}); max ${late[late.length - 1]} ms, min ${late[0]} ms`,
  },
  {
    name: `burst: ${BURST.toLocaleString("en-US")} due at one instant`,
    value: burstRate,
    unit: `due msgs/s delivered (issue target ≥50,000: ${burstRate >= 50_000 ? "met" : "MISSED"}); last ${burst.last - burstAt} ms after the instant, scheduled at ${Math.round(burstScheduleRate)}/s`,
  },
  { name: "RSS of start, idle (MiB)", value: idleRss, unit: "MiB" },
  {
    name: `RSS with ${TIMERS.toLocaleString("en-US")} timers pending (MiB)`,
    value: pendingRss,
    unit: `MiB, ${(pendingRss - idleRss).toFixed(0)} above idle (issue target ≤150: ${pendingRss - idleRss <= 150 ? "met" : "MISSED"}); ${afterRss.toFixed(0)} after all delivered`,
  },
];
printTable(`timers (${WINDOW_MS / 1000} s window, 100 B bodies)`, rows);
process.exit(0);
