/**
 * bench/remoting: request/response round trips per second over one TCP connection with a 1 KiB body,
 * 1 and 128 in flight, beside a raw Bun TCP echo of the same frame measured in the same run (the ceiling);
 * plus the in-process transport. Each remoting measure alternates with its echo in short slices
 * (see `alternate`). Targets (issue #2): ≥ 0.7 of echo at 1 in flight, ≥ 0.8 at 128.
 */
import { join } from "node:path";
import pino from "pino";
import {
  encodeFrame,
  RemotingClient,
  RemotingCommand,
  RemotingServer,
  ResponseCode,
} from "../src/remoting/index.ts";
import { spawnServer } from "./lib/child.ts";
import { BENCH_ECHO_CODE } from "./lib/echo-server.ts";
import { alternate, closedLoop, openRawEcho, runSlice } from "./lib/load.ts";
import { printTable, progressSteps, type Row } from "./lib/report.ts";

const durationMs = Number(process.env.BENCH_DURATION_MS ?? 3000);
const body = new Uint8Array(1024).fill(7);
const request = () => RemotingCommand.request(BENCH_ECHO_CODE, { topic: "bench" }, body);
const log = pino({ level: "warn" });

export async function benchRemoting(): Promise<Row[]> {
  const script = join(import.meta.dir, "lib/echo-server.ts");
  // The echo ceiling moves a frame of the same size as the remoting request.
  const sample = request();
  sample.opaque = 1;
  sample.version = 479;
  const frame = encodeFrame(sample);

  // Both servers run at once, so each remoting measure alternates with its echo ceiling in slices.
  const raw = await spawnServer(script, ["raw"]);
  const remote = await spawnServer(script, ["remoting"]);
  const client = new RemotingClient({ name: "bench", log });
  const addr = `127.0.0.1:${remote.port}`;
  const call = () => client.invoke(addr, request(), 10_000);
  const paired = async (inflight: number): Promise<[number, number]> => {
    const echo = await openRawEcho(raw.port, frame, inflight);
    await runSlice(call, inflight, 300); // warm-up
    const rates = await alternate(
      (ms) => echo.measure(ms),
      async (ms) => {
        const { calls, ms: took } = await runSlice(call, inflight, ms);
        return (calls * 1000) / took;
      },
      durationMs,
    );
    echo.close();
    return rates;
  };
  const step = progressSteps("remoting", 4);
  const [echo1, rpc1] = await paired(1);
  step("remoting over TCP, 1 in flight", rpc1, "req/s", echo1);
  const [echo128, rpc128] = await paired(128);
  step("remoting over TCP, 128 in flight", rpc128, "req/s", echo128);
  await client.shutdown();
  await remote.stop();
  await raw.stop();

  const local = new RemotingServer({ name: "local", listenPort: 0, log });
  local.registry.register(BENCH_ECHO_CODE, (req) =>
    RemotingCommand.response(ResponseCode.SUCCESS, null, null, req.body),
  );
  const localClient = new RemotingClient({ name: "local-client", log });
  const conn = local.acceptInProcess(localClient.endpoint);
  const inproc128 = step(
    "in-process objects, 128 in flight",
    await closedLoop(() => localClient.endpoint.invoke(conn, request(), 10_000), 128, durationMs),
    "req/s",
  );
  const roundTripConn = local.acceptInProcess(localClient.endpoint, { roundTrip: true });
  const roundTrip128 = step(
    "in-process round trip (codec), 128 in flight",
    await closedLoop(() => localClient.endpoint.invoke(roundTripConn, request(), 10_000), 128, durationMs),
    "req/s",
  );

  return [
    { name: "raw Bun TCP echo, 1 in flight", value: echo1, unit: "round trips/s" },
    { name: "raw Bun TCP echo, 128 in flight", value: echo128, unit: "round trips/s" },
    { name: "remoting over TCP, 1 in flight", value: rpc1, unit: "req/s", ceiling: echo1, target: 0.7 },
    { name: "remoting over TCP, 128 in flight", value: rpc128, unit: "req/s", ceiling: echo128, target: 0.8 },
    { name: "in-process objects, 128 in flight", value: inproc128, unit: "req/s" },
    { name: "in-process round trip (codec), 128 in flight", value: roundTrip128, unit: "req/s" },
  ];
}

if (import.meta.main) {
  printTable(`remoting: 1 KiB body, ${durationMs} ms per measure`, await benchRemoting());
}
