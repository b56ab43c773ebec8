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
