import { describe, expect, test } from "bun:test";
import { open, readdir, readFile, rm, truncate, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { CHECKPOINT_FILE_BYTES } from "../../../broker/store/checkpoint.ts";
import { abandon, commitLogFiles, openStore, readQueue } from "./file-store.helpers.ts";
import { message, tempDir } from "./helpers.ts";

const bodies = (n: number, from = 0) =>
  Array.from({ length: n }, (_, i) => [from + i, `m-${from + i}`] as [number, string]);

async function fill(root: string, n: number, queues = 1) {
  const s = await openStore(root);
  const puts = [];
  for (let i = 0; i < n; i++) {
    puts.push((await s.putMessage(message("T", i % queues, `m-${i}`, { KEYS: `key-${i}` }))).result!);
  }
  await s.shutdown();
  return puts;
}

async function patch(path: string, pos: number, bytes: Uint8Array) {
  const fh = await open(path, "r+");
  await fh.write(bytes, 0, bytes.length, pos);
  await fh.close();
}

/** Contents of every consume-queue file by path, and of the index files in name order. */
async function treeBytes(root: string): Promise<{ queues: Record<string, string>; index: string[] }> {
  const queues: Record<string, string> = {};
  const cq = join(root, "consumequeue");
  for (const f of (await readdir(cq, { recursive: true })).sort()) {
    const b = await readFile(join(cq, f)).catch(() => undefined);
    if (b) queues[f] = b.toString("hex");
  }
  const idx = join(root, "index");
  const index = [];
  for (const f of (await readdir(idx)).sort()) index.push((await readFile(join(idx, f))).toString("hex"));
  return { queues, index };
}

describe("recovery keeps exactly the whole valid records", () => {
  test("a record cut in the middle is dropped, and appends continue where it began", async () => {
    await using dir = await tempDir();
    const puts = await fill(dir.path, 12);
    const last = puts.at(-1)!;
    const file = (await commitLogFiles(dir.path)).at(-1)!;
    // Zero the second half of the last record (a torn write) and mark the shutdown unclean.
    const pos = (last.wroteOffset % 4096) + Math.floor(last.wroteBytes / 2);
    await patch(join(dir.path, "commitlog", file), pos, new Uint8Array(last.wroteBytes));
    await writeFile(join(dir.path, "abort"), "");
    const s = await openStore(dir.path);
    expect([s.recoveryReport!.validEnd, s.recoveryReport!.invalidReason]).toEqual([
      last.wroteOffset,
      "total size differs from the fields",
    ]);
    expect(await readQueue(s, "T", 0)).toEqual(bodies(11));
    const next = await s.putMessage(message("T", 0, "after"));
    expect([next.result!.queueOffset, next.result!.wroteOffset]).toEqual([11, last.wroteOffset]);
    expect((await readQueue(s, "T", 0)).at(-1)).toEqual([11, "after"]);
    await s.shutdown();
  });

  test("a last file cut short by the file system is extended and recovered", async () => {
    await using dir = await tempDir();
    const puts = await fill(dir.path, 6);
    const last = puts.at(-1)!;
    const file = (await commitLogFiles(dir.path)).at(-1)!;
    await truncate(join(dir.path, "commitlog", file), (last.wroteOffset % 4096) + 10);
    const s = await openStore(dir.path);
    expect(await readQueue(s, "T", 0)).toEqual(bodies(5));
    await s.shutdown();
  });

  test("a flipped body byte stops the CRC scan at that record", async () => {
    await using dir = await tempDir();
    const puts = await fill(dir.path, 12, 2);
    const victim = puts[7]!;
    const file = (await commitLogFiles(dir.path)).find(
      (f) => Number(f) === victim.wroteOffset - (victim.wroteOffset % 4096),
    )!;
    // The body sits 88 bytes after the record start for IPv4 hosts (spec §4.1).
    await patch(join(dir.path, "commitlog", file), (victim.wroteOffset % 4096) + 88, new Uint8Array([0x21]));
    const s = await openStore(dir.path);
    expect([s.recoveryReport!.validEnd, s.recoveryReport!.invalidReason]).toEqual([
      victim.wroteOffset,
      "body CRC mismatch",
    ]);
    expect([await readQueue(s, "T", 0), await readQueue(s, "T", 1)]).toEqual([
      [
        [0, "m-0"],
        [1, "m-2"],
        [2, "m-4"],
        [3, "m-6"],
      ],
      [
        [0, "m-1"],
        [1, "m-3"],
        [2, "m-5"],
      ],
    ]);
    expect(s.getMaxPhyOffset()).toBe(victim.wroteOffset);
    await s.shutdown();
  });

  test("deleting consumequeue/ and index/ rebuilds both through dispatch", async () => {
    await using dir = await tempDir();
    const before = await fill(dir.path, 30, 3);
    await rm(join(dir.path, "consumequeue"), { recursive: true });
    await rm(join(dir.path, "index"), { recursive: true });
    const s = await openStore(dir.path);
    expect(s.recoveryReport!.scanFrom).toBe(0);
    for (let q = 0; q < 3; q++) {
      expect((await readQueue(s, "T", q)).map(([, b]) => b)).toEqual(
        Array.from({ length: 10 }, (_, i) => `m-${i * 3 + q}`),
      );
    }
    const hit = await s.queryMessage("T", "key-17", 32, 0, Number.MAX_SAFE_INTEGER);
    expect(hit.messages.length).toBe(1);
    expect(await s.getCommitLogOffsetInQueue("T", 2, 5)).toBe(before[17]!.wroteOffset);
    await s.shutdown();
  });

  test("consume queues and index rebuilt from the CommitLog are byte-identical to the ones built live", async () => {
    await using dir = await tempDir();
    const s = await openStore(dir.path);
    for (let i = 0; i < 12; i++) {
      const props: Record<string, string> = { TAGS: `t${i % 3}`, KEYS: `a-${i} b-${i}`, UNIQ_KEY: `U${i}` };
      if (i % 4 === 0) props.TAGS = "";
      await s.putMessage(message("T", i % 2, `m-${i}`, props));
    }
    await s.putMessage(message("SCHEDULE_TOPIC_XXXX", 2, "d", { DELAY: "3", TAGS: "x", REAL_TOPIC: "T" }));
    await s.putMessages([message("T", 1, "b0", { KEYS: "k0" }), message("T", 1, "b1", { TAGS: "t9" })]);
    await s.shutdown();
    const live = await treeBytes(dir.path);
    await rm(join(dir.path, "consumequeue"), { recursive: true });
    await rm(join(dir.path, "index"), { recursive: true });
    await (await openStore(dir.path)).shutdown();
    expect(await treeBytes(dir.path)).toEqual(live);
  });

  test("after a crash with a lagging checkpoint, recovery replays without duplicating anything", async () => {
    await using dir = await tempDir();
    await fill(dir.path, 10);
    const s = await openStore(dir.path);
    for (let i = 10; i < 25; i++) await s.putMessage(message("T", 0, `m-${i}`, { KEYS: `key-${i}` }));
    await s.flusher.flushAll();
    await abandon(s);
    await writeFile(join(dir.path, "checkpoint"), new Uint8Array(CHECKPOINT_FILE_BYTES));
    const r = await openStore(dir.path);
    expect([r.recoveryReport!.abnormal, r.recoveryReport!.scanFrom]).toEqual([true, 0]);
    expect(await readQueue(r, "T", 0)).toEqual(bodies(25));
    const hits = await r.queryMessage("T", "key-3", 32, 0, Number.MAX_SAFE_INTEGER);
    expect(hits.messages.length).toBe(1);
    await r.shutdown();
  });
});
