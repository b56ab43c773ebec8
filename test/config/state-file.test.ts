import { expect, test } from "bun:test";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { StateFile } from "../../src/config/state-file.ts";
import { flakyWriter } from "../support/flaky-writer.ts";
import { waitFor } from "../support/rocketbun-child.ts";

async function tempDir() {
  const path = await mkdtemp(join(tmpdir(), "rocketbun-state-"));
  return { path, [Symbol.asyncDispose]: () => rm(path, { recursive: true, force: true }) };
}

/** A debug-level logger that keeps each line's level and message. */
function capturingLog() {
  const lines: { level: number; msg: string }[] = [];
  const log = pino({ level: "debug" }, { write: (line: string) => lines.push(JSON.parse(line)) });
  const at = (level: number) => lines.filter((l) => l.level === level).map((l) => l.msg);
  return { log, errors: () => at(50), infos: () => at(30), debugs: () => at(20) };
}

test("a failed write keeps the old file, is retried with the latest state, and is logged once per run of failures", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "kvConfig.json");
  const writer = flakyWriter();
  const logs = capturingLog();
  let state = "v1";
  const file = new StateFile({
    path,
    render: () => state,
    log: logs.log,
    what: "KV config",
    write: writer.write,
    retryMs: 1,
  });
  file.markDirty();
  expect(await file.save()).toBe(true);

  writer.failing = true;
  state = "v2";
  file.markDirty();
  expect(await file.save()).toBe(false);
  expect(file.pending).toBe(true);
  // The state moves on while the writes keep failing; the retries render the newest one.
  state = "v3";
  file.markDirty();
  await waitFor("three failed retries", () => writer.attempts >= 5);
  expect(await readFile(path, "utf8")).toBe("v1");

  writer.failing = false;
  await waitFor("the retry that succeeds", async () => (await readFile(path, "utf8")) === "v3");
  await waitFor("the file to catch up", () => !file.pending);
  expect(logs.errors()).toEqual(["writing the KV config failed; retrying with the latest state"]);
  expect(logs.debugs().length).toBeGreaterThanOrEqual(3);
  expect(logs.infos()).toEqual(["the KV config is written again"]);

  // A new run of failures is a new episode: one more error line.
  writer.failing = true;
  state = "v4";
  file.markDirty();
  expect(await file.save()).toBe(false);
  expect(logs.errors().length).toBe(2);
  writer.failing = false;
  expect(await file.close()).toBe(true);
  expect(await readFile(path, "utf8")).toBe("v4");
});

test("close makes one last attempt and says whether the file holds the state", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "namesrv-runtime.properties");
  const writer = flakyWriter();
  writer.failing = true;
  const file = new StateFile({
    path,
    render: () => "x=1\n",
    log: pino({ level: "silent" }),
    what: "runtime config changes",
    write: writer.write,
    retryMs: 60_000,
  });
  file.markDirty();
  expect(await file.save()).toBe(false);
  expect(await file.close()).toBe(false);
  writer.failing = false;
  // Closed, but an explicit save still writes (shutdown paths may flush once more).
  expect(await file.save()).toBe(true);
  expect(await readFile(path, "utf8")).toBe("x=1\n");
});
