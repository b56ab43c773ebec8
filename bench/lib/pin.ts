/**
 * Puts the server child and the bench process on CPUs of their own (Linux `taskset`, every thread),
 * as a broker and its clients sit on separate hosts. On a 2-core machine, unpinned, the client's
 * CPU, its GC threads and the broker's share both cores, so a client measure mixes client cost
 * with broker capacity, and the scheduler's placement swings rates between rounds.
 */

function pin(pid: number, cpus: string): string | undefined {
  try {
    const r = Bun.spawnSync(["taskset", "-a", "-cp", cpus, String(pid)], {
      stdout: "ignore",
      stderr: "pipe",
    });
    return r.exitCode === 0 ? undefined : r.stderr.toString().trim() || `taskset exited ${r.exitCode}`;
  } catch (err) {
    return (err as Error).message;
  }
}

/**
 * Pins `serverPid` to CPU 0 and this process to CPU 1 unless `BENCH_PIN=0`, the machine has one
 * CPU, or taskset is missing. Returns one line for the report: where each side runs, or why not pinned.
 */
export function pinApart(serverPid: number, cpus = navigator.hardwareConcurrency): string {
  if (process.env.BENCH_PIN === "0") return "unpinned (BENCH_PIN=0)";
  if (cpus < 2) return `unpinned (${cpus} CPU)`;
  const failed = pin(serverPid, "0") ?? pin(process.pid, "1");
  if (failed !== undefined) {
    // Half pinned is worse than neither: give the server every CPU back.
    pin(serverPid, `0-${cpus - 1}`);
    return `unpinned (taskset: ${failed})`;
  }
  return "server pinned to CPU 0, this process to CPU 1 (BENCH_PIN=0 unpins)";
}
