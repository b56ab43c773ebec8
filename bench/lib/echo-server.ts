/**
 * Child-process servers for benchmarks, so the measured server and the load generator do not share
 * one core: `raw` echoes bytes as they arrive (the ceiling), `remoting` answers request code 1001 with
 * the request's body through the full remoting stack. Prints `PORT <n>` once listening.
 */
import pino from "pino";
import { RemotingCommand, RemotingServer, ResponseCode } from "../../src/remoting/index.ts";

export const BENCH_ECHO_CODE = 1001;

const mode = import.meta.main ? process.argv[2] : "library";
if (mode === "raw") {
  const listener = Bun.listen({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open(socket) {
        socket.setNoDelay(true);
      },
      data(socket, chunk) {
        // Bounded by the load generator's in-flight cap; a short write is retried from the rest.
        let rest: Uint8Array = chunk;
        const written = socket.write(rest);
        if (written < rest.length) {
          rest = rest.subarray(Math.max(written, 0));
          socket.write(rest);
        }
      },
    },
  });
  console.log(`PORT ${listener.port}`);
} else if (mode === "remoting") {
  const server = new RemotingServer({
    name: "bench",
    listenPort: 0,
    bindAddress: "127.0.0.1",
    log: pino({ level: "warn" }),
  });
  server.registry.register(BENCH_ECHO_CODE, (req) =>
    RemotingCommand.response(ResponseCode.SUCCESS, null, null, req.body),
  );
  await server.start();
  console.log(`PORT ${server.port}`);
} else if (mode !== "library") {
  console.error("usage: echo-server.ts raw|remoting");
  process.exit(2);
}
