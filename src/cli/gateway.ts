/**
 * `rocketbun gateway`: the HTTP/WebSocket edge on its own, in front of any RocketMQ-protocol cluster.
 */
import { loadRoleConfig } from "../config/load.ts";
import { formatConfig } from "../config/print.ts";
import { type CommandSpec, formatHelp, noPositionals, parseArgs, portFlag, textFlag } from "./args.ts";
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
  name: "gateway",
  usage: "rocketbun gateway [--namesrv ADDR] [--port N] [--bind ADDR] [--api-keys FILE] [-c FILE] [-p]",
  summary:
    "Runs the Gateway (port 8080): REST and WebSocket, translated into RocketMQ requests to the cluster\n" +
    "behind --namesrv, which may be RocketBun or Apache RocketMQ.",
  flags: [
    {
      long: "namesrv",
      short: "n",
      aliases: ["namesrv-addr", "namesrvAddr"],
      value: "ADDR",
      help: "NameServers, host:port;host:port (default 127.0.0.1:9876)",
    },
    { long: "port", value: "N", help: "HTTP port (default 8080)" },
    { long: "bind", value: "ADDR", help: "address to listen on (default 0.0.0.0; 127.0.0.1 keeps it local)" },
    { long: "api-keys", value: "FILE", help: "JSON file of API keys and their scopes (gatewayApiKeysFile)" },
    ...ROLE_FLAGS,
    CONFIG_FLAG,
    PRINT_FLAG,
  ],
  notes: envNotes(["NAMESRV_ADDR", "ROCKETBUN_GATEWAY_PORT", "ROCKETBUN_LOG_LEVEL"]),
};

export const gatewayCommand: Command = {
  spec,
  async run(argv, io) {
    const args = parseArgs(spec, argv);
    if (args.flags.has("help")) {
      io.out(formatHelp(spec));
      return EXIT_OK;
    }
    noPositionals(spec, args);
    const overrides = roleFlagOverrides(spec, args);
    const port = portFlag(spec, args, "port");
    if (port !== undefined) overrides.gatewayPort = String(port);
    const namesrvAddr = textFlag(spec, args, "namesrv");
    if (namesrvAddr !== undefined) overrides.namesrvAddr = namesrvAddr;
    const bind = textFlag(spec, args, "bind");
    if (bind !== undefined) overrides.gatewayBindAddress = bind;
    const keys = textFlag(spec, args, "api-keys");
    if (keys !== undefined) overrides.gatewayApiKeysFile = keys;
    const loaded = await loadRoleConfig("gateway", { file: textFlag(spec, args, "config"), overrides });
    if (args.flags.has("print-config")) {
      io.out(formatConfig(loaded.sections));
      return EXIT_OK;
    }
    return runRole(ROLE_TITLES.gateway, roleStarters.gateway, loaded, io);
  },
};
