/**
 * `rocketbun start` in a child process on free loopback ports with a temp home, for integration
 * tests and benchmarks; plus the small waiting helpers they share. Never sleeps blindly: the
 * broker's boot line on stdout (printed after it registered with the NameServer) means "ready".
 */

import { readFileSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { withServerAllocatorEnv } from "../../src/cli/allocator-env.ts";

const repoRoot = join(import.meta.dir, "..", "..");

/**
 * Below the kernel's ephemeral range, which outgoing connections take their source ports from:
 * a port picked inside it can be taken by some client's connection between the check here and the
 * server's listen (ali-ons clients of earlier tests keep reconnecting in the background).
 */
const EPHEMERAL_LOW = (() => {
  try {
    const low = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 12_000 ? low : 32_768;
  } catch {
    return 32_768;
  }
})();
const PORT_LOW = 10_002;

/** A free loopback port, below the ephemeral range, whose VIP neighbour (port − 2) is free too. */
export function freePort(): number {
  for (;;) {
    const port = PORT_LOW + Math.floor(Math.random() * (EPHEMERAL_LOW - PORT_LOW));
    let a: { stop(closeActive?: boolean): void } | undefined;
    try {
      a = Bun.listen({ hostname: "127.0.0.1", port, socket: { data() {} } });
      Bun.listen({ hostname: "127.0.0.1", port: port - 2, socket: { data() {} } }).stop(true);
      return port;
    } catch {
      // taken: try another
    } finally {
      a?.stop(true);
    }
  }
}

/**
 * Resolves once `check` returns a truthy value, re-checking after every macrotask turn; rejects
 * with `what` after `limitMs` so a broken invariant fails the test instead of hanging it.
 */
export async function waitFor<T>(
  what: string,
  check: () => T | Promise<T>,
  limitMs = 20_000,
): Promise<NonNullable<T>> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const v = await check();
    if (v) return v as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what}`);
    await new Promise<void>((resolve) => setTimeout(resolve, 5));
  }
}

/** Reads `stream` until a line matches, then keeps draining it so the child never blocks on a full pipe. */
export async function waitForLine(stream: ReadableStream<Uint8Array>, pattern: RegExp): Promise<string> {
  const text = await readUntilLine(stream, pattern);
  return text.split("\n").find((l) => pattern.test(l)) ?? "";
}

/** Like waitForLine, but resolves to everything read up to the end of the matching chunk. */
export async function readUntilLine(stream: ReadableStream<Uint8Array>, pattern: RegExp): Promise<string> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let text = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the process exited before printing ${pattern}: ${text}`);
    text += decoder.decode(value, { stream: true });
    if (text.split("\n").some((l) => pattern.test(l))) {
      void (async () => {
        while (!(await reader.read().catch(() => ({ done: true }))).done) {
          // discard
        }
      })();
      return text;
    }
  }
}

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** `rocketbun ...args` as a subprocess with exactly `env`; collects its exit code and output. */
export async function runCli(
  args: readonly string[],
  env: Record<string, string | undefined>,
): Promise<CliResult> {
  const proc = Bun.spawn([process.execPath, "src/cli/main.ts", ...args], {
    cwd: repoRoot,
    env,
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { code, stdout, stderr };
}

export interface StartOptions {
  /** Keys written to a broker.conf passed with -c (brokerIP1 is always 127.0.0.1). */
  brokerConf?: Record<string, string>;
  /**
   * The child's whole environment (plus bin/rocketbun's allocator setting unless it sets its own);
   * default: this process's, with ROCKETBUN_LOG_LEVEL=warn.
   */
  env?: Record<string, string>;
  /** Prefix of the temp home directory. */
  name?: string;
  /** A command the child runs under, e.g. ["prlimit", "--nofile=128:128"]; it must exec its argument. */
  launcher?: readonly string[];
  /** Files written under the home before the first start, by path relative to it (conf/plain_acl.yml). */
  homeFiles?: Readonly<Record<string, string>>;
  /** More arguments for `start` (e.g. --tls-dev). */
  args?: readonly string[];
}

export interface StartedRocketbun extends AsyncDisposable {
  readonly namesrvAddr: string;
  readonly brokerAddr: string;
  /** `http://127.0.0.1:<gateway port>`; the gateway starts after the broker: wait for /readyz. */
  readonly gatewayUrl: string;
  readonly home: string;
  /** The current child's pid. */
  readonly pid: number;
  /** What the current child printed on stdout up to its boot line. */
  readonly bootOutput: string;
  /** Signal the child (SIGTERM by default; SIGKILL for a crash), wait for the exit, start again on the same home and ports. */
  restart(signal?: NodeJS.Signals): Promise<void>;
  /** Resident set size of the child in MiB (Linux /proc). */
  rssMiB(): Promise<number>;
  /** SIGTERM, wait, remove the home. */
  stop(): Promise<void>;
}

/** Children still running; killed when this process exits, so a crashed test or bench leaves no server behind. */
const running = new Set<{ kill(signal?: number | NodeJS.Signals): void }>();
let exitHookSet = false;
function track(child: { kill(signal?: number | NodeJS.Signals): void }): void {
  running.add(child);
  if (exitHookSet) return;
  exitHookSet = true;
  process.once("exit", () => {
    for (const c of running) c.kill("SIGKILL");
  });
}

export async function startRocketbun(options: StartOptions = {}): Promise<StartedRocketbun> {
  const home = await mkdtemp(join(tmpdir(), `${options.name ?? "rocketbun-start"}-`));
  const [nsPort, brokerPort, gwPort] = [freePort(), freePort(), freePort()];
  const conf = join(home, "broker.conf");
  const confText = Object.entries({ brokerIP1: "127.0.0.1", ...options.brokerConf })
    .map(([k, v]) => `${k}=${v}\n`)
    .join("");
  await writeFile(conf, confText);
  for (const [path, text] of Object.entries(options.homeFiles ?? {})) {
    await mkdir(dirname(join(home, path)), { recursive: true });
    await writeFile(join(home, path), text);
  }
  // As bin/rocketbun starts a server (the figures benchmarks print are the ones users get).
  const env = withServerAllocatorEnv(options.env ?? { ...process.env, ROCKETBUN_LOG_LEVEL: "warn" });
  let child: ReturnType<typeof Bun.spawn<"ignore", "pipe", "ignore">> | null = null;
  let bootOutput = "";
  const spawn = async () => {
    const args = ["start", "--home", home, "-c", conf, "--namesrv-port", String(nsPort)];
    args.push("--broker-port", String(brokerPort), "--gateway-port", String(gwPort), ...(options.args ?? []));
    child = Bun.spawn([...(options.launcher ?? []), process.execPath, "src/cli/main.ts", ...args], {
      cwd: repoRoot,
      stdin: "ignore",
      stdout: "pipe",
      stderr: "ignore",
      env,
    });
    track(child);
    bootOutput = await readUntilLine(child.stdout, /The broker\[.*boot success/);
  };
  const halt = async (signal: NodeJS.Signals = "SIGTERM") => {
    child?.kill(signal);
    await child?.exited;
    if (child) running.delete(child);
  };
  await spawn();
  const stop = async () => {
    await halt();
    await rm(home, { recursive: true, force: true });
  };
  return {
    namesrvAddr: `127.0.0.1:${nsPort}`,
    brokerAddr: `127.0.0.1:${brokerPort}`,
    gatewayUrl: `http://127.0.0.1:${gwPort}`,
    home,
    get pid() {
      return child!.pid;
    },
    get bootOutput() {
      return bootOutput;
    },
    async restart(signal?: NodeJS.Signals) {
      await halt(signal);
      await spawn();
    },
    async rssMiB() {
      const status = await readFile(`/proc/${child!.pid}/status`, "utf8");
      return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN) / 1024;
    },
    stop,
    [Symbol.asyncDispose]: stop,
  };
}
