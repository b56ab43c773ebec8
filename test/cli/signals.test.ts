import { expect, test } from "bun:test";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

const fixture = join(import.meta.dir, "fixtures", "fake-roles.ts");

/** Spawns the fixture with a reader that can wait for a given output line. */
function child(args: string[]) {
  const proc = Bun.spawn([process.execPath, fixture, ...args], {
    env: { PATH: process.env.PATH ?? "", ROCKETBUN_LOG_LEVEL: "info" },
    stdout: "pipe",
    stderr: "pipe",
  });
  const reader = proc.stdout.getReader();
  const decoder = new TextDecoder();
  let text = "";
  /** Reads until `needle` appears (or, without one, until the end); resolves with all output so far. */
  const readUntil = async (needle?: string): Promise<string> => {
    while (needle === undefined || !text.includes(needle)) {
      const { done, value } = await reader.read();
      if (done) {
        if (needle === undefined) return text;
        throw new Error(`child ended before printing ${JSON.stringify(needle)}:\n${text}`);
      }
      text += decoder.decode(value);
    }
    return text;
  };
  return { proc, readUntil };
}

/** The pino `msg` of JSON lines and the plain lines, in order. */
function transcript(text: string): string[] {
  return text
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => (l.startsWith("{") ? String((JSON.parse(l) as { msg: unknown }).msg) : l));
}

test("SIGTERM stops the roles in reverse order and the process exits 0", async () => {
  const { proc, readUntil } = child([]);
  await readUntil("running: NameServer, Broker");
  proc.kill("SIGTERM");
  const [text, code] = await Promise.all([readUntil(), proc.exited]);
  expect({ code, lines: transcript(text) }).toEqual({
    code: 0,
    lines: [
      "starting NameServer",
      "starting Broker",
      "running: NameServer, Broker",
      "SIGTERM received; stopping (send it again to exit at once)",
      "stopping Broker",
      "stopped Broker",
      "stopping NameServer",
      "stopped NameServer",
      "stopped: Broker, NameServer",
    ],
  });
});

test("a second SIGINT while a role hangs in stop exits at once with 130", async () => {
  const { proc, readUntil } = child(["hang"]);
  await readUntil("running: NameServer, Broker");
  proc.kill("SIGINT");
  await readUntil("stopping Broker");
  proc.kill("SIGINT");
  const [text, code, stderr] = await Promise.all([
    readUntil(),
    proc.exited,
    new Response(proc.stderr).text(),
  ]);
  const forced =
    "forced exit (SIGINT received again) while waiting for Broker to stop; the stop was not clean";
  expect({ code, last: transcript(text).slice(-3), stderr }).toEqual({
    code: 130,
    last: ["SIGINT received; stopping (send it again to exit at once)", "stopping Broker", forced],
    stderr: `rocketbun: ${forced}\n`,
  });
});

test("a stop that hangs past its timeout exits 1 after a line naming what it waited for", async () => {
  const { proc, readUntil } = child(["hang", "stop-timeout"]);
  await readUntil("running: NameServer, Broker");
  proc.kill("SIGTERM");
  const [text, code] = await Promise.all([readUntil(), proc.exited]);
  expect({ code, last: transcript(text).at(-1) }).toEqual({
    code: 1,
    last: "forced exit (stop took longer than 0.2 s) while waiting for Broker to stop; the stop was not clean",
  });
});

test("with --log-dir, the forced-exit line reaches the log file before the process exits", async () => {
  const dir = await mkdtemp(join(tmpdir(), "rocketbun-forced-"));
  try {
    const { proc, readUntil } = child(["hang", "stop-timeout", `--log-dir=${dir}`]);
    await readUntil("running: NameServer, Broker");
    proc.kill("SIGTERM");
    expect(await proc.exited).toBe(1);
    const files = (await readdir(dir)).filter((f) => f.startsWith("rocketbun"));
    const text = await readFile(join(dir, files[0]!), "utf8");
    const last = JSON.parse(text.trim().split("\n").at(-1)!) as { msg: string; level: number };
    expect([last.level, last.msg]).toEqual([
      50,
      "forced exit (stop took longer than 0.2 s) while waiting for Broker to stop; the stop was not clean",
    ]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
