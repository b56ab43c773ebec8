/**
 * The admin suite's server: `rocketbun start` in a child process on free loopback ports with a temp
 * home, and a runner for `rocketbun admin <verb> -n <that NameServer> ...` as a subprocess.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAdmin } from "../../../src/client/index.ts";
import { waitFor } from "../../client/harness.ts";
import { silent } from "../../client/silent.ts";

const repoRoot = join(import.meta.dir, "..", "..", "..");

async function freePort(): Promise<number> {
  for (;;) {
    // The broker also listens on port - 2 (VIP), so both must be free.
    const port = 20000 + Math.floor(Math.random() * 30000);
    try {
      const a = Bun.listen({ hostname: "127.0.0.1", port, socket: { data() {} } });
      const b = Bun.listen({ hostname: "127.0.0.1", port: port - 2, socket: { data() {} } });
      a.stop(true);
      b.stop(true);
      return port;
    } catch {
      // taken: try another
    }
  }
}

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export interface AdminServer extends AsyncDisposable {
  readonly namesrvAddr: string;
  readonly brokerAddr: string;
  readonly brokerName: string;
  readonly clusterName: string;
  /** `rocketbun admin <verb> -n <namesrvAddr> ...args`. */
  admin(verb: string, ...args: string[]): Promise<CliResult>;
  /** `rocketbun ...args` with the suite's environment and nothing else. */
  cli(...args: string[]): Promise<CliResult>;
}

export async function startAdminServer(): Promise<AdminServer> {
  const home = await mkdtemp(join(tmpdir(), "rocketbun-admin-"));
  const [nsPort, brokerPort, gwPort] = [await freePort(), await freePort(), await freePort()];
  const namesrvAddr = `127.0.0.1:${nsPort}`;
  // A fixed, minimal environment: no NAMESRV_ADDR, no log lines.
  const env = { PATH: process.env.PATH ?? "", HOME: home, ROCKETBUN_LOG_LEVEL: "silent" };
  const child = Bun.spawn(
    [
      process.execPath,
      "src/cli/main.ts",
      "start",
      "--home",
      home,
      "--namesrv-port",
      String(nsPort),
      "--broker-port",
      String(brokerPort),
      "--gateway-port",
      String(gwPort),
    ],
    { cwd: repoRoot, stdout: "ignore", stderr: "ignore", env },
  );
  const probe = await createAdmin({ namesrvAddr, log: silent, mqClientApiTimeoutMs: 500 });
  let broker: { cluster: string; brokerName: string; addr: string };
  try {
    broker = await waitFor("a broker registered", async () => {
      if (child.exitCode !== null) throw new Error(`rocketbun start exited with ${child.exitCode}`);
      const info = await probe.clusterList().catch(() => null);
      const [b] = info?.brokerAddrTable.values() ?? [];
      const addr = b?.brokerAddrs.get(0);
      return b && addr ? { cluster: b.cluster, brokerName: b.brokerName, addr } : null;
    });
  } catch (err) {
    child.kill("SIGTERM");
    throw err;
  } finally {
    await probe.shutdown();
  }
  const cli = async (...args: string[]): Promise<CliResult> => {
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
  };
  return {
    namesrvAddr,
    brokerAddr: broker.addr,
    brokerName: broker.brokerName,
    clusterName: broker.cluster,
    cli,
    admin: (verb, ...args) => cli("admin", verb, "-n", namesrvAddr, ...args),
    async [Symbol.asyncDispose]() {
      child.kill("SIGTERM");
      await child.exited;
      await rm(home, { recursive: true, force: true });
    },
  };
}

/**
 * The lines of a table as arrays of cells (split on runs of two or more spaces, so an empty cell
 * vanishes), header first; a blank line is [].
 */
export function rows(stdout: string): string[][] {
  return stdout
    .trimEnd()
    .split("\n")
    .map((line) => (line === "" ? [] : line.split(/ {2,}/)));
}
