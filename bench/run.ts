/**
 * `npm run bench`: runs every benchmark in turn, each in its own process so one's heap and sockets
 * do not colour the next. Figures are printed beside ceilings measured in the same run.
 * Pass names to run a subset: `npm run bench -- remoting namesrv`; `soak`, `crash`, `timers` (over
 * 90 s at its full million), `pop` (a million leases) and `gateway-ws` (the gateway's WS push alone)
 * run only when named.
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
const onRequest = ["soak", "crash", "timers", "pop", "gateway-ws"];
/** One line each for `--help`: what the benchmark measures and roughly how long it runs here. */
const ABOUT: Readonly<Record<string, string>> = {
  remoting: "frames through the remoting core beside a raw Bun TCP echo",
  namesrv: "route lookups and registrations",
  store: "CommitLog appends beside a raw disk append, both flush modes",
  broker: "1 KiB sends and pulls, 1 and 128 in flight, beside the echo ceiling",
  filter: "backlog drains with no filter, a tag filter and SQL92",
  client: "the native client against the raw remoting client, sends and drains",
  retry: "consumption through send-back beside plain consumption",
  transactions: "committed transactional sends beside plain ones; check-back of 10,000",
  security: "ACL and TLS against plaintext, 1 and 128 in flight",
  gateway: "HTTP produce, receive+ack, WS push and latency beside Hono/Bun ceilings",
  soak: "producer and consumers for 150 s: throughput, RSS, nothing lost (only when named)",
  crash: "SIGKILL under load, 20 rounds per flush mode: nothing acknowledged lost (only when named)",
  timers: "1,000,000 timers over 60 s: lateness, rate, RSS (only when named)",
  pop: "POP vs PULL drain; 1,000,000 leases held and expired (only when named)",
  "gateway-ws": "WS push alone, with the server's CPU per message and an optional profile (only when named)",
};

/**
 * Rough run time of each at its defaults, in seconds: estimated from its measure durations, rounds
 * and setup (server boots, backlog fills), not timed; disk-bound ones (store) vary most.
 */
const ESTIMATED_SECONDS: Readonly<Record<string, number>> = {
  remoting: 20,
  namesrv: 15,
  store: 60,
  broker: 45,
  filter: 40,
  client: 150,
  retry: 15,
  transactions: 60,
  security: 50,
  gateway: 80,
  soak: 170,
  crash: 120,
  timers: 100,
  pop: 90,
  "gateway-ws": 25,
};
const about = (names: readonly string[]) => names.reduce((sum, n) => sum + (ESTIMATED_SECONDS[n] ?? 0), 0);
const minutes = (seconds: number) =>
  seconds < 90 ? `about ${seconds} s` : `about ${Math.round(seconds / 60)} min`;

const wanted = process.argv.slice(2);
if (wanted.includes("--help") || wanted.includes("-h")) {
  console.log(
    [
      "Usage: npm run bench [-- NAME...]",
      "",
      "Runs the default set in turn (each in its own process), or the benchmarks named.",
      "Each prints its figures beside a ceiling measured in the same run, and the ratio.",
      "",
      ...[...all, ...onRequest].map(
        (n) => `  ${n.padEnd(13)}${`~${ESTIMATED_SECONDS[n] ?? "?"} s`.padEnd(8)}${ABOUT[n] ?? ""}`,
      ),
      "",
      `The default set takes ${minutes(about(all))}, all of them ${minutes(about([...all, ...onRequest]))}`,
      "(estimates from each benchmark's durations and rounds on a 2-core machine, not timings).",
      "",
      "Environment: BENCH_PIN=0 (do not pin server and client to separate CPUs), BENCH_DURATION_MS,",
      "BENCH_ROUNDS and per-benchmark knobs named in each file's header.",
    ].join("\n"),
  );
  process.exit(0);
}
const names = wanted.length > 0 ? wanted : all;
if (about(names) > 0) console.log(`# ${names.length} benchmark(s), ${minutes(about(names))} (estimated)`);
let failed = 0;
const started = performance.now();
for (const [i, name] of names.entries()) {
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
  const at = ((performance.now() - started) / 1000).toFixed(0);
  console.log(`\n# [${i + 1}/${names.length}] ${name}: ${ABOUT[name] ?? ""} (${at} s into the run)`);
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
console.log(
  `\n# ${names.length} benchmark(s) in ${((performance.now() - started) / 1000).toFixed(0)} s, ${failed} failed`,
);
process.exit(failed > 0 ? 1 : 0);
