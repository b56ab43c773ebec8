/**
 * CPU time a process has used, from Linux /proc/<pid>/stat (utime + stime, in clock ticks of
 * 10 ms): the server side of a benchmark, which rates on a shared machine swing far more than.
 */
import { readFileSync } from "node:fs";

/** User + system CPU of `pid` in ms, or NaN where /proc is not there. */
export function processCpuMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}

/** What /proc/<pid>/stat says a process has used: CPU split into user and system, and page faults. */
export interface ProcessUsage {
  userMs: number;
  systemMs: number;
  /** Minor faults: pages mapped on first touch, such as memory an allocator gave back and took again. */
  minorFaults: number;
}

/** The usage of `pid`, NaN fields where /proc is not there. */
export function processUsage(pid: number): ProcessUsage {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    // Fields after the command: state is field 3, minflt field 10, utime 14, stime 15 (proc(5)).
    return {
      userMs: Number(fields[11]) * 10,
      systemMs: Number(fields[12]) * 10,
      minorFaults: Number(fields[7]),
    };
  } catch {
    return { userMs: Number.NaN, systemMs: Number.NaN, minorFaults: Number.NaN };
  }
}

/** This process's CPU time (user + system) in µs: the client side of a benchmark. */
export function ownCpuMicros(): number {
  const u = process.cpuUsage();
  return u.user + u.system;
}

/**
 * A `startServer` launcher that runs the server under Bun's CPU profiler, writing `<name>.md`
 * (Bun's markdown summary) into `dir` when it stops. `sh -c` keeps the child's pid the server's
 * own (exec); sh's "$0" is bun, "$@" the script and its arguments.
 */
export function cpuProfileLauncher(dir: string, name: string): string[] {
  const flags = `--cpu-prof-md --cpu-prof-dir=${JSON.stringify(dir)} --cpu-prof-name=${JSON.stringify(`${name}.md`)}`;
  return ["sh", "-c", `exec "$0" ${flags} "$@"`];
}
