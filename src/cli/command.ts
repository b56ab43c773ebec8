/**
 * What every subcommand shares: the Command shape, output sinks, the common flags, loading the
 * role's configuration for `-p`/`-m`, and running a role (or saying it is not in this build).
 */

import { resolve } from "node:path";
import type { LoadedConfig } from "../config/load.ts";
import type { RoleName } from "../config/role-config.ts";
import type { Logger } from "../log.ts";
import { allocatorNote } from "./allocator-env.ts";
import { type CommandSpec, type FlagSpec, type ParsedArgs, textFlag } from "./args.ts";
import { type LifecycleHost, runRoles, type StopSignal } from "./lifecycle.ts";
import type { RoleStarter } from "./roles.ts";

export interface CliIo {
  /** Writes one block of text to stdout (a trailing newline is added when missing). */
  out(text: string): void;
  err(text: string): void;
}

export interface Command {
  readonly spec: CommandSpec;
  /** Resolves with the process exit code; throws UsageError or ConfigError for user mistakes. */
  run(argv: readonly string[], io: CliIo): Promise<number>;
}

export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

export const consoleIo: CliIo = {
  out: (text) => console.log(text.endsWith("\n") ? text.slice(0, -1) : text),
  err: (text) => console.error(text.endsWith("\n") ? text.slice(0, -1) : text),
};

export const CONFIG_FLAG: FlagSpec = {
  long: "config",
  short: "c",
  aliases: ["configFile"],
  value: "FILE",
  help: "Java .properties file of RocketMQ keys (an existing broker.conf loads as is)",
};

export const PRINT_FLAG: FlagSpec = {
  long: "print-config",
  short: "p",
  aliases: ["printConfigItem"],
  help: "print the effective configuration as key=value lines and exit",
};

/** Flags every server role takes: where its data lives and how it logs. */
export const ROLE_FLAGS: readonly FlagSpec[] = [
  {
    long: "home",
    value: "DIR",
    help: "directory for data not placed elsewhere by the config (default ~/rocketbun)",
  },
  {
    long: "log-format",
    value: "FMT",
    help: "console log lines: pretty, json or auto (pretty on a terminal)",
  },
  { long: "log-dir", value: "DIR", help: "also write JSON logs to DIR/rocketbun.log, rotated at 100 MB" },
];

/** The ROLE_FLAGS given, as config overrides (rocketbunHome, logFormat, logDir). */
export function roleFlagOverrides(spec: CommandSpec, args: ParsedArgs): Record<string, string> {
  const overrides: Record<string, string> = {};
  const home = textFlag(spec, args, "home");
  if (home !== undefined) overrides.rocketbunHome = resolve(home);
  const format = textFlag(spec, args, "log-format");
  if (format !== undefined) overrides.logFormat = format;
  const dir = textFlag(spec, args, "log-dir");
  if (dir !== undefined) overrides.logDir = resolve(dir);
  return overrides;
}

const ENV_DOCS: Readonly<Record<string, string>> = {
  NAMESRV_ADDR: "namesrvAddr (RocketMQ's variable; the file wins over it)",
  ROCKETMQ_HOME: "rocketmqHome (RocketMQ's variable; unused by RocketBun)",
  ROCKETBUN_HOME: "rocketbunHome: where store/ and namesrv/ go unless configured",
  ROCKETBUN_NAMESRV_PORT: "the NameServer's port",
  ROCKETBUN_BROKER_PORT: "the Broker's listenPort",
  ROCKETBUN_GATEWAY_PORT: "gatewayPort",
  ROCKETBUN_LOG_LEVEL: "logLevel: fatal, error, warn, info, debug, trace or silent",
  ROCKETBUN_LOG_FORMAT: "logFormat: pretty, json or auto",
  ROCKETBUN_LOG_DIR: "logDir: a directory for rotated JSON log files",
};

export function envNotes(names: readonly string[]): string {
  const width = Math.max(...names.map((n) => n.length)) + 2;
  return [
    "Environment:",
    ...names.map((n) => `  ${n.padEnd(width)}${ENV_DOCS[n] ?? ""}`),
    "Precedence: defaults < NAMESRV_ADDR, ROCKETMQ_HOME < file < run-time changes < ROCKETBUN_* < flags.",
    "Run-time changes (UPDATE_NAMESRV_CONFIG, UPDATE_BROKER_CONFIG) are kept in configStorePath and",
    "brokerConfigPath, never in the file; delete a line there to go back to the file's value.",
  ].join("\n");
}

/**
 * The real process: signals, exit, and log lines through pino. Errors (a role that fails to start
 * or stop) also go to stderr as one plain line, so a user sees why the process exits whatever the
 * log level or log destination.
 */
export function processHost(log: Logger, io: CliIo): LifecycleHost {
  return {
    onSignal: (signal: StopSignal, handler) => process.on(signal, handler),
    offSignal: (signal: StopSignal, handler) => process.off(signal, handler),
    exit: (code) => {
      log.flush();
      process.exit(code);
    },
    info: (message) => log.info(message),
    error: (message) => {
      log.error(message);
      io.err(`rocketbun: ${message}`);
    },
  };
}

/**
 * Loads the logger at the configured level and mentions accepted-but-ignored Java keys. The import is
 * deferred on purpose: log.ts reads ROCKETBUN_LOG_LEVEL when loaded and throws on a bad level, while
 * the config loader reports that variable as a ConfigError; so the config is validated first.
 */
export async function startLogging(loaded: LoadedConfig<RoleName>): Promise<Logger> {
  const { configureLogOutput, logger, setLogLevel } = await import("../log.ts");
  setLogLevel(loaded.config.rocketbun.logLevel);
  const { logFormat, logDir } = loaded.config.rocketbun;
  await configureLogOutput({ format: logFormat, dir: logDir });
  const log = logger("cli");
  if (loaded.file !== undefined) log.info({ file: loaded.file }, "loaded config file");
  if (loaded.ignoredKeys.length > 0) {
    log.warn({ keys: loaded.ignoredKeys }, "RocketMQ keys accepted but without effect in RocketBun");
  }
  const allocator = allocatorNote(process.env);
  if (allocator !== null) log.info(allocator);
  return log;
}

/** Runs one role until a signal, or reports that this build does not include it. */
export async function runRole<C>(
  title: string,
  starter: RoleStarter<C> | undefined,
  loaded: LoadedConfig<RoleName> & { readonly config: C },
  io: CliIo,
): Promise<number> {
  if (starter === undefined) {
    io.err(`rocketbun: the ${title} role is not available in this build`);
    return EXIT_FAILURE;
  }
  const log = await startLogging(loaded);
  return runRoles([{ title, start: () => starter(loaded.config) }], processHost(log, io));
}
