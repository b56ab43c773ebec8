import { describe, expect, test } from "bun:test";
import { waitFor } from "../../support/rocketbun-child.ts";
import { openStore } from "./file-store.helpers.ts";
import { message, tempDir } from "./helpers.ts";

// Writes at once, and no periodic sync within a test's lifetime: only the byte threshold syncs.
const ASYNC = {
  flushDiskType: "ASYNC_FLUSH",
  asyncWriteDelayMs: 0,
  flushIntervalCommitLog: 3_600_000,
  mappedFileSizeCommitLog: 1024 * 1024,
} as const;

describe("commitlog flusher, ASYNC_FLUSH", () => {
  test("once the written, unsynced bytes reach asyncFlushBytes, a sync starts by itself", async () => {
    await using dir = await tempDir();
    const s = await openStore(dir.path, { ...ASYNC, asyncFlushBytes: 8 * 1024 });
    for (let i = 0; i < 20; i++) await s.putMessage(message("T", 0, "x".repeat(1000)));
    await waitFor("a sync without a flush call", () => s.flusher.flushedOffset >= 8 * 1024);
    expect(s.flusher.counters.syncs).toBeGreaterThanOrEqual(1);
    // Whatever the background syncs covered, flushAll leaves everything durable.
    await s.flusher.flushAll();
    expect(s.flusher.flushedOffset).toBe(s.cl.maxOffset);
    await s.shutdown();
  });

  test("below the threshold nothing is synced until the interval or a flush", async () => {
    await using dir = await tempDir();
    const s = await openStore(dir.path, { ...ASYNC, asyncFlushBytes: 1024 * 1024 });
    for (let i = 0; i < 20; i++) await s.putMessage(message("T", 0, "x".repeat(1000)));
    await waitFor("the bytes written", () => s.cl.writtenOffset === s.cl.maxOffset);
    await new Promise((r) => setTimeout(r, 50));
    expect([s.flusher.flushedOffset, s.flusher.counters.syncs]).toEqual([0, 0]);
    await s.flusher.flushAll();
    expect(s.flusher.flushedOffset).toBe(s.cl.maxOffset);
    await s.shutdown();
  });
});

describe("commitlog flusher, ASYNC_FLUSH bursts", () => {
  test("a burst is written in whole pages; the partly filled tail page follows once the burst ends", async () => {
    await using dir = await tempDir();
    const s = await openStore(dir.path, { ...ASYNC, asyncWriteDelayMs: 20, asyncFlushBytes: 1 << 30 });
    // 400 puts appended in one turn: far more than the writer takes without waiting.
    const puts = Array.from({ length: 400 }, (_, i) =>
      s.putMessage(message("T", i % 4, "x".repeat(1000 + (i % 7)))),
    );
    await Promise.all(puts);
    const firstWrite = await waitFor("the first write", () => s.cl.writtenOffset || undefined);
    expect(firstWrite % 4096).toBe(0);
    expect(firstWrite).toBeLessThan(s.cl.maxOffset);
    await waitFor("the tail page", () => s.cl.writtenOffset === s.cl.maxOffset);
    await s.shutdown();
    // Everything is there after a clean restart.
    const again = await openStore(dir.path, ASYNC);
    expect([0, 1, 2, 3].map((q) => again.getMaxOffsetInQueue("T", q))).toEqual([100, 100, 100, 100]);
    await again.shutdown();
  });
});

describe("commitlog flusher, failures", () => {
  test("a failed background sync refuses puts until a later sync succeeds", async () => {
    await using dir = await tempDir();
    const s = await openStore(dir.path, { ...ASYNC, asyncFlushBytes: 4 * 1024 });
    expect((await s.putMessage(message("T", 0, "first"))).status).toBe("PUT_OK");
    const seg = s.cl.segments.last!;
    const datasync = seg.datasync.bind(seg);
    let failing = true;
    seg.datasync = () => (failing ? Promise.reject(new Error("EIO (injected)")) : datasync());
    for (let i = 0; i < 8; i++) await s.putMessage(message("T", 0, "x".repeat(1000)));
    await waitFor("the failed sync", () => s.flusher.lastError);
    expect((await s.putMessage(message("T", 0, "refused"))).status).toBe("SERVICE_NOT_AVAILABLE");
    failing = false;
    // The flusher retries on its own (after about a second).
    await waitFor("the retried sync", () => !s.flusher.lastError || undefined, 5000);
    expect((await s.putMessage(message("T", 0, "again"))).status).toBe("PUT_OK");
    await s.shutdown();
  });
});
