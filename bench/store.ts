/**
 * Store benchmark (issue #4): append and read throughput for 1 KiB records under ASYNC_FLUSH and
 * SYNC_FLUSH (1 and 64 writers), each beside the raw ceiling of the same disk measured in the
 * same run, plus recovery time per GiB of CommitLog.
 * Run: bun bench/store.ts [--mb=128]
 */
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { CHECKPOINT_FILE_BYTES } from "../broker/store/checkpoint.ts";
import { FileMessageStore } from "../broker/store/file-store.ts";
import type { MessageToStore } from "../broker/store/message-store.ts";
import type { StoreOptions } from "../broker/store/store-options.ts";
import { encodeProperties, hostAddress } from "../src/protocol/message/index.ts";
import { benchDir, fmt, rawWrite } from "./store/raw.ts";

const arg = (name: string, dflt: number) =>
  Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split("=")[1] ?? dflt);
const TOTAL_MB = arg("mb", 128);
const BODY = new Uint8Array(1024).fill(0x61);
const QUEUES = 8;

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
    bornHost: hostAddress("127.0.0.1", 40000),
    storeHost: hostAddress("127.0.0.1", 10911),
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

/** Puts `n` messages from `writers` concurrent loops; returns [seconds, bytes]. */
async function appendRun(s: FileMessageStore, n: number, writers: number): Promise<[number, number]> {
  let next = 0;
  const t0 = performance.now();
  const startBytes = s.getMaxPhyOffset();
  await Promise.all(
    Array.from({ length: writers }, async () => {
      while (next < n) {
        const r = await s.putMessage(msg(next++));
        if (r.status !== "PUT_OK") throw new Error(r.status);
      }
    }),
  );
  await s.flush();
  return [(performance.now() - t0) / 1000, s.getMaxPhyOffset() - startBytes];
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

await using dir = await benchDir();
const recordBytes = await (async () => {
  const s = await storeAt(join(dir.path, "probe"), {});
  const r = await s.putMessage(msg(0));
  await s.shutdown();
  return r.result!.wroteBytes;
})();
const nAsync = Math.floor((TOTAL_MB * 2 ** 20) / recordBytes);

// ASYNC_FLUSH against raw sequential writes of the same bytes in 1 MiB writes, one final fdatasync.
const rawAsync = await rawWrite(join(dir.path, "raw-async"), recordBytes, nAsync, 1024, false);
const sA = await storeAt(join(dir.path, "async"), { flushDiskType: "ASYNC_FLUSH" });
const [tA, bA] = await appendRun(sA, nAsync, 64);
row("append ASYNC_FLUSH (64 writers)", tA, nAsync, bA, rawAsync);

// Reads: every message back through the pull path, 32 per pull.
const t0 = performance.now();
let read = 0;
let readBytes = 0;
for (let q = 0; q < QUEUES; q++) {
  let off = 0;
  for (;;) {
    const g = await sA.getMessage("g", "Bench", q, off, 32, 1 << 20);
    if (g.messages.length === 0) break;
    read += g.messages.length;
    readBytes += g.bufferTotalSize;
    off = g.nextBeginOffset;
  }
}
row("read (pull 32/batch)", (performance.now() - t0) / 1000, read, readBytes);
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
await sR.shutdown();

// SYNC_FLUSH with 1 writer: each put waits for its own fdatasync.
const n1 = Math.min(3000, nAsync);
const raw1 = await rawWrite(join(dir.path, "raw-sync1"), recordBytes, n1, 1, true);
const s1 = await storeAt(join(dir.path, "sync1"), { flushDiskType: "SYNC_FLUSH" });
const [t1, b1] = await appendRun(s1, n1, 1);
row("append SYNC_FLUSH (1 writer)", t1, n1, b1, raw1);
await s1.shutdown();

// SYNC_FLUSH with 64 writers against raw writes grouped 64 records per fdatasync.
const n64 = Math.min(60_000, nAsync);
const raw64 = await rawWrite(join(dir.path, "raw-sync64"), recordBytes, n64, 64, true);
const s64 = await storeAt(join(dir.path, "sync64"), { flushDiskType: "SYNC_FLUSH" });
const [t64, b64] = await appendRun(s64, n64, 64);
row("append SYNC_FLUSH (64 writers)", t64, n64, b64, raw64);
await s64.shutdown();

console.log(
  `record ${recordBytes} bytes (1 KiB body); ${nAsync} async / ${n1} sync-1 / ${n64} sync-64 messages`,
);
const head = ["case", "msgs/s", "MB/s", "store / raw MB/s", "ratio"];
const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
for (const r of [head, ...rows]) console.log(r.map((c, i) => c.padEnd(widths[i]!)).join("  "));
console.log(
  `recovery: ${recSecs.toFixed(2)} s for ${(recGiB * 1024).toFixed(0)} MiB → ${(recSecs / recGiB).toFixed(1)} s per GiB (full CRC scan + rebuild)`,
);
