/**
 * What the client-side subcommands (admin, produce, consume) share: the ACL key flags and their
 * environment fallbacks, and a client logger that keeps stdout for the command's own output.
 */
import pino from "pino";
import { type FlagSpec, UsageError } from "./args.ts";

export const AK_FLAG: FlagSpec = {
  long: "ak",
  value: "KEY",
  help: "ACL access key to sign every request with (default: $ROCKETMQ_ACCESS_KEY)",
};
export const SK_FLAG: FlagSpec = {
  long: "sk",
  value: "SECRET",
  help: "ACL secret key (default: $ROCKETMQ_SECRET_KEY; the variable keeps it out of `ps`)",
};

/** ACL 1.0 keys every client of the command signs with. */
export interface ClientCredentials {
  readonly accessKey: string;
  readonly secretKey: string;
}

/**
 * The ACL keys: flags (`flags` first, then `early`), then the environment. Both or neither: half
 * a pair would send unsigned requests that look signed to the user.
 */
export function credentialsOf(
  command: string,
  flags: ReadonlyMap<string, string>,
  early: ReadonlyMap<string, string> = new Map(),
): ClientCredentials | undefined {
  const accessKey = flags.get("ak") ?? early.get("ak") ?? process.env.ROCKETMQ_ACCESS_KEY ?? "";
  const secretKey = flags.get("sk") ?? early.get("sk") ?? process.env.ROCKETMQ_SECRET_KEY ?? "";
  if (accessKey === "" && secretKey === "") return undefined;
  if (accessKey === "" || secretKey === "")
    throw new UsageError(
      `--ak and --sk (or ROCKETMQ_ACCESS_KEY and ROCKETMQ_SECRET_KEY) go together (see rocketbun ${command} --help)`,
    );
  return { accessKey, secretKey };
}

const LOG_LEVELS = new Set(["fatal", "error", "warn", "info", "debug", "trace", "silent"]);

/** Client logs stay out of stdout (tables and JSON go there); silent unless ROCKETBUN_LOG_LEVEL asks. */
export function clientLog() {
  const level = process.env.ROCKETBUN_LOG_LEVEL ?? "";
  return pino({ level: LOG_LEVELS.has(level) ? level : "silent" }, pino.destination(2));
}
