/**
 * `rocketbun broker`: a Broker on its own, like RocketMQ's mqbroker (`-c`, `-p`, `-m`, `-n`).
 */
import { loadRoleConfig } from "../config/load.ts";
import { formatConfig } from "../config/print.ts";
import { type CommandSpec, formatHelp, noPositionals, parseArgs, textFlag, UsageError } from "./args.ts";
import {
  CONFIG_FLAG,
  type Command,
  EXIT_OK,
  envNotes,
  PRINT_FLAG,
  ROLE_FLAGS,
  roleFlagOverrides,
  runRole,
} from "./command.ts";
import { ROLE_TITLES, roleStarters } from "./roles.ts";

const spec: CommandSpec = {
  name: "broker",
  usage: "rocketbun broker [-c FILE] [-p|-m] [-n ADDR]",
  summary:
    "Runs a Broker (port 10911 unless listenPort says otherwise): the message store and the request\n" +
    "processors for producers, consumers and admins. The file takes BrokerConfig, MessageStoreConfig,\n" +
    "NettyServerConfig and NettyClientConfig keys, as mqbroker does: an existing broker.conf loads.",
  flags: [
    ...ROLE_FLAGS,
    CONFIG_FLAG,
    PRINT_FLAG,
    {
      long: "print-important",
      short: "m",
      aliases: ["printImportantConfig"],
      help: "print only the important configuration items and exit",
    },
    {
      long: "namesrv-addr",
      short: "n",
      aliases: ["namesrvAddr"],
      value: "ADDR",
      help: "NameServers, host:port;host:port (wins over namesrvAddr in the file)",
    },
  ],
  notes: envNotes([
    "NAMESRV_ADDR",
    "ROCKETBUN_HOME",
    "ROCKETBUN_BROKER_PORT",
    "ROCKETBUN_LOG_LEVEL",
    "ROCKETMQ_HOME",
  ]),
};

export const brokerCommand: Command = {
  spec,
  async run(argv, io) {
    const args = parseArgs(spec, argv);
    if (args.flags.has("help")) {
      io.out(formatHelp(spec));
      return EXIT_OK;
    }
    noPositionals(spec, args);
    const printAll = args.flags.has("print-config");
    const printImportant = args.flags.has("print-important");
    if (printAll && printImportant)
      throw new UsageError("use either -p or -m, not both (see rocketbun broker --help)");
    const namesrvAddr = textFlag(spec, args, "namesrv-addr");
    const loaded = await loadRoleConfig("broker", {
      file: textFlag(spec, args, "config"),
      overrides: { ...roleFlagOverrides(spec, args), ...(namesrvAddr === undefined ? {} : { namesrvAddr }) },
    });
    if (printAll || printImportant) {
      io.out(formatConfig(loaded.sections, { importantOnly: printImportant }));
      return EXIT_OK;
    }
    return runRole(ROLE_TITLES.broker, roleStarters.broker, loaded, io);
  },
};
