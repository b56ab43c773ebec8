import { expect } from "bun:test";
import { createAdmin } from "../../../src/client/index.ts";
import { type CliResult, runCli, startRocketbun, waitFor } from "../../support/rocketbun-child.ts";
import { silent } from "../../support/silent.ts";

export type { CliResult };

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
  // A fixed, minimal environment: no NAMESRV_ADDR, no log lines.
  const env: Record<string, string> = { PATH: process.env.PATH ?? "", ROCKETBUN_LOG_LEVEL: "silent" };
  const server = await startRocketbun({ name: "rocketbun-admin", env });
  env.HOME = server.home;
  const { namesrvAddr } = server;
  const probe = await createAdmin({ namesrvAddr, log: silent, mqClientApiTimeoutMs: 500 });
  let broker: { cluster: string; brokerName: string; addr: string };
  try {
    broker = await waitFor("a broker registered", async () => {
      const info = await probe.clusterList().catch(() => null);
      const [b] = info?.brokerAddrTable.values() ?? [];
      const addr = b?.brokerAddrs.get(0);
      return b && addr ? { cluster: b.cluster, brokerName: b.brokerName, addr } : null;
    });
  } catch (err) {
    await server.stop();
    throw err;
  } finally {
    await probe.shutdown();
  }
  const cli = (...args: string[]) => runCli(args, env);
  return {
    namesrvAddr,
    brokerAddr: broker.addr,
    brokerName: broker.brokerName,
    clusterName: broker.cluster,
    cli,
    admin: (verb, ...args) => cli("admin", verb, "-n", namesrvAddr, ...args),
    [Symbol.asyncDispose]: () => server.stop(),
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

/** `rocketbun admin <verb>` that must succeed with nothing on stderr; its stdout. */
export async function adminOk(server: AdminServer, verb: string, ...args: string[]): Promise<string> {
  const r = await server.admin(verb, ...args);
  expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: "" });
  return r.stdout;
}
