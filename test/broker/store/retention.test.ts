import { describe, expect, test } from "bun:test";
import { utimes } from "node:fs/promises";
import { join } from "node:path";
import { isDeleteHour } from "../../../broker/store/retention.ts";
import { waitFor } from "../../support/rocketbun-child.ts";
import { commitLogFiles, openStore, readQueue } from "./file-store.helpers.ts";
import { message, tempDir } from "./helpers.ts";

const HOUR = 3_600_000;

describe("retention", () => {
  test("deleteWhen hours are local hours separated by ';'", () => {
    const at4 = new Date(2024, 0, 1, 4, 30).getTime();
    expect([isDeleteHour("04", at4), isDeleteHour("01;04", at4), isDeleteHour("05", at4)]).toEqual([
      true,
      true,
      false,
    ]);
  });

  test("only expired files are deleted, oldest first, never the newest; queues and index follow", async () => {
    await using dir = await tempDir();
    const now = new Date(2030, 0, 1, 4, 0).getTime();
    const s = await openStore(
      dir.path,
      { fileReservedTime: 1, deleteWhen: "04" },
      { now: () => now, diskUsedPercent: async () => 10 },
    );
    for (let i = 0; i < 16; i++)
      await s.putMessage(message("T", 0, `${"x".repeat(900)}-${i}`, { KEYS: `k${i}` }));
    await s.flush();
    const files = await commitLogFiles(dir.path);
    expect(files.length).toBe(4);
    // The first two files were last written two hours ago; the others just now.
    const old = (now - 2 * HOUR) / 1000;
    for (const f of files.slice(0, 2)) await utimes(join(dir.path, "commitlog", f), old, old);
    const fresh = now / 1000;
    for (const f of files.slice(2)) await utimes(join(dir.path, "commitlog", f), fresh, fresh);
    expect(await s.deleteExpiredFiles()).toBe(2);
    expect(await commitLogFiles(dir.path)).toEqual(files.slice(2));
    expect([s.getMinPhyOffset(), s.getMinOffsetInQueue("T", 0), s.getMaxOffsetInQueue("T", 0)]).toEqual([
      8192, 8, 16,
    ]);
    const g = await s.getMessage("g", "T", 0, 0, 32, 1 << 20);
    expect([g.status, g.nextBeginOffset]).toEqual(["OFFSET_TOO_SMALL", 8]);
    expect((await readQueue(s, "T", 0)).map(([o]) => o)).toEqual([8, 9, 10, 11, 12, 13, 14, 15]);
    expect((await s.queryMessage("T", "k2", 32, 0, Number.MAX_SAFE_INTEGER)).messages).toEqual([]);
    // Outside the delete hour and with disk to spare nothing more goes, even if expired.
    await s.shutdown();
    const later = now + HOUR;
    const s2 = await openStore(
      dir.path,
      { fileReservedTime: 0, deleteWhen: "04" },
      { now: () => later, diskUsedPercent: async () => 10 },
    );
    expect([await s2.deleteExpiredFiles(), s2.getMinOffsetInQueue("T", 0)]).toEqual([0, 8]);
    // The admin trigger (TRIGGER_DELETE_FILES) ignores the hour; the newest file always stays.
    const s2full = await s2.deleteExpiredFiles(true);
    expect(s2full).toBe(1);
    await s2.shutdown();
  });

  test("a file the flusher has not synced yet is never deleted, however full the disk: puts go on", async () => {
    await using dir = await tempDir();
    let used = 10;
    // Syncs only when asked: every record stays written but not yet durable.
    const s = await openStore(
      dir.path,
      { flushIntervalCommitLog: 3_600_000, asyncFlushBytes: 1 << 30 },
      { diskUsedPercent: async () => used },
    );
    for (let i = 0; i < 16; i++) await s.putMessage(message("T", 0, `${"x".repeat(900)}-${i}`));
    expect(s.cl.segments.segments.length).toBe(4);
    // Over diskSpaceCleanForciblyRatio: unexpired files may go, but not these, which are not synced.
    used = 99;
    expect(await s.deleteExpiredFiles()).toBe(0);
    expect((await readQueue(s, "T", 0)).length).toBe(16);
    used = 10;
    await s.deleteExpiredFiles();
    // Before, the flusher then failed for good on the deleted file and every put was refused.
    expect((await s.putMessage(message("T", 0, "after"))).status).toBe("PUT_OK");
    await s.flush();
    used = 99;
    // Synced now: all but the newest go.
    expect(await s.deleteExpiredFiles()).toBe(3);
    used = 10;
    await s.deleteExpiredFiles();
    expect((await s.putMessage(message("T", 0, "still"))).status).toBe("PUT_OK");
    await s.flush();
    await s.shutdown();
  });

  test("a file deleted while it still had bytes to sync does not wedge the flusher", async () => {
    await using dir = await tempDir();
    const s = await openStore(dir.path, { flushIntervalCommitLog: 3_600_000, asyncFlushBytes: 1 << 30 });
    for (let i = 0; i < 8; i++) await s.putMessage(message("T", 0, `${"x".repeat(900)}-${i}`));
    // Written (after the write delay) but not synced: both files wait for an fdatasync.
    await waitFor("the records written", () => s.cl.writtenOffset === s.cl.maxOffset);
    expect(s.flusher.flushedOffset).toBe(0);
    await s.cl.segments.deleteFirst(); // retention no longer does this, but nothing may wedge
    await s.flush();
    expect((await s.putMessage(message("T", 0, "after"))).status).toBe("PUT_OK");
    await s.flush();
    await s.shutdown();
  });

  test("a full disk refuses puts with SERVICE_NOT_AVAILABLE and keeps what is stored", async () => {
    await using dir = await tempDir();
    let used = 10;
    const s = await openStore(dir.path, {}, { diskUsedPercent: async () => used });
    await s.putMessage(message("T", 0, "kept"));
    used = 95;
    await s.deleteExpiredFiles();
    const r = await s.putMessage(message("T", 0, "refused"));
    expect(r).toEqual({ status: "SERVICE_NOT_AVAILABLE" });
    expect(await readQueue(s, "T", 0)).toEqual([[0, "kept"]]);
    used = 50;
    await s.deleteExpiredFiles();
    expect((await s.putMessage(message("T", 0, "again"))).status).toBe("PUT_OK");
    await s.shutdown();
  });
});
