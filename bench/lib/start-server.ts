/**
 * `rocketbun start` in a child process for benchmarks: free loopback ports, a temp home, an optional
 * broker.conf; resolves once the broker's boot line is printed, and reports the child's RSS.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

const root = join(import.meta.dir, "..", "..");

export interface StartedServer {
  namesrvAddr: string;
  brokerAddr: string;
  pid: number;
  /** Resident set size of the child in MiB (Linux /proc). */
  rssMiB(): Promise<number>;
  stop(): Promise<void>;
}

/** A free loopback port whose VIP neighbour (port - 2) is free too. */
function freePort(): number {
  for (;;) {
    const port = 20000 + Math.floor(Math.random() * 30000);
    try {
      const a = Bun.listen({ hostname: "127.0.0.1", port, socket: { data() {} } });
      try {
        const b = Bun.listen({ hostname: "127.0.0.1", port: port - 2, socket: { data() {} } });
        b.stop(true);
        return port;
      } finally {
        a.stop(true);
      }
    } catch {
      // taken: try another
    }
  }
}

export async function startServer(brokerConf: Record<string, string> = {}): Promise<StartedServer> {
  const home = await mkdtemp(join(tmpdir(), "rocketbun-bench-start-"));
  const [nsPort, brokerPort, gwPort] = [freePort(), freePort(), freePort()];
  const conf = join(home, "broker.conf");
  await writeFile(
    conf,
    Object.entries({ brokerIP1: "127.0.0.1", ...brokerConf })
      .map(([k, v]) => `${k}=${v}\n`)
      .join(""),
  );
  const proc = Bun.spawn(
    [
      process.execPath,
      "src/cli/main.ts",
      "start",
      "--home",
      home,
      "-c",
      conf,
      "--namesrv-port",
      String(nsPort),
      "--broker-port",
      String(brokerPort),
      "--gateway-port",
      String(gwPort),
    ],
    { cwd: root, stdout: "pipe", stderr: "inherit", env: { ...process.env, ROCKETBUN_LOG_LEVEL: "warn" } },
  );
  const reader = proc.stdout.getReader();
  const decoder = new TextDecoder();
  let text = "";
  while (!/The broker\[.*boot success/.test(text)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`rocketbun start exited before its broker booted: ${text}`);
    text += decoder.decode(value, { stream: true });
  }
  // Keep draining stdout so the child never blocks on a full pipe.
  void (async () => {
    while (!(await reader.read().catch(() => ({ done: true }))).done) {
      // discard
    }
  })();
  return {
    namesrvAddr: `127.0.0.1:${nsPort}`,
    brokerAddr: `127.0.0.1:${brokerPort}`,
    pid: proc.pid,
    async rssMiB() {
      const status = await readFile(`/proc/${proc.pid}/status`, "utf8");
      const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN);
      return kb / 1024;
    },
    async stop() {
      proc.kill("SIGTERM");
      await proc.exited;
      await rm(home, { recursive: true, force: true });
    },
  };
}
