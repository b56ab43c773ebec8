/**
 * Store benchmark (issue #4): append and read throughput for 1 KiB records under ASYNC_FLUSH and
 * SYNC_FLUSH (1 and 64 writers), each beside the raw ceiling of the same disk measured in the
 * same run, plus recovery time per GiB of CommitLog. Each raw ceiling replays the store's own
 * write pattern of that run (same bytes, same number of writes and fdatasyncs), so the ratio is
 * the store's overhead and not a difference in grouping; the grouping is printed beside it.
 * Run: bun bench/store.ts [--mb=128] [--rounds=5]
 */
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { CHECKPOINT_FILE_BYTES } from "../broker/store/checkpoint.ts";
import { FileMessageStore } from "../broker/store/file-store.ts";
import type { MessageToStore } from "../broker/store/message-store.ts";
import type { StoreOptions } from "../broker/store/store-options.ts";
import { encodeProperties, hostAddress } from "../src/protocol/message/index.ts";
import { progressSteps } from "./lib/report.ts";
import { benchDir, fmt, rawWrite, type WritePattern } from "./store/raw.ts";

const arg = (name: string, dflt: number) =>
  Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split("=")[1] ?? dflt);
const TOTAL_MB = arg("mb", 128);
const ASYNC_ROUNDS = arg("rounds", 5);
const BODY = new Uint8Array(1024).fill(0x61);
const QUEUES = 8;
/** Distinct prebuilt messages each append run cycles through. */
const POOL = 4096;
// Parsed once, as the broker does per connection; not store work.
const BORN_HOST = hostAddress("127.0.0.1", 40000);
const STORE_HOST = hostAddress("127.0.0.1", 10911);

/** A message as the send processor hands it over (properties decoded and encoded). */
function msg(i: number): MessageToStore {
  const properties = new Map([
    ["TAGS", "bench"],
    ["KEYS", `k${i}`],
    ["WAIT", "true"],
  ]);
  return {
    topic: "Bench",
    queueId: i % QUEUES,
    flag: 0,
    body: BODY,
    properties,
    propertiesString: encodeProperties(properties),
    bornTimestamp: Date.now(),
    bornHost: BORN_HOST,
    storeHost: STORE_HOST,
    sysFlag: 0,
    reconsumeTimes: 0,
    preparedTransactionOffset: 0,
  };
}

async function storeAt(root: string, o: Partial<StoreOptions>): Promise<FileMessageStore> {
  const s = new FileMessageStore({ storePathRootDir: root, ...o });
  await s.open();
  return s;
}

/**
 * Puts `n` messages (built beforehand: decoding a send is the processor's work) from `writers`
 * concurrent loops; returns the seconds and how the store wrote the bytes.
 */
async function appendRun(
  s: FileMessageStore,
  n: number,
  writers: number,
  name?: string,
): Promise<[number, WritePattern]> {
  // A broker holds each decoded message only until it is stored, so the bench cycles through a
  // small pool: prebuilt messages for every put kept ~130 MiB of the bench's own objects alive,
  // and the collector's full marks of them were charged to the store. Keys repeat every
  // POOL puts; an index insert costs the same for a repeated key (one slot-head update).
  const msgs = Array.from({ length: Math.min(n, POOL) }, (_, i) => msg(i));
  Bun.gc(true);
  let next = 0;
  const c0 = { ...s.flusher.counters };
  const cpu0 = process.cpuUsage();
  const main0 = process.threadCpuUsage();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: writers }, async () => {
      while (next < n) {
        const r = await s.putMessage(msgs[next++ % msgs.length]!);
        if (r.status !== "PUT_OK") throw new Error(r.status);
      }
    }),
  );
  await s.flush();
  const secs = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const main = process.threadCpuUsage(main0);
  if (name)
    cpuNotes.push(
      `${name}: ${((secs * 1e6) / n).toFixed(2)} µs wall per put; CPU per put ${((main.user + main.system) / n).toFixed(2)} µs on the JS thread, ${((cpu.user + cpu.system) / n).toFixed(2)} µs in the whole process (write syscalls, GC threads)`,
    );
  const c = s.flusher.counters;
  return [
    secs,
    { bytes: c.writtenBytes - c0.writtenBytes, writes: c.writes - c0.writes, syncs: c.syncs - c0.syncs },
  ];
}

const groupings: string[] = [];
const cpuNotes: string[] = [];
function grouping(name: string, n: number, p: WritePattern): void {
  groupings.push(
    `${name}: ${fmt(p.writes)} writes (${(n / p.writes).toFixed(1)} records each), ${fmt(p.syncs)} fdatasyncs (${(n / p.syncs).toFixed(1)} records each)`,
  );
}

const rows: string[][] = [];
function row(name: string, secs: number, count: number, bytes: number, ceiling?: number): void {
  const mbps = bytes / secs / 2 ** 20;
  rows.push([
    name,
    fmt(count / secs),
    mbps.toFixed(1),
    ceiling ? mbps.toFixed(1) + " / " + ceiling.toFixed(1) : "",
    ceiling ? (mbps / ceiling).toFixed(2) : "",
  ]);
}

const step = progressSteps("store", ASYNC_ROUNDS + 4);
await using dir = await benchDir();
const recordBytes = await (async () => {
  const s = await storeAt(join(dir.path, "probe"), {});
  const r = await s.putMessage(msg(0));
  await s.shutdown();
  return r.result!.wroteBytes;
})();
const nAsync = Math.floor((TOTAL_MB * 2 ** 20) / recordBytes);

// ASYNC_FLUSH against raw sequential writes of the same bytes, written and synced as the store did.
// All rounds append to one store, as a broker that has been up for a while does: a warm-up run
// first compiles the put path (JIT tiering) and fills the store's reusable chunk buffers, its
// index slot table and its queue files, which a fresh store first pays for in page faults. Each
// round is followed by its own raw replay. This machine's disk and CPU speed drift by 2x within
// a minute, so the row shows the median round and every round's ratio is listed. The store stays
// open for the read and recovery measures below.
const asyncRounds: { secs: number; pattern: WritePattern; raw: number; ratio: number }[] = [];
const sA = await storeAt(join(dir.path, "async"), { flushDiskType: "ASYNC_FLUSH" });
await appendRun(sA, nAsync, 64);
for (let r = 0; r < ASYNC_ROUNDS; r++) {
  const [secs, pattern] = await appendRun(sA, nAsync, 64, `ASYNC_FLUSH 64 round ${r + 1}`);
  const raw = await rawWrite(join(dir.path, "raw-async"), pattern);
  asyncRounds.push({ secs, pattern, raw, ratio: pattern.bytes / secs / 2 ** 20 / raw });
  step(`append ASYNC_FLUSH (64 writers), round ${r + 1}`, pattern.bytes / secs / 2 ** 20, "MB/s", raw);
}
const medianRound = [...asyncRounds].sort((a, b) => a.ratio - b.ratio)[Math.floor(ASYNC_ROUNDS / 2)]!;
row("append ASYNC_FLUSH (64 writers)", medianRound.secs, nAsync, medianRound.pattern.bytes, medianRound.raw);
grouping("ASYNC_FLUSH 64", nAsync, medianRound.pattern);
groupings.push(
  `ASYNC_FLUSH 64 rounds: ratios ${asyncRounds.map((r) => r.ratio.toFixed(2)).join(" ")} (median shown)`,
);

// Reads: one round's worth of messages back through the pull path, 32 per pull.
const t0 = performance.now();
let read = 0;
let readBytes = 0;
for (let q = 0; q < QUEUES; q++) {
  let off = 0;
  while (off < nAsync / QUEUES) {
    const g = await sA.getMessage("g", "Bench", q, off, 32, 1 << 20);
    if (g.messages.length === 0) break;
    read += g.messages.length;
    readBytes += g.bufferTotalSize;
    off = g.nextBeginOffset;
  }
}
row("read (pull 32/batch)", (performance.now() - t0) / 1000, read, readBytes);
step("read (pull 32/batch)", (read * 1000) / (performance.now() - t0), "msgs/s");
await sA.shutdown();

// Recovery: abnormal start with a zeroed checkpoint and no consume queues: full scan + rebuild.
await writeFile(join(dir.path, "async", "abort"), "");
await writeFile(join(dir.path, "async", "checkpoint"), new Uint8Array(CHECKPOINT_FILE_BYTES));
await rm(join(dir.path, "async", "consumequeue"), { recursive: true });
await rm(join(dir.path, "async", "index"), { recursive: true });
const r0 = performance.now();
const sR = await storeAt(join(dir.path, "async"), {});
const recSecs = (performance.now() - r0) / 1000;
const recGiB = sR.getMaxPhyOffset() / 2 ** 30;
step("abnormal recovery (full CRC scan + rebuild)", recSecs / recGiB, "s per GiB");
await sR.shutdown();

// SYNC_FLUSH with 1 writer: each put waits for its own fdatasync.
const n1 = Math.min(3000, nAsync);
const s1 = await storeAt(join(dir.path, "sync1"), { flushDiskType: "SYNC_FLUSH" });
const [t1, p1] = await appendRun(s1, n1, 1, "SYNC_FLUSH 1");
const raw1 = await rawWrite(join(dir.path, "raw-sync1"), p1);
row("append SYNC_FLUSH (1 writer)", t1, n1, p1.bytes, raw1);
step("append SYNC_FLUSH (1 writer)", p1.bytes / t1 / 2 ** 20, "MB/s", raw1);
grouping("SYNC_FLUSH 1", n1, p1);
await s1.shutdown();

// SYNC_FLUSH with 64 writers: at best 64 records per fdatasync (each writer waits for its own).
const n64 = Math.min(60_000, nAsync);
const s64 = await storeAt(join(dir.path, "sync64"), { flushDiskType: "SYNC_FLUSH" });
const [t64, p64] = await appendRun(s64, n64, 64, "SYNC_FLUSH 64");
const raw64 = await rawWrite(join(dir.path, "raw-sync64"), p64);
row("append SYNC_FLUSH (64 writers)", t64, n64, p64.bytes, raw64);
step("append SYNC_FLUSH (64 writers)", p64.bytes / t64 / 2 ** 20, "MB/s", raw64);
grouping("SYNC_FLUSH 64", n64, p64);
await s64.shutdown();

console.log(
  `record ${recordBytes} bytes (1 KiB body); ${nAsync} async / ${n1} sync-1 / ${n64} sync-64 messages`,
);
const head = ["case", "msgs/s", "MB/s", "store / raw MB/s", "ratio"];
const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
for (const r of [head, ...rows]) console.log(r.map((c, i) => c.padEnd(widths[i]!)).join("  "));
for (const g of groupings) console.log(`grouping ${g}`);
for (const n of cpuNotes) console.log(`cpu ${n}`);
console.log(
  `recovery: ${recSecs.toFixed(2)} s for ${(recGiB * 1024).toFixed(0)} MiB → ${(recSecs / recGiB).toFixed(1)} s per GiB (full CRC scan + rebuild)`,
);
