/**
 * The CommitLog block cache of batched reads (broker/store/span-cache.ts): the runs of different
 * queues over one stretch of the CommitLog share the blocks read for the first, byte for byte as
 * reads of each record alone; only written blocks inside one segment are kept; a cut of the log
 * clears it; it stays within its bound and reuses the buffers of dropped blocks.
 */
import { expect, test } from "bun:test";
import type { FileMessageStore } from "../../../broker/store/file-store.ts";
import { SPAN_CACHE_BLOCK_BYTES, SpanCache } from "../../../broker/store/span-cache.ts";
import { message, openedFileStore, tempDir } from "./helpers.ts";

const TOPIC = "SpanT";
const QUEUES = 4;
const hex = (r: Uint8Array | undefined) => (r ? Buffer.from(r).toString("hex") : undefined);

async function spansOf(store: FileMessageStore, queueId: number, n: number): Promise<[number, number][]> {
  const units = await store.readQueueUnits(TOPIC, queueId, 0, n);
  return units.map((u) => [u.phyOffset, u.size]);
}

/** Counts the CommitLog reads a store makes. */
function countReads(store: FileMessageStore): { reads: number } {
  const counter = { reads: 0 };
  const cl = store.cl;
  const readInto = cl.readInto.bind(cl);
  cl.readInto = (target, at, offset, len) => {
    counter.reads++;
    return readInto(target, at, offset, len);
  };
  return counter;
}

test("the runs of other queues over the same stretch are copied from the blocks the first read, byte for byte", async () => {
  await using dir = await tempDir();
  await using store = await openedFileStore(dir.path, { mappedFileSizeCommitLog: 4 * 1024 * 1024 });
  // 1 KiB records, the queues in turn: a queue's 32 records span about 130 KiB of the log.
  for (let i = 0; i < 400; i++)
    await store.putMessage(message(TOPIC, i % QUEUES, `m${i}:${"x".repeat(1000)}`));
  await store.flush();
  const runs = await Promise.all(Array.from({ length: QUEUES }, (_, q) => spansOf(store, q, 32)));
  const singles: (string | undefined)[][] = [];
  for (const run of runs) {
    const one: (string | undefined)[] = [];
    for (const s of run) one.push(hex((await store.readRecords([s]))[0]));
    singles.push(one);
  }
  const counter = countReads(store);
  const first = await store.readRecords(runs[0]!);
  const readsOfFirst = counter.reads;
  expect(readsOfFirst).toBeGreaterThan(0);
  for (let q = 1; q < QUEUES; q++) {
    const batch = await store.readRecords(runs[q]!);
    expect(batch.map(hex)).toEqual(singles[q]!);
  }
  expect(first.map(hex)).toEqual(singles[0]!);
  // Every block the other queues needed was read for the first (or it is one block further).
  expect(counter.reads - readsOfFirst).toBeLessThanOrEqual(1);
});

test("a run whose blocks are not all written is read as before and not kept", async () => {
  await using dir = await tempDir();
  await using store = await openedFileStore(dir.path, { mappedFileSizeCommitLog: 4 * 1024 * 1024 });
  for (let i = 0; i < 40; i++) await store.putMessage(message(TOPIC, i % QUEUES, `m${i}:${"y".repeat(500)}`));
  await store.flush();
  // 40 records of 600 bytes: the log's first block is not yet wholly written.
  expect(store.cl.writtenOffset).toBeLessThan(SPAN_CACHE_BLOCK_BYTES);
  const run = await spansOf(store, 1, 10);
  const batch = await store.readRecords(run);
  expect(batch.every((r) => r !== undefined)).toBe(true);
  expect(batch.map((r) => /m(\d+):/.exec(Buffer.from(r!).toString("latin1"))![1])).toEqual(
    Array.from({ length: 10 }, (_, i) => String(i * QUEUES + 1)),
  );
  expect(store.reader.spans.size).toBe(0);
});

test("a cut of the log (the written offset going back) drops every block", () => {
  const cache = new SpanCache(16, 4);
  cache.observeWritten(100);
  cache.put(0, new Uint8Array(16));
  cache.put(1, new Uint8Array(16));
  cache.observeWritten(120);
  expect(cache.size).toBe(2);
  cache.observeWritten(40);
  expect([cache.size, cache.get(0)]).toEqual([0, undefined]);
});

test("the cache holds at most its bound, drops the least recently used, and reads into dropped buffers again", () => {
  const cache = new SpanCache(16, 4);
  const buffers = Array.from({ length: 6 }, () => cache.spare());
  expect(buffers.every((b) => b.length === 16)).toBe(true);
  for (let b = 0; b < 4; b++) cache.put(b, buffers[b]!);
  cache.get(0); // used lately: block 1 is now the oldest
  cache.put(4, buffers[4]!);
  expect(cache.size).toBe(4);
  expect([cache.has(0), cache.has(1)]).toEqual([true, false]);
  // Block 1's buffer is handed out for the next read rather than a new one.
  expect(cache.spare()).toBe(buffers[1]!);
  expect([cache.fits(2), cache.fits(3)]).toEqual([true, false]);
});
