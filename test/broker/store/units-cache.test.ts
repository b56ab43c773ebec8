/**
 * The ConsumeQueue units cache (broker/store/units-cache.ts): reads served from a window read ahead
 * are byte for byte what the files hold, a cut never leaves stale units to be served, and the cache
 * keeps a bounded number of windows.
 */
import { expect, test } from "bun:test";
import { join } from "node:path";
import { ConsumeQueue, CQ_UNIT_BYTES } from "../../../broker/store/consume-queue.ts";
import { UNITS_CACHE_QUEUES_MAX, UnitsCache } from "../../../broker/store/units-cache.ts";
import { tempDir } from "./helpers.ts";

/** Units per file: small, so reads meet file boundaries. */
const FILE_UNITS = 1000;
const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");

async function queueWith(dir: string, n: number, cache?: UnitsCache, phyBase = 0): Promise<ConsumeQueue> {
  const cq = new ConsumeQueue("T", 0, join(dir, "T", "0"), FILE_UNITS * CQ_UNIT_BYTES, cache);
  await cq.load();
  for (let i = cq.maxOffset; i < n; i++) cq.append(phyBase + i * 1000, 900 + (i % 50), i * 7, i);
  await cq.flush();
  return cq;
}

test("reads through the cache return the same units as reads of the files, walking 32 at a time and at random", async () => {
  await using dir = await tempDir();
  const cache = new UnitsCache(CQ_UNIT_BYTES);
  const cached = await queueWith(dir.path, 2500, cache);
  const plain = new ConsumeQueue("T", 0, join(dir.path, "T", "0"), FILE_UNITS * CQ_UNIT_BYTES);
  await plain.load();
  try {
    const asks: [number, number][] = [];
    for (let o = 0; o < 2500; o += 32) asks.push([o, 800]);
    for (let i = 0; i < 200; i++) asks.push([(i * 7919) % 2600, 1 + ((i * 31) % 900)]);
    for (const [o, max] of asks)
      expect([o, max, hex(await cached.readUnits(o, max))]).toEqual([
        o,
        max,
        hex(await plain.readUnits(o, max)),
      ]);
    expect(cache.bytes).toBeGreaterThan(0);
  } finally {
    await cached.close();
    await plain.close();
  }
});

test("after a cut, the units written again are read, not the cached ones", async () => {
  await using dir = await tempDir();
  const cache = new UnitsCache(CQ_UNIT_BYTES);
  const cq = await queueWith(dir.path, 500, cache);
  try {
    const before = await cq.readUnits(100, 64);
    expect(cache.bytes).toBeGreaterThan(0);
    // The CommitLog was cut at unit 200's record: units from 200 on go, and come back different.
    await cq.truncateFromPhy(200 * 1000);
    expect(cq.maxOffset).toBe(200);
    for (let i = 200; i < 500; i++) cq.append(5_000_000 + i, 100, 1, i);
    await cq.flush();
    const fresh = new ConsumeQueue("T", 0, join(dir.path, "T", "0"), FILE_UNITS * CQ_UNIT_BYTES);
    await fresh.load();
    try {
      expect(hex(await cq.readUnits(100, 64))).toBe(hex(before));
      expect(hex(await cq.readUnits(190, 64))).toBe(hex(await fresh.readUnits(190, 64)));
      expect(hex(await cq.readUnits(250, 32))).toBe(hex(await fresh.readUnits(250, 32)));
    } finally {
      await fresh.close();
    }
  } finally {
    await cq.close();
  }
});

test("reads inside a window share its bytes (no copy per read), and what a read returned never changes after", async () => {
  await using dir = await tempDir();
  const cache = new UnitsCache(CQ_UNIT_BYTES);
  const cq = await queueWith(dir.path, 2500, cache);
  try {
    const first = await cq.readUnits(0, 800);
    const second = await cq.readUnits(32, 800);
    expect(second.buffer).toBe(first.buffer);
    const held = [first, second, await cq.readUnits(900, 64)];
    const seen = held.map(hex);
    // Later reads refill windows; a cut drops them and the units come back different.
    for (let o = 0; o < 2500; o += 32) await cq.readUnits(o, 800);
    await cq.truncateFromPhy(10 * 1000);
    for (let i = 10; i < 1500; i++) cq.append(9_000_000 + i, 100, 1, i);
    await cq.flush();
    for (let o = 0; o < 1500; o += 32) await cq.readUnits(o, 800);
    expect(held.map(hex)).toEqual(seen);
  } finally {
    await cq.close();
  }
});

test("the cache keeps at most UNITS_CACHE_QUEUES_MAX windows, dropping the least recently read", () => {
  const cache = new UnitsCache(CQ_UNIT_BYTES);
  const queues = Array.from({ length: UNITS_CACHE_QUEUES_MAX + 10 }, () => ({}));
  for (const q of queues) cache.put(q, 0, new Uint8Array(100 * CQ_UNIT_BYTES));
  expect(cache.bytes).toBe(UNITS_CACHE_QUEUES_MAX * 100 * CQ_UNIT_BYTES);
  expect(cache.get(queues[0]!, 0, 10)).toBeUndefined();
  expect(cache.get(queues.at(-1)!, 0, 10)?.length).toBe(10 * CQ_UNIT_BYTES);
  // Beyond the window: not served.
  expect(cache.get(queues.at(-1)!, 90, 101)).toBeUndefined();
});
