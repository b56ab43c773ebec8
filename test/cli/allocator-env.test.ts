/**
 * bin/rocketbun starts servers with freed memory kept for reuse (src/cli/allocator-env.ts), unless
 * the operator set the allocator's purge delay; the value the test launchers use is the script's.
 */
import { describe, expect, test } from "bun:test";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { allocatorNote, SERVER_ALLOCATOR_ENV, withServerAllocatorEnv } from "../../src/cli/allocator-env.ts";
import { freePort, readUntilLine } from "../support/rocketbun-child.ts";

const repoRoot = join(import.meta.dir, "..", "..");

/** The environment of the process `pid` as the kernel recorded it at its exec (Linux /proc). */
async function environOf(pid: number): Promise<Map<string, string>> {
  const raw = await readFile(`/proc/${pid}/environ`, "latin1");
  const out = new Map<string, string>();
  for (const entry of raw.split("\0")) {
    const eq = entry.indexOf("=");
    if (eq > 0) out.set(entry.slice(0, eq), entry.slice(eq + 1));
  }
  return out;
}

/** `bin/rocketbun start` with `env` until its boot line; the environment its server process runs with. */
async function serverEnvironment(env: Record<string, string | undefined>): Promise<Map<string, string>> {
  const home = await mkdtemp(join(tmpdir(), "rocketbun-allocator-"));
  const args = ["start", "--home", home, "--namesrv-port", String(freePort())];
  args.push("--broker-port", String(freePort()), "--gateway-port", String(freePort()));
  const child = Bun.spawn(["sh", join(repoRoot, "bin", "rocketbun"), ...args], {
    cwd: repoRoot,
    stdin: "ignore",
    stdout: "pipe",
    stderr: "ignore",
    env,
  });
  try {
    await readUntilLine(child.stdout, /The broker\[.*boot success/);
    // The script execs Bun, so the pid is the server's own.
    return await environOf(child.pid);
  } finally {
    child.kill("SIGTERM");
    await child.exited;
    await rm(home, { recursive: true, force: true });
  }
}

const baseEnv = () => {
  const env: Record<string, string | undefined> = { ...process.env, ROCKETBUN_LOG_LEVEL: "warn" };
  delete env.MIMALLOC_PURGE_DELAY;
  return env;
};

describe.skipIf(process.platform !== "linux")("bin/rocketbun", () => {
  test("starts the server with the allocator setting the launchers use", async () => {
    const environ = await serverEnvironment(baseEnv());
    expect(environ.get("MIMALLOC_PURGE_DELAY")).toBe(SERVER_ALLOCATOR_ENV.MIMALLOC_PURGE_DELAY);
    expect(SERVER_ALLOCATOR_ENV.MIMALLOC_PURGE_DELAY).toBe("-1");
  });

  test("keeps an operator's own purge delay", async () => {
    const environ = await serverEnvironment({ ...baseEnv(), MIMALLOC_PURGE_DELAY: "250" });
    expect(environ.get("MIMALLOC_PURGE_DELAY")).toBe("250");
  });
});

describe("allocator settings", () => {
  test("fill in what the environment leaves unset and keep what it sets", () => {
    expect(withServerAllocatorEnv({ A: "1" })).toEqual({ A: "1", MIMALLOC_PURGE_DELAY: "-1" });
    expect(withServerAllocatorEnv({ MIMALLOC_PURGE_DELAY: "100" }).MIMALLOC_PURGE_DELAY).toBe("100");
    expect(withServerAllocatorEnv({ MIMALLOC_PURGE_DELAY: undefined }).MIMALLOC_PURGE_DELAY).toBe("-1");
  });

  test("a server started without the setting says so at startup; with it, nothing", () => {
    expect(allocatorNote({})).toContain("MIMALLOC_PURGE_DELAY is not set");
    expect(allocatorNote({ MIMALLOC_PURGE_DELAY: "-1" })).toBeNull();
    expect(allocatorNote({ MIMALLOC_PURGE_DELAY: "100" })).toBeNull();
  });
});
