/**
 * A small argument parser for the subcommands: long flags (`--x=v`, `--x v`), short flags (`-c v`,
 * `-cv`, bundled switches `-ph`), `--` to end flags, and help text generated from the same table.
 */

/** A mistake on the command line: exit code 2, message without a stack trace. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}

export interface FlagSpec {
  /** Long name without dashes, e.g. `broker-port`; also the key in ParsedArgs. */
  readonly long: string;
  readonly short?: string;
  /** Other long names accepted, e.g. RocketMQ's `configFile`. */
  readonly aliases?: readonly string[];
  /** Placeholder of the value (`FILE`, `N`); absent for a switch. */
  readonly value?: string;
  readonly help: string;
}

export interface CommandSpec {
  readonly name: string;
  readonly usage: string;
  readonly summary: string;
  readonly flags: readonly FlagSpec[];
  /** Free text after the options (environment, examples). */
  readonly notes?: string;
  /** Stop at the first positional and keep the rest verbatim (admin verbs carry their own flags). */
  readonly passThroughAfterPositional?: boolean;
}

export interface ParsedArgs {
  /** Flag values by long name; a switch maps to "true". Repeated value flags: the last wins. */
  readonly flags: ReadonlyMap<string, string>;
  readonly positionals: readonly string[];
}

export const HELP_FLAG: FlagSpec = { long: "help", short: "h", help: "show this help and exit" };

function seeHelp(spec: CommandSpec): string {
  return `(see rocketbun ${spec.name} --help)`;
}

function findLong(spec: CommandSpec, name: string): FlagSpec | undefined {
  return [...spec.flags, HELP_FLAG].find((f) => f.long === name || f.aliases?.includes(name));
}

function findShort(spec: CommandSpec, letter: string): FlagSpec | undefined {
  return [...spec.flags, HELP_FLAG].find((f) => f.short === letter);
}

export function parseArgs(spec: CommandSpec, argv: readonly string[]): ParsedArgs {
  const flags = new Map<string, string>();
  const positionals: string[] = [];
  const unknown = (token: string) =>
    new UsageError(`unknown flag '${token}' for '${spec.name}' ${seeHelp(spec)}`);
  const needsValue = (token: string) => new UsageError(`flag '${token}' needs a value ${seeHelp(spec)}`);

  for (let i = 0; i < argv.length; i++) {
    const token = argv[i] ?? "";
    if (token === "--") {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (token.startsWith("--")) {
      const eq = token.indexOf("=");
      const name = eq < 0 ? token.slice(2) : token.slice(2, eq);
      const flag = findLong(spec, name);
      if (flag === undefined) throw unknown(eq < 0 ? token : token.slice(0, eq));
      if (flag.value === undefined) {
        if (eq >= 0) throw new UsageError(`flag '--${name}' takes no value ${seeHelp(spec)}`);
        flags.set(flag.long, "true");
      } else if (eq >= 0) {
        flags.set(flag.long, token.slice(eq + 1));
      } else {
        const value = argv[++i];
        if (value === undefined) throw needsValue(token);
        flags.set(flag.long, value);
      }
    } else if (token.startsWith("-") && token.length > 1) {
      // `-c FILE`, `-cFILE`, or several switches together (`-ph`).
      for (let j = 1; j < token.length; j++) {
        const letter = token[j] ?? "";
        const flag = findShort(spec, letter);
        if (flag === undefined) throw unknown(`-${letter}`);
        if (flag.value === undefined) {
          flags.set(flag.long, "true");
          continue;
        }
        const rest = token.slice(j + 1);
        const value = rest !== "" ? rest : argv[++i];
        if (value === undefined) throw needsValue(`-${letter}`);
        flags.set(flag.long, value);
        break;
      }
    } else {
      positionals.push(token);
      if (spec.passThroughAfterPositional) {
        positionals.push(...argv.slice(i + 1));
        break;
      }
    }
  }
  return { flags, positionals };
}

/** Port flags: an integer 1..65535 (0, "pick any", is for config files and tests, not the CLI). */
export function portFlag(spec: CommandSpec, args: ParsedArgs, long: string): number | undefined {
  const text = args.flags.get(long);
  if (text === undefined) return undefined;
  const n = /^\d{1,5}$/.test(text) ? Number(text) : Number.NaN;
  if (!(n >= 1 && n <= 65535)) {
    throw new UsageError(
      `invalid value '${text}' for flag '--${long}': expected a port 1-65535 ${seeHelp(spec)}`,
    );
  }
  return n;
}

/** A flag value that must not be empty (`-c ""` is a mistake, not "no file"). */
export function textFlag(spec: CommandSpec, args: ParsedArgs, long: string): string | undefined {
  const text = args.flags.get(long);
  if (text !== undefined && text.trim() === "") {
    throw new UsageError(`empty value for flag '--${long}' ${seeHelp(spec)}`);
  }
  return text;
}

export function noPositionals(spec: CommandSpec, args: ParsedArgs): void {
  const first = args.positionals[0];
  if (first !== undefined)
    throw new UsageError(`unexpected argument '${first}' for '${spec.name}' ${seeHelp(spec)}`);
}

export function formatHelp(spec: CommandSpec): string {
  const rows = [...spec.flags, HELP_FLAG].map((f) => {
    const names = [f.short === undefined ? "    " : `-${f.short}, `, `--${f.long}`].join("");
    const aliases = f.aliases?.length ? `(also --${f.aliases.join(", --")})` : undefined;
    return [`${names}${f.value === undefined ? "" : ` ${f.value}`}`, f.help, aliases] as const;
  });
  const width = Math.max(...rows.map(([left]) => left.length)) + 2;
  const lines = [`Usage: ${spec.usage}`, "", spec.summary, "", "Options:"];
  for (const [left, help, aliases] of rows) {
    lines.push(`  ${left.padEnd(width)}${help}`);
    if (aliases !== undefined) lines.push(`  ${"".padEnd(width)}${aliases}`);
  }
  if (spec.notes !== undefined) lines.push("", spec.notes);
  return lines.join("\n");
}
