/**
 * Recovery progress lines: after a crash the store says how much CommitLog it will check, reports
 * progress at most once per interval through the check and the replay, and ends with a done line;
 * a clean restart says none of this.
 */
import { describe, expect, test } from "bun:test";
import { open } from "node:fs/promises";
import { join } from "node:path";
import pino from "pino";
import { RecoveryProgress } from "../../../broker/store/recovery-progress.ts";
import { abandon, commitLogFiles, openStore, readQueue } from "./file-store.helpers.ts";
import { message, tempDir } from "./helpers.ts";

interface Line {
  level: number;
  msg: string;
  records?: number;
  truncatedBytes?: number;
  bytes?: number;
}

function recordingLog(level = "info") {
  const lines: Line[] = [];
  const log = pino({ level }, { write: (l: string) => void lines.push(JSON.parse(l) as Line) });
  return { log, lines };
}

const MIB = 1024 * 1024;

describe("RecoveryProgress", () => {
  test("after a crash: a start line, one progress line per interval and phase, a done line", () => {
    const { log, lines } = recordingLog();
    let now = 0;
    const p = new RecoveryProgress({ log, abnormal: true, intervalMs: 1000, now: () => now, clockEvery: 1 });
    p.begin(0, 4 * MIB);
    now = 999;
    p.advance("check", 1 * MIB); // inside the interval: silent
    now = 1000;
    p.advance("check", 2 * MIB);
    now = 1500;
    p.advance("check", 3 * MIB);
    p.checked(3 * MIB);
    now = 2500;
    p.advance("dispatch", 1.5 * MIB);
    now = 3200;
    p.end({ validEnd: 3 * MIB, truncatedBytes: 17 });
    expect(lines.map((l) => [l.level, l.msg])).toEqual([
      [40, "abnormal recovery: about 4.0 MiB of commitlog to check (the last shutdown was not clean)"],
      [30, "abnormal recovery: checked 2.0 of 4.0 MiB (50%), 1.0 s so far"],
      [30, "abnormal recovery: re-dispatched 1 records, 1.5 of 3.0 MiB (50%), 2.5 s so far"],
      [
        30,
        "abnormal recovery done in 3.2 s: 3.0 MiB checked, 1 records re-dispatched, 17 bytes of torn tail cut",
      ],
    ]);
  });

  test("a normal recovery logs progress only when it runs past the interval, and no start or done line", () => {
    const { log, lines } = recordingLog();
    let now = 0;
    const p = new RecoveryProgress({ log, abnormal: false, intervalMs: 1000, now: () => now, clockEvery: 1 });
    p.begin(0, MIB);
    now = 10;
    p.advance("check", MIB);
    p.checked(MIB);
    p.end({ validEnd: MIB, truncatedBytes: 0 });
    expect(lines).toEqual([]);
    now = 1010;
    p.advance("dispatch", MIB / 2);
    expect(lines.map((l) => l.msg)).toEqual([
      "recovery: re-dispatched 1 records, 0.5 of 1.0 MiB (50%), 1.0 s so far",
    ]);
  });
});

/** Puts `n` messages, then leaves the store as a killed process would: abort file present. */
async function crashAfter(root: string, n: number) {
  const s = await openStore(root);
  const puts = [];
  for (let i = 0; i < n; i++) puts.push((await s.putMessage(message("T", 0, `m-${i}`))).result!);
  await s.flushLogics();
  await abandon(s);
  return puts;
}

describe("a store reopened after a crash", () => {
  test("killed mid-write: start, progress in both phases, and a done line naming the cut", async () => {
    await using dir = await tempDir();
    const puts = await crashAfter(dir.path, 400);
    // The last record was only half written when the process died.
    const last = puts.at(-1)!;
    const file = (await commitLogFiles(dir.path)).at(-1)!;
    const fh = await open(join(dir.path, "commitlog", file), "r+");
    const half = Math.floor(last.wroteBytes / 2);
    await fh.write(
      new Uint8Array(last.wroteBytes - half),
      0,
      last.wroteBytes - half,
      (last.wroteOffset % 4096) + half,
    );
    await fh.close();

    const { log, lines } = recordingLog();
    const s = await openStore(dir.path, {}, { log, recoveryProgressIntervalMs: 0 });
    const report = s.recoveryReport!;
    expect(await readQueue(s, "T", 0)).toHaveLength(399);
    await s.shutdown();

    const ours = lines.filter((l) => l.msg.startsWith("abnormal recovery"));
    expect(ours[0]!.msg).toStartWith("abnormal recovery: about ");
    expect(ours.some((l) => l.msg.startsWith("abnormal recovery: checked "))).toBe(true);
    expect(ours.some((l) => l.msg.startsWith("abnormal recovery: re-dispatched "))).toBe(true);
    const done = ours.at(-1)!;
    expect(done.msg).toMatch(/^abnormal recovery done in \d+\.\d s: /);
    // Every record from where the scan began is replayed; the torn one is cut, not replayed.
    const replayedFrom = puts.findIndex((p) => p.wroteOffset >= report.scanFrom);
    expect([done.records, done.truncatedBytes! > 0]).toEqual([399 - replayedFrom, true]);
  });

  test("with the default interval a quick recovery logs only its start and done lines", async () => {
    await using dir = await tempDir();
    await crashAfter(dir.path, 10);
    const { log, lines } = recordingLog();
    const s = await openStore(dir.path, {}, { log });
    await s.shutdown();
    const ours = lines.filter((l) => l.msg.includes("recovery")).map((l) => l.msg.replace(/[:\d].*/, ""));
    expect(ours).toEqual(["abnormal recovery", "abnormal recovery done in "]);
  });

  test("the amount to check is the data written, not the preallocated size of the last file", async () => {
    await using dir = await tempDir();
    const big = { mappedFileSizeCommitLog: 1024 * 1024 };
    const s0 = await openStore(dir.path, big);
    for (let i = 0; i < 20; i++) await s0.putMessage(message("T", 0, `m-${i}`));
    await s0.flush();
    await abandon(s0);
    const { log, lines } = recordingLog();
    const s = await openStore(dir.path, big, { log });
    const written = s.getMaxPhyOffset();
    await s.shutdown();
    const start = lines.find((l) => l.msg.startsWith("abnormal recovery: about"))!;
    // Allocated blocks round the written bytes up to the file system's block size.
    expect(start.bytes).toBeGreaterThanOrEqual(written);
    expect(start.bytes).toBeLessThan(written + 64 * 1024);
  });

  test("after a clean shutdown there is no abnormal recovery line", async () => {
    await using dir = await tempDir();
    const first = await openStore(dir.path);
    for (let i = 0; i < 10; i++) await first.putMessage(message("T", 0, `m-${i}`));
    await first.shutdown();
    const { log, lines } = recordingLog();
    const s = await openStore(dir.path, {}, { log, recoveryProgressIntervalMs: 0 });
    await s.shutdown();
    expect(lines.filter((l) => l.msg.startsWith("abnormal"))).toEqual([]);
    expect(lines.some((l) => l.msg === "store recovered")).toBe(true);
  });
});
