/**
 * `rocketbun consume`: a long-running group consumer for smoke tests (RocketMQ's quickstart
 * Consumer and benchmark Consumer in one), usable against Apache RocketMQ too. It consumes until
 * -c messages arrived or until SIGINT/SIGTERM, with a live rate line on stderr, then commits its
 * offsets and prints a summary on stdout.
 */
import { createPushConsumer, type MessageExt } from "../client/index.ts";
import type { ConsumeFromWhere } from "../client/rebalance.ts";
import { failureText } from "./admin/failure-text.ts";
import { bodyText } from "./admin/messages.ts";
import { type CommandSpec, formatHelp, noPositionals, parseArgs, UsageError } from "./args.ts";
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

const FROM: Readonly<Record<string, ConsumeFromWhere>> = {
  first: "CONSUME_FROM_FIRST_OFFSET",
  last: "CONSUME_FROM_LAST_OFFSET",
};

const spec: CommandSpec = {
  name: "consume",
  usage:
    "rocketbun consume -n ADDR -t TOPIC [-g GROUP] [--tags EXPR] [-c COUNT] [--from first|last] [--orderly] [--broadcast] [--print]",
  summary:
    "Consumes a topic as a member of a group until -c messages arrived or until interrupted, printing the rate every second.",
  flags: [
    NAMESRV_FLAG,
    TOPIC_FLAG,
    { long: "group", short: "g", value: "GROUP", help: "consumer group (default rocketbun_consumer)" },
    { long: "tags", value: "EXPR", help: "tag expression, e.g. 'TagA || TagB' (default *)" },
    { long: "count", short: "c", value: "N", help: "stop after N messages (default: until interrupted)" },
    { long: "from", value: "WHERE", help: "where a new group starts: first or last (default first)" },
    { long: "orderly", help: "consume each queue in order (queue locks at the broker)" },
    { long: "broadcast", help: "broadcasting: every member gets every message" },
    { long: "print", short: "p", help: "print each message on stdout" },
    ...CONNECTION_FLAGS,
  ],
  notes:
    "The rate line goes to stderr (latency: from the message's birth to its delivery). SIGINT (Ctrl-C) stops, commits the offsets, prints the summary and exits 0.",
};

function messageLine(m: MessageExt): string {
  return `${m.brokerName}#${m.queueId}@${m.queueOffset} ${m.msgId} tags=${m.tags ?? ""} keys=${m.keys.join(" ")} body=${bodyText(m.body).replace(/\s+/g, " ")}`;
}

export const consumeCommand: Command = {
  spec,
  async run(argv, io: CliIo) {
    const args = parseArgs(spec, argv);
    if (args.flags.has("help")) {
      io.out(formatHelp(spec));
      return EXIT_OK;
    }
    noPositionals(spec, args);
    const topic = requiredFlag(spec, args, "topic", "t");
    const count = intFlag(spec, args, "count", "-c", 1, Number.MAX_SAFE_INTEGER);
    const group = args.flags.get("group")?.trim() || "rocketbun_consumer";
    const tags = args.flags.get("tags")?.trim() || "*";
    const fromText = args.flags.get("from")?.trim() ?? "first";
    const consumeFromWhere = FROM[fromText];
    if (consumeFromWhere === undefined)
      throw new UsageError(
        `invalid value '${fromText}' for flag '--from': expected first or last (see rocketbun consume --help)`,
      );
    const print = args.flags.has("print");
    const setup = await clientSetup(spec, args);

    const meter = new RateMeter();
    const signal = untilSignal();
    let finish: (why: string) => void = () => {};
    const finished = new Promise<string>((resolve) => {
      finish = resolve;
    });
    void signal.stopped.then(finish);
    const line = startRateLine(
      meter,
      (s) =>
        `Consume TPS: ${Math.round(s.tps)} | Avg born-to-consume(ms): ${s.avgMs.toFixed(1)} | Max(ms): ${s.maxMs.toFixed(0)} | Total: ${s.total}`,
      (text) => process.stderr.write(text),
      process.stderr.isTTY === true,
    );
    let consumer: Awaited<ReturnType<typeof createPushConsumer>> | undefined;
    try {
      consumer = await createPushConsumer({
        namesrvAddr: setup.namesrvAddr,
        group,
        subscriptions: { [topic]: tags },
        consumeFromWhere,
        orderly: args.flags.has("orderly"),
        messageModel: args.flags.has("broadcast") ? "BROADCASTING" : "CLUSTERING",
        log: setup.log,
        ...setup.credentials,
        tls: setup.tls,
        onMessage: (msgs) => {
          const now = Date.now();
          for (const m of msgs) {
            // Beyond -c: leave the rest to the group (not acknowledged by printing).
            if (count !== undefined && meter.total >= count) break;
            meter.ok(Math.max(0, now - m.bornTimestamp));
            if (print) io.out(messageLine(m));
          }
          if (count !== undefined && meter.total >= count) finish("count");
        },
      });
      // A consumer retries a missing route for ever; a smoke test says so at once.
      if ((await consumer.client.namesrv.topicRoute(topic)) === null)
        throw new Error(`topic ${topic} has no route: it does not exist on any broker of the NameServer`);
      await finished;
    } catch (err) {
      line.stop();
      signal.dispose();
      await consumer?.shutdown();
      io.err(`rocketbun: consume: ${failureText(err, setup.namesrvAddr.split(";"))}`);
      return EXIT_FAILURE;
    }
    line.stop();
    signal.dispose();
    await consumer.shutdown();
    const s = meter.summary();
    io.out(
      `consumed ${s.total} messages of ${topic} as group ${group} in ${(s.elapsedMs / 1000).toFixed(1)} s (${Math.round(s.tps)}/s), ` +
        `avg born-to-consume ${s.avgMs.toFixed(1)} ms, max ${s.maxMs.toFixed(0)} ms`,
    );
    return EXIT_OK;
  },
};
