/**
 * `rocketbun produce`: a long-running smoke-test producer (RocketMQ's quickstart Producer and
 * benchmark Producer in one), usable against Apache RocketMQ too. It sends until -c messages are
 * sent or until SIGINT/SIGTERM, with a live rate line on stderr and a summary on stdout.
 */
import { createProducer } from "../client/index.ts";
import { failureText } from "./admin/failure-text.ts";
import { type CommandSpec, formatHelp, noPositionals, parseArgs } from "./args.ts";
import {
  CONNECTION_FLAGS,
  clientSetup,
  intFlag,
  NAMESRV_FLAG,
  requiredFlag,
  TOPIC_FLAG,
} from "./client-command.ts";
import { type CliIo, type Command, EXIT_FAILURE, EXIT_OK } from "./command.ts";
import { RateMeter, startRateLine, untilSignal } from "./rate-meter.ts";

/** RocketMQ's benchmark defaults: 128-byte bodies, 64 sending threads; ours 16 sends in flight. */
const DEFAULT_SIZE = 128;
const DEFAULT_IN_FLIGHT = 16;
const MAX_BODY_BYTES = 4 * 1024 * 1024;

const spec: CommandSpec = {
  name: "produce",
  usage:
    "rocketbun produce -n ADDR -t TOPIC [-g GROUP] [-s SIZE] [-c COUNT] [--tags TAG] [--keys KEYS] [-w N]",
  summary: "Sends messages until -c are sent or until interrupted, printing the send rate every second.",
  flags: [
    NAMESRV_FLAG,
    TOPIC_FLAG,
    { long: "group", short: "g", value: "GROUP", help: "producer group (default rocketbun_producer)" },
    { long: "size", short: "s", value: "BYTES", help: `body size in bytes (default ${DEFAULT_SIZE})` },
    { long: "count", short: "c", value: "N", help: "stop after N messages (default: until interrupted)" },
    { long: "tags", value: "TAG", help: "tag of every message" },
    { long: "keys", value: "KEYS", help: "keys of every message (space separated)" },
    { long: "threads", short: "w", value: "N", help: `sends in flight (default ${DEFAULT_IN_FLIGHT})` },
    ...CONNECTION_FLAGS,
  ],
  notes:
    "The rate line goes to stderr; the summary to stdout. SIGINT (Ctrl-C) stops sending, waits for the sends in flight, prints the summary and exits 0.",
};

function body(size: number, n: number): string {
  const head = `Hello RocketBun ${n} `;
  return head.length >= size ? head.slice(0, size) : head + "x".repeat(size - head.length);
}

export const produceCommand: Command = {
  spec,
  async run(argv, io: CliIo) {
    const args = parseArgs(spec, argv);
    if (args.flags.has("help")) {
      io.out(formatHelp(spec));
      return EXIT_OK;
    }
    noPositionals(spec, args);
    const topic = requiredFlag(spec, args, "topic", "t");
    const size = intFlag(spec, args, "size", "-s", 1, MAX_BODY_BYTES) ?? DEFAULT_SIZE;
    const count = intFlag(spec, args, "count", "-c", 1, Number.MAX_SAFE_INTEGER);
    const inFlight = intFlag(spec, args, "threads", "-w", 1, 1024) ?? DEFAULT_IN_FLIGHT;
    const group = args.flags.get("group")?.trim() || "rocketbun_producer";
    const tags = args.flags.get("tags")?.trim() || undefined;
    const keys = args.flags.get("keys")?.trim() || undefined;
    const setup = await clientSetup(spec, args);

    const producer = await createProducer({
      namesrvAddr: setup.namesrvAddr,
      group,
      log: setup.log,
      ...setup.credentials,
      tls: setup.tls,
    });
    const meter = new RateMeter();
    const signal = untilSignal();
    let stopping = false;
    let lastError: unknown;
    void signal.stopped.then(() => {
      stopping = true;
    });
    const line = startRateLine(
      meter,
      (s) =>
        `Send TPS: ${Math.round(s.tps)} | Avg RT(ms): ${s.avgMs.toFixed(3)} | Max RT(ms): ${s.maxMs.toFixed(1)} | Sent: ${s.total} | Failed: ${s.failed}`,
      (text) => process.stderr.write(text),
      process.stderr.isTTY === true,
    );
    let next = 0;
    const worker = async () => {
      while (!stopping && (count === undefined || next < count)) {
        const n = next++;
        const started = performance.now();
        try {
          await producer.send({
            topic,
            body: body(size, n),
            ...(tags ? { tags } : {}),
            ...(keys ? { keys } : {}),
          });
          meter.ok(performance.now() - started);
        } catch (err) {
          meter.fail();
          lastError = err;
          // Every send failing (no route, NameServer down): stop rather than spin.
          if (meter.total === 0 && meter.failed >= inFlight) stopping = true;
        }
      }
    };
    try {
      await Promise.all(Array.from({ length: inFlight }, worker));
    } finally {
      line.stop();
      signal.dispose();
      await producer.shutdown();
    }
    const s = meter.summary();
    io.out(
      `sent ${s.total} messages to ${topic} in ${(s.elapsedMs / 1000).toFixed(1)} s (${Math.round(s.tps)}/s), ` +
        `avg RT ${s.avgMs.toFixed(3)} ms, max RT ${s.maxMs.toFixed(1)} ms, ${s.failed} failed`,
    );
    if (s.failed > 0)
      io.err(`rocketbun: produce: last failure: ${failureText(lastError, setup.namesrvAddr.split(";"))}`);
    return s.total === 0 && s.failed > 0 ? EXIT_FAILURE : EXIT_OK;
  },
};
