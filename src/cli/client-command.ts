/**
 * Flag handling shared by `produce` and `consume`: -n with NAMESRV_ADDR as the fallback, integer
 * flags that name themselves when wrong, and the client options (ACL keys, TLS, a quiet logger)
 * every client of the command is created with.
 */
import { checkAddressList } from "../config/checks.ts";
import type { ClientTlsOptions } from "../remoting/index.ts";
import { TLS_FLAGS, tlsFromFlags } from "./admin/tls-flags.ts";
import { type CommandSpec, type FlagSpec, type ParsedArgs, UsageError } from "./args.ts";
import { AK_FLAG, type ClientCredentials, clientLog, credentialsOf, SK_FLAG } from "./client-flags.ts";

export const NAMESRV_FLAG: FlagSpec = {
  long: "namesrvAddr",
  short: "n",
  value: "ADDR",
  help: "NameServer address(es), 'host:port;host:port' (default: $NAMESRV_ADDR); RocketBun or Apache RocketMQ",
};
export const TOPIC_FLAG: FlagSpec = { long: "topic", short: "t", value: "TOPIC", help: "topic name" };
/** Flags after the command's own: ACL keys and TLS. */
export const CONNECTION_FLAGS: readonly FlagSpec[] = [AK_FLAG, SK_FLAG, ...TLS_FLAGS];

function seeHelp(spec: CommandSpec): string {
  return `(see rocketbun ${spec.name} --help)`;
}

export function requiredFlag(spec: CommandSpec, args: ParsedArgs, long: string, letter: string): string {
  const text = args.flags.get(long)?.trim();
  if (text === undefined) throw new UsageError(`'${spec.name}' needs -${letter} ${seeHelp(spec)}`);
  if (text === "") throw new UsageError(`empty value for flag '-${letter}' ${seeHelp(spec)}`);
  return text;
}

export function intFlag(
  spec: CommandSpec,
  args: ParsedArgs,
  long: string,
  name: string,
  min: number,
  max: number,
): number | undefined {
  const text = args.flags.get(long);
  if (text === undefined) return undefined;
  const n = /^\d+$/.test(text.trim()) ? Number(text.trim()) : Number.NaN;
  if (!(n >= min && n <= max))
    throw new UsageError(
      `invalid value '${text}' for flag '${name}': expected an integer ${min}-${max} ${seeHelp(spec)}`,
    );
  return n;
}

export interface ClientSetup {
  namesrvAddr: string;
  credentials: ClientCredentials | undefined;
  tls: ClientTlsOptions | undefined;
  log: ReturnType<typeof clientLog>;
}

/** The NameServer, ACL keys and TLS options the flags ask for. */
export async function clientSetup(spec: CommandSpec, args: ParsedArgs): Promise<ClientSetup> {
  const namesrvAddr = (args.flags.get("namesrvAddr") ?? process.env.NAMESRV_ADDR ?? "").trim();
  if (namesrvAddr === "")
    throw new UsageError(`'${spec.name}' needs -n ADDR or NAMESRV_ADDR ${seeHelp(spec)}`);
  const bad = checkAddressList(namesrvAddr);
  if (bad !== undefined)
    throw new UsageError(`invalid value for flag '-n' (or NAMESRV_ADDR): ${bad} ${seeHelp(spec)}`);
  return {
    namesrvAddr,
    credentials: credentialsOf(spec.name, args.flags),
    tls: await tlsFromFlags(args.flags, new Map(), spec.name),
    log: clientLog(),
  };
}
