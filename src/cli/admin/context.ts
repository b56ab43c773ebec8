/**
 * What every admin verb shares: its shape, the context it runs in (parsed flags, a lazily created
 * admin client that the dispatcher shuts down, output as a table or as JSON), and flag readers that
 * turn a bad value into a UsageError naming the flag.
 */
import type { Admin } from "../../client/index.ts";
import type { ClientTlsOptions } from "../../remoting/index.ts";
import { type CommandSpec, type FlagSpec, type ParsedArgs, UsageError } from "../args.ts";
import type { CliIo } from "../command.ts";
import { type Progress, toPlain } from "./format.ts";

export interface AdminVerb {
  readonly name: string;
  readonly summary: string;
  /** The verb's own flags, with mqadmin's letters; -n, --json and -h are added to every verb. */
  readonly flags: readonly FlagSpec[];
  /** Usage after `rocketbun admin <verb>`, e.g. `-t TOPIC (-b ADDR | -c CLUSTER)`. */
  readonly usage: string;
  run(ctx: AdminContext): Promise<void>;
}

/** ACL 1.0 keys every client of the verb signs with. */
export interface AdminCredentials {
  readonly accessKey: string;
  readonly secretKey: string;
}

export interface AdminContext {
  readonly spec: CommandSpec;
  readonly args: ParsedArgs;
  readonly io: CliIo;
  readonly json: boolean;
  readonly namesrvAddr: string;
  /** From --ak/--sk or the environment; give them to every client the verb creates. */
  readonly credentials: AdminCredentials | undefined;
  /** From the --tls flags; give it to every client the verb creates. */
  readonly tls: ClientTlsOptions | undefined;
  /** The admin client; created on first use and shut down when the verb ends. */
  admin(): Promise<Admin>;
  /** Registers a resource (producer, consumer) to shut down when the verb ends. */
  closeLater(close: () => Promise<void>): void;
  /** Prints `data` as JSON with --json, else the text `human()` renders. */
  print(data: unknown, human: () => string): void;
  /** A progress bar on stderr when it is a terminal; a no-op otherwise. */
  progress(total: number, unit: string): Progress;
}

/** An operation that did not succeed: exit code 1 with `rocketbun: <verb>: <message>`. */
export class AdminFailure extends Error {
  override readonly name = "AdminFailure";
}

export function printJson(io: CliIo, data: unknown): void {
  io.out(JSON.stringify(toPlain(data), null, 2));
}

function seeHelp(ctx: AdminContext): string {
  return `(see rocketbun ${ctx.spec.name} --help)`;
}

function flagName(ctx: AdminContext, long: string): string {
  const short = ctx.spec.flags.find((f) => f.long === long)?.short;
  return short === undefined ? `--${long}` : `-${short}`;
}

/** A string flag (trimmed, as mqadmin trims); an empty value is a usage error. */
export function opt(ctx: AdminContext, long: string): string | undefined {
  const text = ctx.args.flags.get(long);
  if (text === undefined) return undefined;
  if (text.trim() === "")
    throw new UsageError(`empty value for flag '${flagName(ctx, long)}' ${seeHelp(ctx)}`);
  return text.trim();
}

export function required(ctx: AdminContext, long: string): string {
  const text = opt(ctx, long);
  if (text === undefined)
    throw new UsageError(`'${ctx.spec.name}' needs ${flagName(ctx, long)} ${seeHelp(ctx)}`);
  return text;
}

/** Exactly one of two flags, as mqadmin's required option groups (`-b ADDR | -c CLUSTER`). */
export function oneOf(ctx: AdminContext, a: string, b: string): { [k: string]: string } {
  const va = opt(ctx, a);
  const vb = opt(ctx, b);
  if (va !== undefined && vb !== undefined)
    throw new UsageError(`use either ${flagName(ctx, a)} or ${flagName(ctx, b)}, not both ${seeHelp(ctx)}`);
  if (va !== undefined) return { [a]: va };
  if (vb !== undefined) return { [b]: vb };
  throw new UsageError(`'${ctx.spec.name}' needs ${flagName(ctx, a)} or ${flagName(ctx, b)} ${seeHelp(ctx)}`);
}

function invalid(ctx: AdminContext, long: string, text: string, expected: string): UsageError {
  return new UsageError(
    `invalid value '${text}' for flag '${flagName(ctx, long)}': expected ${expected} ${seeHelp(ctx)}`,
  );
}

/** An integer flag within [min, max]. */
export function intOpt(
  ctx: AdminContext,
  long: string,
  min = 0,
  max = Number.MAX_SAFE_INTEGER,
): number | undefined {
  const text = opt(ctx, long);
  if (text === undefined) return undefined;
  const n = /^-?\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!(n >= min && n <= max)) throw invalid(ctx, long, text, `an integer ${min}-${max}`);
  return n;
}

/** `true` or `false` (mqadmin's boolean options take a value). */
export function boolOpt(ctx: AdminContext, long: string): boolean | undefined {
  const text = opt(ctx, long);
  if (text === undefined) return undefined;
  const lower = text.toLowerCase();
  if (lower !== "true" && lower !== "false") throw invalid(ctx, long, text, "true or false");
  return lower === "true";
}

/**
 * mqadmin's timestamps: `now`, milliseconds since the epoch, or local `yyyy-MM-dd#HH:mm:ss:SSS`.
 */
export function timestampOpt(ctx: AdminContext, long: string, now = Date.now()): number | undefined {
  const text = opt(ctx, long);
  if (text === undefined) return undefined;
  const ms = parseTimestamp(text, now);
  if (ms === undefined) throw invalid(ctx, long, text, "now, milliseconds or yyyy-MM-dd#HH:mm:ss:SSS");
  return ms;
}

export function parseTimestamp(text: string, now = Date.now()): number | undefined {
  if (text === "now") return now;
  if (/^\d+$/.test(text)) return Number(text);
  const m = /^(\d{4})-(\d{2})-(\d{2})#(\d{2}):(\d{2}):(\d{2}):(\d{3})$/.exec(text);
  if (!m) return undefined;
  const [y, mo, d, h, mi, s, ms] = m.slice(1).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const date = new Date(y, mo - 1, d, h, mi, s, ms);
  // Reject 2024-13-40 rather than letting Date roll it over.
  if (date.getMonth() !== mo - 1 || date.getDate() !== d || h > 23 || mi > 59 || s > 59) return undefined;
  return date.getTime();
}

/** `-t TOPIC`, as most verbs take it. */
export const TOPIC_FLAG = { long: "topic", short: "t", value: "TOPIC", help: "topic name" } as const;
