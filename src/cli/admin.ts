/**
 * `rocketbun admin <verb> -n ADDR ...`: mqadmin's verbs over the native admin client. Each verb
 * parses its own flags (mqadmin's letters); every verb also takes -n, --json and -h. A failed
 * operation exits 1 with `rocketbun: <verb>: <message>`; a usage mistake exits 2 naming the flag.
 */
import { type Admin, createAdmin } from "../client/index.ts";
import { checkAddressList } from "../config/checks.ts";
import { aclVerbs } from "./admin/acl.ts";
import { brokerOpVerbs } from "./admin/broker-ops.ts";
import { clusterVerbs } from "./admin/cluster.ts";
import { consumerOpVerbs } from "./admin/consumer-ops.ts";
import { type AdminContext, type AdminVerb, printJson } from "./admin/context.ts";
import { dlqVerbs } from "./admin/dlq.ts";
import { failureText } from "./admin/failure-text.ts";
import { NO_PROGRESS, terminalProgress } from "./admin/format.ts";
import { groupVerbs } from "./admin/groups.ts";
import { messageOpVerbs } from "./admin/message-ops.ts";
import { messageVerbs } from "./admin/messages.ts";
import { namesrvVerbs } from "./admin/namesrv.ts";
import { sendProbeVerbs } from "./admin/send-probes.ts";
import { TLS_FLAGS, tlsFromFlags } from "./admin/tls-flags.ts";
import { topicOpVerbs } from "./admin/topic-ops.ts";
import { topicVerbs } from "./admin/topics.ts";
import { transactionVerbs } from "./admin/transactions.ts";
import { VerbTable } from "./admin/verb-lookup.ts";
import { type CommandSpec, type FlagSpec, formatHelp, parseArgs, UsageError } from "./args.ts";
import { AK_FLAG, clientLog, credentialsOf, SK_FLAG } from "./client-flags.ts";
import { type CliIo, type Command, EXIT_FAILURE, EXIT_OK } from "./command.ts";

/** The verbs, grouped as mqadmin's help groups them. */
export const ADMIN_GROUPS: Readonly<Record<string, readonly AdminVerb[]>> = {
  topics: [...topicVerbs, ...topicOpVerbs],
  groups: [...groupVerbs, ...consumerOpVerbs],
  cluster: clusterVerbs,
  broker: brokerOpVerbs,
  namesrv: namesrvVerbs,
  messages: [...messageVerbs, ...messageOpVerbs],
  dlq: dlqVerbs,
  transactions: transactionVerbs,
  probes: sendProbeVerbs,
  acl: aclVerbs,
};

const VERBS = new VerbTable(Object.values(ADMIN_GROUPS).flat());
/** The help's verb column: the longest name and two spaces. */
const VERB_COLUMN = Math.max(...VERBS.verbs.map((v) => v.name.length)) + 2;

const NAMESRV_FLAG: FlagSpec = {
  long: "namesrvAddr",
  short: "n",
  value: "ADDR",
  help: "NameServer address(es), 'host:port;host:port' (default: $NAMESRV_ADDR)",
};
const JSON_FLAG: FlagSpec = { long: "json", help: "print the result as JSON (for scripts)" };
const spec: CommandSpec = {
  name: "admin",
  usage:
    "rocketbun admin <verb> -n ADDR [verb options...] [--ak KEY --sk SECRET] [--tls ...] [--json]\n       rocketbun admin help <verb>",
  summary: "Runs one mqadmin verb against a NameServer (RocketBun or Apache RocketMQ).",
  flags: [AK_FLAG, SK_FLAG, ...TLS_FLAGS],
  passThroughAfterPositional: true,
  notes: [
    "Verbs, case-insensitive as mqadmin's (rocketbun admin help <verb> for each):",
    ...Object.entries(ADMIN_GROUPS).flatMap(([group, verbs]) => [
      `  ${group}:`,
      ...verbs.map((v) => `    ${v.name.padEnd(VERB_COLUMN)}${v.summary}`),
    ]),
    "",
    "Exit codes: 0 done, 1 the operation failed, 2 bad usage.",
  ].join("\n"),
};

export function verbSpec(verb: AdminVerb): CommandSpec {
  return {
    name: `admin ${verb.name}`,
    usage: `rocketbun admin ${verb.name} -n ADDR ${verb.usage} [--ak KEY --sk SECRET] [--json]`.replace(
      / +/g,
      " ",
    ),
    summary: verb.summary,
    flags: [NAMESRV_FLAG, ...verb.flags, AK_FLAG, SK_FLAG, ...TLS_FLAGS, JSON_FLAG],
  };
}

async function runVerb(
  verb: AdminVerb,
  argv: readonly string[],
  io: CliIo,
  early: ReadonlyMap<string, string> = new Map(),
): Promise<number> {
  const vspec = verbSpec(verb);
  const args = parseArgs(vspec, argv);
  if (args.flags.has("help")) {
    io.out(formatHelp(vspec));
    return EXIT_OK;
  }
  const extra = args.positionals[0];
  if (extra !== undefined)
    throw new UsageError(
      `unexpected argument '${extra}' for '${vspec.name}' (see rocketbun ${vspec.name} --help)`,
    );
  const namesrvAddr = (args.flags.get("namesrvAddr") ?? process.env.NAMESRV_ADDR ?? "").trim();
  if (namesrvAddr === "")
    throw new UsageError(
      `'${vspec.name}' needs -n ADDR or NAMESRV_ADDR (see rocketbun ${vspec.name} --help)`,
    );
  const badAddr = checkAddressList(namesrvAddr);
  if (badAddr !== undefined)
    throw new UsageError(
      `invalid value for flag '-n' (or NAMESRV_ADDR): ${badAddr} (see rocketbun ${vspec.name} --help)`,
    );

  const json = args.flags.has("json");
  const credentials = credentialsOf(vspec.name, args.flags, early);
  const tls = await tlsFromFlags(args.flags, early, vspec.name);
  const closers: (() => Promise<void>)[] = [];
  let admin: Promise<Admin> | undefined;
  const ctx: AdminContext = {
    spec: vspec,
    args,
    io,
    json,
    namesrvAddr,
    credentials,
    tls,
    admin() {
      admin ??= createAdmin({ namesrvAddr, log: clientLog(), ...credentials, tls }).then((a) => {
        closers.push(() => a.shutdown());
        return a;
      });
      return admin;
    },
    closeLater(close) {
      closers.push(close);
    },
    print(data, human) {
      if (json) printJson(io, data);
      else io.out(human());
    },
    progress(total, unit) {
      if (!process.stderr.isTTY || total < 2) return NO_PROGRESS;
      return terminalProgress((text) => process.stderr.write(text), total, unit);
    },
  };
  try {
    await verb.run(ctx);
    return EXIT_OK;
  } catch (err) {
    if (err instanceof UsageError) throw err;
    io.err(`rocketbun: ${verb.name}: ${failureText(err, namesrvAddr.split(";"))}`);
    return EXIT_FAILURE;
  } finally {
    // Newest first: producers and consumers before the admin client they may share nothing with.
    for (const close of closers.reverse()) await close().catch(() => {});
  }
}

function findVerb(name: string): AdminVerb {
  const verb = VERBS.get(name);
  if (verb !== undefined) return verb;
  const guess = VERBS.suggest(name);
  const hint = guess === undefined ? "" : ` (did you mean ${guess}?)`;
  throw new UsageError(`unknown admin verb '${name}'${hint} (see rocketbun admin --help)`);
}

export const adminCommand: Command = {
  spec,
  async run(argv, io) {
    const args = parseArgs(spec, argv);
    const [name, ...rest] = args.positionals;
    if (name === undefined) {
      if (args.flags.has("help")) {
        io.out(formatHelp(spec));
        return EXIT_OK;
      }
      throw new UsageError("admin needs a verb (see rocketbun admin --help)");
    }
    if (name.toLowerCase() === "help") {
      const [about] = rest;
      io.out(formatHelp(about === undefined ? spec : verbSpec(findVerb(about))));
      return EXIT_OK;
    }
    return runVerb(findVerb(name), rest, io, args.flags);
  },
};
