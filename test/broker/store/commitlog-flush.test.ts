import { describe, expect, test } from "bun:test";
import type { Segment } from "../../../broker/store/segment.ts";
import { waitFor } from "../../support/rocketbun-child.ts";
import { openStore } from "./file-store.helpers.ts";
import { message, tempDir } from "./helpers.ts";

// No periodic sync within a test's lifetime: only the byte threshold syncs.
const ASYNC = {
  flushDiskType: "ASYNC_FLUSH",
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

/** Holds every write to `seg` until `release` is called; `fail` makes held writes reject. */
function holdWrites(seg: Segment): { held: () => number; release: () => void; fail: (e: Error) => void } {
  const write = seg.write.bind(seg);
  let gate = Promise.withResolvers<void>();
  let held = 0;
  let failWith: Error | undefined;
  // Small rounds are written on the event loop only once the file is open: route them to `write`.
  Object.defineProperty(seg, "isOpen", { configurable: true, get: () => false });
  seg.write = async (bufs, pos) => {
    held++;
    await gate.promise;
    if (failWith) throw failWith;
    return write(bufs, pos);
  };
  return {
    held: () => held,
    release: () => {
      failWith = undefined;
      gate.resolve();
      seg.write = write;
      delete (seg as { isOpen?: boolean }).isOpen;
    },
    fail: (e) => {
      failWith = e;
      const g = gate;
      gate = Promise.withResolvers<void>();
      g.resolve();
    },
  };
}

describe("commitlog flusher: a put is acknowledged once written", () => {
  for (const flushDiskType of ["ASYNC_FLUSH", "SYNC_FLUSH"] as const) {
    test(`${flushDiskType}: a put waits for its write, and pulls see the record only once it is written`, async () => {
      await using dir = await tempDir();
      const s = await openStore(dir.path, { ...ASYNC, flushDiskType });
      expect((await s.putMessage(message("T", 0, "first"))).status).toBe("PUT_OK");
      const hold = holdWrites(s.cl.segments.last!);
      let acked = false;
      const put = s.putMessage(message("T", 0, "second")).then((r) => {
        acked = true;
        return r;
      });
      await waitFor("the held write", () => hold.held() > 0 || undefined);
      // Appended in memory, not written: neither acknowledged nor visible.
      expect([acked, s.getMaxOffsetInQueue("T", 0)]).toEqual([false, 1]);
      expect((await s.getMessage("G", "T", 0, 1, 32, 1 << 20)).messages.length).toBe(0);
      hold.release();
      expect((await put).status).toBe("PUT_OK");
      expect(s.getMaxOffsetInQueue("T", 0)).toBe(2);
      expect((await s.getMessage("G", "T", 0, 1, 32, 1 << 20)).messages.length).toBe(1);
      await s.shutdown();
    });
  }

  test("a write that keeps failing answers FLUSH_DISK_TIMEOUT and keeps the record invisible; a later write delivers it", async () => {
    await using dir = await tempDir();
    const s = await openStore(dir.path, { ...ASYNC, syncFlushTimeout: 300 });
    expect((await s.putMessage(message("T", 1, "first"))).status).toBe("PUT_OK");
    const hold = holdWrites(s.cl.segments.last!);
    const put = s.putMessage(message("T", 0, "stuck"));
    await waitFor("the held write", () => hold.held() > 0 || undefined);
    hold.fail(new Error("EIO (injected)"));
    expect((await put).status).toBe("FLUSH_DISK_TIMEOUT");
    expect(s.getMaxOffsetInQueue("T", 0)).toBe(0);
    expect((await s.putMessage(message("T", 0, "refused"))).status).toBe("SERVICE_NOT_AVAILABLE");
    hold.release();
    // The flusher retries on its own; the record, never acknowledged, is then stored once.
    await waitFor("the retried write", () => s.getMaxOffsetInQueue("T", 0) === 1 || undefined, 5000);
    expect((await s.putMessage(message("T", 0, "again"))).status).toBe("PUT_OK");
    await s.shutdown();
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
