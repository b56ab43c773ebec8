/**
 * `rocketbun admin <verb> -n ADDR ...`: mqadmin's verbs over the native admin client. The verb's own
 * flags pass through untouched, as mqadmin defines them per verb.
 */
import { type CommandSpec, formatHelp, parseArgs, UsageError } from "./args.ts";
import { type Command, EXIT_FAILURE, EXIT_OK } from "./command.ts";

/** The mqadmin verbs RocketBun's admin client is meant to speak, grouped as mqadmin documents them. */
export const ADMIN_VERBS: Readonly<Record<string, readonly string[]>> = {
  topics: [
    "updateTopic",
    "deleteTopic",
    "topicList",
    "topicRoute",
    "topicStatus",
    "topicClusterList",
    "updateTopicPerm",
  ],
  groups: [
    "updateSubGroup",
    "deleteSubGroup",
    "consumerProgress",
    "consumerConnection",
    "producerConnection",
  ],
  offsets: ["resetOffsetByTime", "cloneGroupOffset"],
  cluster: [
    "clusterList",
    "brokerStatus",
    "getBrokerConfig",
    "updateBrokerConfig",
    "wipeWritePerm",
    "addWritePerm",
  ],
  nameserver: ["getNamesrvConfig", "updateNamesrvConfig", "updateKvConfig", "deleteKvConfig"],
  messages: [
    "queryMsgById",
    "queryMsgByKey",
    "queryMsgByUniqueKey",
    "queryMsgByOffset",
    "sendMessage",
    "printMsg",
  ],
};

const KNOWN = new Set(Object.values(ADMIN_VERBS).flat());

const spec: CommandSpec = {
  name: "admin",
  usage: "rocketbun admin <verb> -n ADDR [verb options...]",
  summary: "Runs one mqadmin verb against a NameServer (RocketBun or Apache RocketMQ).",
  flags: [],
  passThroughAfterPositional: true,
  notes: `Verbs:\n${Object.entries(ADMIN_VERBS)
    .map(([group, verbs]) => `  ${group.padEnd(12)}${verbs.join(" ")}`)
    .join("\n")}`,
};

export const adminCommand: Command = {
  spec,
  async run(argv, io) {
    const args = parseArgs(spec, argv);
    if (args.flags.has("help")) {
      io.out(formatHelp(spec));
      return EXIT_OK;
    }
    const verb = args.positionals[0];
    if (verb === undefined) throw new UsageError("admin needs a verb (see rocketbun admin --help)");
    if (!KNOWN.has(verb)) throw new UsageError(`unknown admin verb '${verb}' (see rocketbun admin --help)`);
    io.err(
      `rocketbun: 'admin ${verb}' is not available in this build (the native admin client is not wired yet)`,
    );
    return EXIT_FAILURE;
  },
};
