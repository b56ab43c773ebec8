/**
 * `rocketbun namesrv`: a NameServer on its own, like RocketMQ's mqnamesrv (`-c`, `-p`, `-n` ignored).
 */
import { loadRoleConfig } from "../config/load.ts";
import { formatConfig } from "../config/print.ts";
import { type CommandSpec, formatHelp, noPositionals, parseArgs, textFlag } from "./args.ts";
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
  name: "namesrv",
  usage: "rocketbun namesrv [-c FILE] [-p]",
  summary:
    "Runs a NameServer (port 9876 unless listenPort says otherwise): the route registry brokers register\n" +
    "with and clients ask for topic routes. The file takes NamesrvConfig, NettyServerConfig and\n" +
    "NettyClientConfig keys, as mqnamesrv does, and RocketBun's ACL keys: aclEnable=true makes broker\n" +
    "registrations, KV, topic, write-permission and config changes need an admin account of aclPlainFile\n" +
    "(brokers sign with innerClientAuthenticationCredentials); aclReadNeedSignature=true closes reads too.",
  flags: [
    ...ROLE_FLAGS,
    CONFIG_FLAG,
    PRINT_FLAG,
    {
      long: "namesrv-addr",
      short: "n",
      aliases: ["namesrvAddr"],
      value: "ADDR",
      help: "accepted like mqnamesrv's -n, and ignored",
    },
  ],
  notes: envNotes(["ROCKETBUN_HOME", "ROCKETBUN_NAMESRV_PORT", "ROCKETBUN_LOG_LEVEL", "ROCKETMQ_HOME"]),
};

export const namesrvCommand: Command = {
  spec,
  async run(argv, io) {
    const args = parseArgs(spec, argv);
    if (args.flags.has("help")) {
      io.out(formatHelp(spec));
      return EXIT_OK;
    }
    noPositionals(spec, args);
    const loaded = await loadRoleConfig("namesrv", {
      file: textFlag(spec, args, "config"),
      overrides: roleFlagOverrides(spec, args),
    });
    if (args.flags.has("print-config")) {
      io.out(formatConfig(loaded.sections));
      return EXIT_OK;
    }
    return runRole(ROLE_TITLES.namesrv, roleStarters.namesrv, loaded, io);
  },
};
