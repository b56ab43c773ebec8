/**
 * `npm run bench`: runs every benchmark in turn, each in its own process so one's heap and sockets
 * do not colour the next. Figures are printed beside ceilings measured in the same run.
 * Pass names to run a subset: `npm run bench -- remoting namesrv`; `soak`, `crash`, `timers` (over
 * 90 s at its full million) and `pop` (a million leases) run only when named.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";

const all = [
  "remoting",
  "namesrv",
  "store",
  "broker",
  "filter",
  "client",
  "retry",
  "transactions",
  "security",
  "gateway",
];
/** Run only when named: they take minutes. */
const onRequest = ["soak", "crash", "timers", "pop"];
const wanted = process.argv.slice(2);
const names = wanted.length > 0 ? wanted : all;
let failed = 0;
for (const name of names) {
  const file = join(import.meta.dir, `${name}.ts`);
  if (!existsSync(file)) {
    if (wanted.length > 0) {
      console.error(
        `no benchmark named '${name}' (have: ${[...all, ...onRequest].filter((n) => existsSync(join(import.meta.dir, `${n}.ts`))).join(", ")})`,
      );
      failed++;
    }
    continue;
  }
  const proc = Bun.spawn([process.execPath, file], {
    stdout: "inherit",
    stderr: "inherit",
    env: { ROCKETBUN_LOG_LEVEL: "warn", ...process.env },
  });
  if ((await proc.exited) !== 0) {
    console.error(`benchmark ${name} failed`);
    failed++;
  }
}
process.exit(failed > 0 ? 1 : 0);
