/**
 * `npm run bench -- --help` (issue #20 saw it fail): exits 0 without running anything, and names
 * every benchmark file in bench/ with its estimated run time.
 */
import { expect, test } from "bun:test";
import { readdir } from "node:fs/promises";
import { join } from "node:path";

const benchDir = join(import.meta.dir, "..", "..", "bench");

test("--help lists every benchmark with an estimated run time and exits 0", async () => {
  const proc = Bun.spawn([process.execPath, join(benchDir, "run.ts"), "--help"], {
    env: { PATH: process.env.PATH ?? "" },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
  const benches = (await readdir(benchDir))
    .filter((f) => f.endsWith(".ts") && f !== "run.ts")
    .map((f) => f.slice(0, -3))
    .sort();
  const listed = out
    .split("\n")
    .map((l) => /^ {2}(\S+) +~\d+ s +\S/.exec(l)?.[1])
    .filter((n) => n !== undefined)
    .sort();
  expect({ code, listed }).toEqual({ code: 0, listed: benches });
  expect(out).toMatch(/The default set takes about \d+ min/);
});
