/**
 * CLI entry: `bun src/cli/main.ts <subcommand> ...`. Dispatches to one subcommand and turns its result,
 * or a user mistake (UsageError, ConfigError), into an exit code and a one-line message.
 */
import pkg from "../../package.json" with { type: "json" };
import { ConfigError } from "../config/errors.ts";
import { adminCommand } from "./admin.ts";
import { UsageError } from "./args.ts";
import { brokerCommand } from "./broker.ts";
import { type CliIo, type Command, consoleIo, EXIT_FAILURE, EXIT_OK, EXIT_USAGE } from "./command.ts";
import { consumeCommand } from "./consume.ts";
import { gatewayCommand } from "./gateway.ts";
import { namesrvCommand } from "./namesrv.ts";
import { produceCommand } from "./produce.ts";
import { startCommand } from "./start.ts";

export const COMMANDS: Readonly<Record<string, Command>> = {
  start: startCommand,
  namesrv: namesrvCommand,
  broker: brokerCommand,
  gateway: gatewayCommand,
  admin: adminCommand,
  produce: produceCommand,
  consume: consumeCommand,
};

const SUMMARIES: Readonly<Record<string, string>> = {
  start: "NameServer, Broker and Gateway in one process",
  namesrv: "a NameServer alone (like mqnamesrv)",
  broker: "a Broker alone (like mqbroker)",
  gateway: "the HTTP/WebSocket gateway alone",
  admin: "mqadmin verbs",
  produce: "a smoke-test producer with a live send rate",
  consume: "a smoke-test group consumer with a live consume rate",
};

export function mainHelp(): string {
  const rows = Object.keys(COMMANDS).map((name) => `  ${name.padEnd(10)}${SUMMARIES[name] ?? ""}`);
  return [
    "Usage: rocketbun <subcommand> [options]",
    "",
    "A message queue that speaks Apache RocketMQ's remoting protocol, with an HTTP/WebSocket gateway.",
    "",
    "Subcommands:",
    ...rows,
    "",
    "Run 'rocketbun <subcommand> --help' for its options; 'rocketbun --version' for the version.",
  ].join("\n");
}

/** A ConfigError caused only by flags is a usage error (2); one from a file or the environment is 1. */
function configExitCode(err: ConfigError): number {
  return err.problems.every((p) => p.origin === "command line") ? EXIT_USAGE : EXIT_FAILURE;
}

export async function main(argv: readonly string[], io: CliIo = consoleIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined) {
    io.err(mainHelp());
    return EXIT_USAGE;
  }
  if (name === "--help" || name === "-h" || name === "help") {
    io.out(mainHelp());
    return EXIT_OK;
  }
  if (name === "--version" || name === "-v") {
    io.out(`rocketbun ${pkg.version}`);
    return EXIT_OK;
  }
  const command = COMMANDS[name];
  if (command === undefined) {
    const what = name.startsWith("-") ? "flag" : "subcommand";
    io.err(`rocketbun: unknown ${what} '${name}' (see rocketbun --help)`);
    return EXIT_USAGE;
  }
  try {
    return await command.run(rest, io);
  } catch (err) {
    if (err instanceof UsageError) {
      io.err(`rocketbun: ${err.message}`);
      return EXIT_USAGE;
    }
    if (err instanceof ConfigError) {
      for (const line of err.message.split("\n")) io.err(`rocketbun: ${line}`);
      return configExitCode(err);
    }
    throw err;
  }
}

if (import.meta.main) {
  process.exitCode = await main(process.argv.slice(2));
}
