/**
 * bench/security: what ACL signatures and TLS cost a sender. 1 KiB SEND_MESSAGE_V2 over the raw
 * RemotingClient, 1 and 128 in flight, against `rocketbun start` children:
 *
 *   plain   permissive TLS, ACL off: plaintext connections (the "off" side of every pair)
 *   acl     permissive TLS, ACL on (conf/plain_acl.yml in its home): requests signed as the
 *           native client signs them (beforeRequest → HMAC-SHA1 over the sorted fields and body)
 *   native  enforcing TLS: Bun's native TLS listener
 *   stream  the `plain` child's port, over TLS: permissive mode's node:tls over the accepted socket
 *
 * Each "on" measure alternates with the plaintext one in slices (bench/lib/load.ts `alternate`),
 * so machine drift lands on both sides. Targets (issue 13): ACL ≥ 0.85 of off; TLS ≥ 0.6 of
 * plaintext at 128 in flight.
 * Beside each rate: the server's and this client's CPU µs per send, which explain the ratio (on
 * two shared cores, client and server together set the pace at 128 in flight).
 * Run: bun bench/security.ts   (BENCH_DURATION_MS=3000 per side of each pair;
 *      BENCH_MEASURES=1 pairs per row, the median reported; BENCH_SECURITY_SIDES=acl,native,stream;
 *      BENCH_INFLIGHT=1,128; BENCH_SERVER_CPU_PROF=<dir> runs the servers under --cpu-prof-md)
 */
import pino from "pino";
import { createRequestSigner, hmacKey, signedKeysOf } from "../src/acl/signature.ts";
import {
  type ClientTlsOptions,
  RemotingClient,
  type RemotingCommand,
  tcpConnector,
} from "../src/remoting/index.ts";
import { createCertificate } from "../src/tls/x509.ts";
import { alternate, runSlice } from "./lib/load.ts";
import { pinApart } from "./lib/pin.ts";
import { cpuProfileLauncher, ownCpuMicros, processCpuMs } from "./lib/proc-cpu.ts";
import { printTable, progressSteps, type Row } from "./lib/report.ts";
import { createTopic, ok, sendRequest } from "./lib/requests.ts";
import { type StartedServer, startServer } from "./lib/start-server.ts";

const durationMs = Number(process.env.BENCH_DURATION_MS ?? 3000);
/** Pairs measured per row; each row reports the median pair (by its on/off ratio). */
const MEASURES = Math.max(1, Number(process.env.BENCH_MEASURES ?? 1));
const SIDES = (process.env.BENCH_SECURITY_SIDES ?? "acl,native,stream").split(",");
const INFLIGHTS = (process.env.BENCH_INFLIGHT ?? "1,128").split(",").map(Number);
/** A directory: the servers run under `bun --cpu-prof-md` and write their profiles there on stop. */
const SERVER_CPU_PROF = process.env.BENCH_SERVER_CPU_PROF;
const TOPIC = "BenchSecurity";
const QUEUES = 8;
const WARM_UP_MS = 300;
/** Before the first pair, every side runs this long so the first pair does not measure JIT tiers. */
const FIRST_WARM_UP_MS = 1500;
const ACL_TARGET = 0.85;
const TLS_TARGET = 0.6;
const ACCOUNT = { accessKey: "BenchAdmin01", secretKey: "bench-secret-0001" };
const PLAIN_ACL = `accounts:
  - accessKey: ${ACCOUNT.accessKey}
    secretKey: ${ACCOUNT.secretKey}
    admin: true
`;
const log = pino({ level: "warn" });

// ---- a CA and a server certificate for 127.0.0.1, made in this run ----
const now = Date.now();
const validity = { notBefore: new Date(now - 3_600_000), notAfter: new Date(now + 86_400_000) };
const ca = await createCertificate({ commonName: "bench CA", ca: true, ...validity });
const server = await createCertificate({
  commonName: "bench",
  names: ["127.0.0.1"],
  issuer: ca,
  ...validity,
});
const certFiles = { "tls/server.pem": server.certPem, "tls/server.key": server.keyPem };
const tlsConf = (mode: string) => ({
  "tls.server.mode": mode,
  "tls.server.certPath": "tls/server.pem",
  "tls.server.keyPath": "tls/server.key",
});

/** CPU time (user + system) the process `pid` has used, in µs, from /proc at 100 Hz ticks. */
const cpuMicrosOf = (pid: number) => processCpuMs(pid) * 1000;

const children: StartedServer[] = [];
async function child(name: string, brokerConf: Record<string, string>, files: Record<string, string>) {
  const srv = await startServer({
    name: `bench-security-${name}`,
    brokerConf,
    homeFiles: files,
    ...(SERVER_CPU_PROF ? { launcher: cpuProfileLauncher(SERVER_CPU_PROF, `security-${name}`) } : {}),
  });
  children.push(srv);
  return srv;
}

function client(
  name: string,
  tls?: ClientTlsOptions,
  sign?: (request: RemotingCommand) => void,
): RemotingClient {
  return new RemotingClient({
    name,
    log,
    connector: tcpConnector({ log, tls }),
    ...(sign ? { beforeRequest: sign } : {}),
  });
}

try {
  const plainSrv = await child("plain", tlsConf("permissive"), certFiles);
  const aclSrv = await child(
    "acl",
    { ...tlsConf("permissive"), aclEnable: "true" },
    {
      ...certFiles,
      "conf/plain_acl.yml": PLAIN_ACL,
    },
  );
  const nativeSrv = await child("native", tlsConf("enforcing"), certFiles);
  let pinning = "";
  for (const c of children) pinning = pinApart(c.pid);

  const trust = { ca: ca.certPem };
  const sides = {
    plain: { c: client("plain"), addr: plainSrv.brokerAddr },
    acl: { c: client("acl", undefined, createRequestSigner(ACCOUNT)), addr: aclSrv.brokerAddr },
    native: { c: client("native", trust), addr: nativeSrv.brokerAddr },
    stream: { c: client("stream", trust), addr: plainSrv.brokerAddr },
  };
  // The topic on each broker, created over that side's own transport (signed on the ACL broker).
  for (const side of [sides.plain, sides.acl, sides.native])
    await createTopic(side.c, side.addr, TOPIC, QUEUES);

  const serverOf = { plain: plainSrv, acl: aclSrv, native: nativeSrv, stream: plainSrv };
  let q = 0;
  const sender = (side: { c: RemotingClient; addr: string }) => () =>
    ok(side.c.invoke(side.addr, sendRequest(TOPIC, q++ % QUEUES), 10_000));
  /**
   * Rate slices of one side, also counting the server's CPU time per send: a figure the machine's
   * drift moves less than rates, and the ratio that matters when the server is the bottleneck.
   */
  const meter = (side: keyof typeof sides, inflight: number) => {
    const call = sender(sides[side]);
    const pid = serverOf[side].pid;
    const m = {
      calls: 0,
      cpuMicros: 0,
      clientCpuMicros: 0,
      rate: async (ms: number) => {
        const cpu0 = cpuMicrosOf(pid);
        const own0 = ownCpuMicros();
        const { calls, ms: took } = await runSlice(call, inflight, ms);
        m.clientCpuMicros += ownCpuMicros() - own0;
        m.cpuMicros += cpuMicrosOf(pid) - cpu0;
        m.calls += calls;
        return (calls * 1000) / took;
      },
    };
    return m;
  };
  /** [off, on] rates, alternated in slices after a warm-up of both, and server µs per send. */
  const pair = async (on: keyof typeof sides, inflight: number) => {
    const off = meter("plain", inflight);
    const onSide = meter(on, inflight);
    await runSlice(sender(sides.plain), inflight, WARM_UP_MS);
    await runSlice(sender(sides[on]), inflight, WARM_UP_MS);
    const [offRate, onRate] = await alternate(off.rate, onSide.rate, durationMs);
    return {
      offRate,
      onRate,
      offCpu: off.cpuMicros / off.calls,
      onCpu: onSide.cpuMicros / onSide.calls,
      offClientCpu: off.clientCpuMicros / off.calls,
      onClientCpu: onSide.clientCpuMicros / onSide.calls,
    };
  };
  /** MEASURES pairs; the one with the median on/off ratio. */
  const medianPair = async (on: keyof typeof sides, inflight: number) => {
    const pairs: Awaited<ReturnType<typeof pair>>[] = [];
    for (let i = 0; i < MEASURES; i++) pairs.push(await pair(on, inflight));
    pairs.sort((a, b) => a.onRate / a.offRate - b.onRate / b.offRate);
    return pairs[Math.floor(pairs.length / 2)]!;
  };

  const used = (["plain", ...SIDES] as const).filter((k): k is keyof typeof sides => k in sides);
  for (const side of used) await runSlice(sender(sides[side]), 128, FIRST_WARM_UP_MS);

  const rows: Row[] = [];
  const measures = [
    ["acl", "ACL on (signed), plaintext", ACL_TARGET, ACL_TARGET],
    ["native", "TLS enforcing (native)", undefined, TLS_TARGET],
    ["stream", "TLS permissive (node:tls)", undefined, TLS_TARGET],
  ] as const;
  const run = measures.filter(([on]) => SIDES.includes(on));
  const step = progressSteps("security", run.length * INFLIGHTS.length);
  for (const [on, label, target1, target128] of run) {
    for (const inflight of INFLIGHTS) {
      const { offRate, onRate, offCpu, onCpu, offClientCpu, onClientCpu } = await medianPair(on, inflight);
      const target = inflight === 1 ? target1 : target128;
      step(`${label}, ${inflight} in flight`, onRate, "sends/s", offRate);
      rows.push({ name: `  plaintext, ACL off, ${inflight} in flight`, value: offRate, unit: "sends/s" });
      rows.push({
        name: `${label}, ${inflight} in flight`,
        value: onRate,
        ceiling: offRate,
        unit: "sends/s",
        ...(target !== undefined ? { target } : {}),
      });
      rows.push({ name: `  server CPU per send, off, ${inflight} in flight`, value: offCpu, unit: "µs" });
      rows.push({
        name: `  server CPU per send, on, ${inflight} in flight`,
        value: onCpu,
        ratio: offCpu / onCpu,
        unit: "µs (ratio: off/on)",
      });
      rows.push({
        name: `  client CPU per send, off, ${inflight} in flight`,
        value: offClientCpu,
        unit: "µs",
      });
      rows.push({
        name: `  client CPU per send, on, ${inflight} in flight`,
        value: onClientCpu,
        ratio: offClientCpu / onClientCpu,
        unit: "µs (ratio: off/on)",
      });
    }
  }
  for (const side of Object.values(sides)) await side.c.shutdown();
  if (SIDES.includes("acl")) rows.push(signatureFloorRow());
  printTable(
    `security: 1 KiB sends, ${durationMs} ms per side of each pair, median of ${MEASURES}, ${navigator.hardwareConcurrency} CPUs; ${pinning}`,
    rows,
  );
} finally {
  for (const c of children) await c.stop();
}

/**
 * What ACL cannot go below: one signature of a send's content (HMAC-SHA1 over the sorted field values
 * and the 1 KiB body), timed in this process. The client computes it and the broker computes it again,
 * so twice this, set beside the plain send's server + client CPU above, bounds the ACL ratio.
 */
function signatureFloorRow(): Row {
  const request = sendRequest(TOPIC, 0);
  createRequestSigner(ACCOUNT)(request);
  const ext = request.extFields!;
  const key = hmacKey(ACCOUNT.secretKey);
  const keys = signedKeysOf(ext);
  const n = 200_000;
  for (let i = 0; i < 20_000; i++) key.signFields(ext, keys, request.body);
  const started = performance.now();
  for (let i = 0; i < n; i++) key.signFields(ext, keys, request.body);
  return {
    name: "  one signature of a send (HMAC-SHA1), this process",
    value: ((performance.now() - started) * 1000) / n,
    unit: "µs (computed by the client and again by the broker)",
  };
}
