/**
 * Log format by where stdout goes, with the real CLI: under a pseudo-terminal (util-linux `script`)
 * a NameServer logs coloured, human-readable lines; piped, or with `--log-format json` on the
 * terminal, one JSON object per line. Each run stops on SIGTERM and must end with its stopped line.
 * The terminal cases are skipped, with the reason printed, where `script` is not installed.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "../support/rocketbun-child.ts";

const repoRoot = join(import.meta.dir, "..", "..");
const script = Bun.which("script");
if (script === null)
  console.warn("tty-logs: skipped, `script` (util-linux) is not installed to make a pseudo-terminal");

const ESC = "\u001b[";
const homes: string[] = [];

afterEach(async () => {
  for (const home of homes.splice(0)) await rm(home, { recursive: true, force: true });
});

/**
 * Runs `rocketbun namesrv` (under `script` when `tty`), waits for its running line, sends SIGTERM to
 * the CLI itself (its pid comes first on the output) and returns every output line.
 */
async function namesrvOutput(tty: boolean, extraArgs: string[] = []): Promise<string[]> {
  const home = await mkdtemp(join(tmpdir(), "rocketbun-tty-"));
  homes.push(home);
  const cli = [
    "exec",
    JSON.stringify(process.execPath),
    "src/cli/main.ts",
    "namesrv",
    "--home",
    home,
    ...extraArgs,
  ];
  const shell = `echo PID=$$; ${cli.join(" ")}`;
  const argv = tty ? [script!, "-qec", `sh -c '${shell}'`, "/dev/null"] : ["sh", "-c", shell];
  const child = Bun.spawn(argv, {
    cwd: repoRoot,
    stdin: tty ? "pipe" : "ignore",
    stdout: "pipe",
    stderr: "pipe",
    env: { PATH: process.env.PATH ?? "", ROCKETBUN_NAMESRV_PORT: String(freePort()), TERM: "xterm" },
  });
  const reader = child.stdout.getReader();
  const decoder = new TextDecoder();
  let text = "";
  try {
    while (!/running: namesrv/.test(text)) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`namesrv ended before running:\n${text}`);
      text += decoder.decode(value, { stream: true });
    }
    const pid = Number(/PID=(\d+)/.exec(text)?.[1]);
    process.kill(pid, "SIGTERM");
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
  } finally {
    child.kill();
    await child.exited;
  }
  return text
    .replaceAll("\r", "")
    .split("\n")
    .filter((l) => l !== "" && !l.startsWith("PID="));
}

const logLines = (lines: string[]) =>
  lines.filter((l) => l.includes("running: namesrv") || l.includes("stopped:"));

describe.skipIf(script === null)("console log format by destination", () => {
  test("on a terminal: coloured readable lines, no JSON, ending with the stopped line", async () => {
    const lines = await namesrvOutput(true);
    expect(lines.filter((l) => l.startsWith("{"))).toEqual([]);
    const [running, stopped] = logLines(lines);
    // e.g. `[09:27:53.937] INFO: cli: running: namesrv`, the level and message in colour.
    expect(running).toMatch(/^\[\d\d:\d\d:\d\d\.\d\d\d\] /);
    expect(running).toContain(`${ESC}32mINFO${ESC}39m`);
    expect(running).toContain("cli: running: namesrv");
    expect(stopped).toContain("cli: stopped: namesrv");
    // Once, plain: not also as a JSON copy (issue #20 saw each boot line twice on a terminal).
    expect(lines.filter((l) => l.includes("boot success"))).toHaveLength(1);
  });

  test("on a terminal with --log-format json: JSON lines, no colour", async () => {
    const lines = await namesrvOutput(true, ["--log-format", "json"]);
    const msgs = logLines(lines).map((l) => (JSON.parse(l) as { msg: string }).msg);
    expect(msgs).toEqual(["running: namesrv", "stopped: namesrv"]);
    expect(lines.filter((l) => l.includes(ESC))).toEqual([]);
  });
});

test("piped: JSON lines, no colour", async () => {
  const lines = await namesrvOutput(false);
  const msgs = logLines(lines).map((l) => (JSON.parse(l) as { msg: string }).msg);
  expect(msgs).toEqual(["running: namesrv", "stopped: namesrv"]);
  expect(lines.filter((l) => l.includes(ESC))).toEqual([]);
  expect(lines.filter((l) => l.includes("boot success"))).toHaveLength(1);
});

test("inside an application the library logs only warnings unless ROCKETBUN_LOG_LEVEL says otherwise", async () => {
  const level = async (env: Record<string, string>) => {
    const code = `const { rootLogger } = await import("./src/log.ts"); console.log(rootLogger.level);`;
    const proc = Bun.spawn([process.execPath, "-e", code], {
      cwd: repoRoot,
      env: { PATH: process.env.PATH ?? "", ...env },
      stdout: "pipe",
    });
    return (await new Response(proc.stdout).text()).trim();
  };
  expect([await level({}), await level({ ROCKETBUN_LOG_LEVEL: "debug" })]).toEqual(["warn", "debug"]);
});
