/**
 * SQL92 filter benchmark (issue #17): `rocketbun start` with enablePropertyFilter=true in a child
 * process, a backlog of BENCH_FILTER_BACKLOG 256-byte messages (properties `region` eu/us and
 * `a` = i % 10, tags T0..T9) drained over raw PULL_MESSAGE frames with the subscription in the
 * header, one loop per queue: no filter, a tag filter and an SQL92 filter each matching 10 %,
 * and each matching 50 %, in the same run. Reported: matched messages/s and scanned records/s
 * (queue offsets passed), SQL92 scanning beside tag scanning, and the in-process evaluation rate
 * of a two-clause expression on stored records (properties read from the record bytes).
 * Rates are medians over BENCH_FILTER_ROUNDS rounds of all cases in turn.
 * Run: bun bench/filter.ts   (BENCH_FILTER_BACKLOG=200000, BENCH_FILTER_ROUNDS=3)
 */
import pino from "pino";
import { recordPropertyLookup } from "../broker/filter/record-properties.ts";
import { compileSql92, lookupIn } from "../src/protocol/filter/index.ts";
import { PullSysFlag } from "../src/protocol/headers/pull.ts";
import { encodeBatch, encodeProperties } from "../src/protocol/message/index.ts";
import { RemotingClient, RemotingCommand, RequestCode } from "../src/remoting/index.ts";
import { printProgress, printTable, type Row } from "./lib/report.ts";
import { createTopic, ok, sendRequest } from "./lib/requests.ts";
import { startServer } from "./lib/start-server.ts";

const BACKLOG = Number(process.env.BENCH_FILTER_BACKLOG ?? 200_000);
const ROUNDS = Number(process.env.BENCH_FILTER_ROUNDS ?? 3);
const QUEUES = 4;
const BATCH = 64;
const TOPIC = "BenchFilter";
const BODY = new Uint8Array(256).fill(0x62);
const log = pino({ level: "warn" });

function props(i: number): Map<string, string> {
  return new Map([
    ["TAGS", `T${i % 10}`],
    ["region", i % 2 === 0 ? "eu" : "us"],
    ["a", String(i % 10)],
  ]);
}

/** One batch of BATCH messages (the `m` flag on SEND_MESSAGE_V2, spec broker §1.9). */
function sendBatch(queueId: number, first: number): RemotingCommand {
  const msgs = Array.from({ length: BATCH }, (_, k) => ({
    body: BODY,
    flag: 0,
    properties: encodeProperties(props(first + k)),
  }));
  return sendRequest(TOPIC, queueId, encodeBatch(msgs), true, "");
}

function pull(queueId: number, offset: number, type: string, expression: string): RemotingCommand {
  return RemotingCommand.request(RequestCode.PULL_MESSAGE, {
    consumerGroup: "BENCH_FILTER_CG",
    topic: TOPIC,
    queueId: String(queueId),
    queueOffset: String(offset),
    maxMsgNums: "32",
    sysFlag: String(PullSysFlag.SUBSCRIPTION),
    commitOffset: "0",
    suspendTimeoutMillis: "0",
    subscription: expression,
    subVersion: "0",
    expressionType: type,
  });
}

function countRecords(body: Uint8Array | null): number {
  if (!body) return 0;
  const dv = new DataView(body.buffer, body.byteOffset, body.byteLength);
  let n = 0;
  for (let pos = 0; pos < body.length; pos += dv.getInt32(pos)) n++;
  return n;
}

interface Drain {
  matched: number;
  scanned: number;
  seconds: number;
}

/** Pulls every queue from 0 to its end, one loop per queue. */
async function drain(c: RemotingClient, addr: string, type: string, expression: string): Promise<Drain> {
  let matched = 0;
  let scanned = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: QUEUES }, async (_, q) => {
      let offset = 0;
      for (;;) {
        const r = await c.invoke(addr, pull(q, offset, type, expression));
        if (r.code !== 0 && r.code !== 20) break; // PULL_NOT_FOUND / OFFSET_MOVED: the end.
        const next = Number(r.extFields?.nextBeginOffset);
        matched += countRecords(r.body);
        scanned += next - offset;
        offset = next;
      }
    }),
  );
  return { matched, scanned, seconds: (performance.now() - t0) / 1000 };
}

const srv = await startServer({
  brokerConf: { enablePropertyFilter: "true" },
  name: "rocketbun-bench-filter",
});
const c = new RemotingClient({ name: "bench-filter", log });
const addr = srv.brokerAddr;
try {
  await createTopic(c, addr, TOPIC, QUEUES);
  const perQueue = Math.ceil(BACKLOG / QUEUES / BATCH);
  await Promise.all(
    Array.from({ length: QUEUES }, async (_, q) => {
      for (let b = 0; b < perQueue; b++) await ok(c.invoke(addr, sendBatch(q, b * BATCH)));
    }),
  );
  // Dispatch catches up, and the page cache is warm for every drain alike.
  await drain(c, addr, "TAG", "*");

  const cases: [string, string, string][] = [
    ["no filter", "TAG", "*"],
    ["tag filter, 10 % match (T0)", "TAG", "T0"],
    ["SQL92, 10 % match (region = 'eu' AND a < 1)", "SQL92", "region = 'eu' AND a < 1"],
    ["tag filter, 50 % match (T0||T2||T4||T6||T8)", "TAG", "T0 || T2 || T4 || T6 || T8"],
    ["SQL92, 50 % match (region = 'eu' AND a >= 0)", "SQL92", "region = 'eu' AND a >= 0"],
  ];
  // Rounds of every case in turn, so that drift of a shared machine's CPU falls on all alike;
  // each rate is the median over rounds, each SQL92/tag ratio the median of per-round ratios.
  const rounds: Map<string, Drain>[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const round = new Map<string, Drain>();
    for (const [name, type, expression] of cases) {
      const d = await drain(c, addr, type, expression);
      round.set(name, d);
      const ceiling = round.get("no filter")!.scanned / round.get("no filter")!.seconds;
      const value = d.scanned / d.seconds;
      printProgress({
        bench: "filter",
        round: r + 1,
        rounds: ROUNDS,
        name: `${name}: scanned`,
        value,
        unit: "records/s",
        ceiling,
      });
    }
    rounds.push(round);
  }
  const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
  const rate = (name: string, of: (d: Drain) => number) =>
    median(rounds.map((r) => of(r.get(name)!) / r.get(name)!.seconds));

  const rows: Row[] = [];
  const noneScan = rate("no filter", (d) => d.scanned);
  for (const [name] of cases) {
    const d = rounds[0]!.get(name)!;
    rows.push({
      name: `${name}: matched`,
      value: rate(name, (x) => x.matched),
      unit: `msg/s (${d.matched} of ${d.scanned})`,
    });
    rows.push({
      name: `${name}: scanned`,
      value: rate(name, (x) => x.scanned),
      ceiling: noneScan,
      unit: "records/s vs no filter",
    });
  }
  for (const pct of ["10", "50"]) {
    const tag = cases.find(([n]) => n.startsWith(`tag filter, ${pct}`))![0];
    const sql = cases.find(([n]) => n.startsWith(`SQL92, ${pct}`))![0];
    const scan = (r: Map<string, Drain>, n: string) => r.get(n)!.scanned / r.get(n)!.seconds;
    rows.push({
      name: `SQL92 scan rate vs tag scan rate, ${pct} %`,
      value: rate(sql, (d) => d.scanned),
      ceiling: rate(tag, (d) => d.scanned),
      ratio: median(rounds.map((r) => scan(r, sql) / scan(r, tag))),
      target: 0.5,
      unit: `records/s (median of ${ROUNDS} rounds)`,
    });
  }

  // Evaluation alone, on stored records as the broker reads them.
  const probe = await ok(c.invoke(addr, pull(0, 0, "TAG", "*")));
  const records: Uint8Array[] = [];
  const dv = new DataView(probe.body!.buffer, probe.body!.byteOffset, probe.body!.byteLength);
  for (let pos = 0; pos < probe.body!.length; pos += dv.getInt32(pos)) {
    records.push(probe.body!.subarray(pos, pos + dv.getInt32(pos)));
  }
  const f = compileSql92("region = 'eu' AND a < 1");
  const evalRate = (lookupOf: (i: number) => (name: string) => string | undefined) => {
    let hits = 0;
    const n = 2_000_000;
    for (let i = 0; i < 100_000; i++) if (f.matches(lookupOf(i))) hits++;
    const t0 = performance.now();
    for (let i = 0; i < n; i++) if (f.matches(lookupOf(i))) hits++;
    const ns = ((performance.now() - t0) * 1e6) / n;
    return { ns, hits };
  };
  const onRecord = evalRate((i) => recordPropertyLookup(records[i % records.length]!));
  const maps = records.map((_, i) => lookupIn(props(i)));
  const onMap = evalRate((i) => maps[i % maps.length]!);
  rows.push({
    name: "evaluation on a stored record (2 clauses)",
    value: onRecord.ns,
    unit: "ns/record (target ≤ 1000)",
  });
  rows.push({ name: "evaluation on a property map (2 clauses)", value: onMap.ns, unit: "ns/record" });
  printTable(
    `SQL92 filter (backlog ${BACKLOG.toLocaleString("en-US")}, ${QUEUES} queues, 256 B bodies)`,
    rows,
  );
} finally {
  await c.shutdown();
  await srv.stop();
}
