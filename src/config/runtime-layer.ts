/**
 * The loader's side of run-time changes: reading a role's changes file (configStorePath,
 * brokerConfigPath) into a layer that sits above the `-c` file and below ROCKETBUN_* and flags.
 */
import { ConfigError, type ConfigProblem } from "./errors.ts";
import type { PropertyEntry } from "./properties.ts";
import { claims, type Section } from "./schema.ts";

/** An input value and where it came from (`file:line`, a variable, the command line). */
export interface Sourced {
  readonly value: string;
  readonly origin: string;
}

/** One role's run-time changes file, as read at start. */
export interface RuntimeLayer {
  /** Keys some section of the role claims: validated like the file's, above it. */
  readonly entries: ReadonlyMap<string, Sourced>;
  /** Every key of the file, for the role to keep recording into. */
  readonly changes: ReadonlyMap<string, string>;
}

export interface RuntimeLayers {
  readonly namesrv: RuntimeLayer;
  readonly broker: RuntimeLayer;
}

export const NO_CHANGES: RuntimeLayer = { entries: new Map(), changes: new Map() };
export const NO_RUNTIME: RuntimeLayers = { namesrv: NO_CHANGES, broker: NO_CHANGES };

/** Reads a `.properties` file, throwing ConfigError (with the errno error as cause) when it cannot. */
export type PropertiesReader = (path: string) => Promise<PropertyEntry[]>;

/**
 * The changes file at `path` as a layer; none when there is no file yet. A path key in it is an
 * error naming file and line: RocketBun never writes one, and it would move the role's files.
 */
export async function readRuntimeLayer(
  path: string | undefined,
  sections: readonly Section[],
  pathKeys: readonly string[],
  read: PropertiesReader,
): Promise<RuntimeLayer> {
  if (path === undefined) return NO_CHANGES;
  const entries = new Map<string, Sourced>();
  const changes = new Map<string, string>();
  const refused: ConfigProblem[] = [];
  for (const e of await readIfPresent(path, read)) {
    const origin = `${path}:${e.line}`;
    if (pathKeys.includes(e.key)) {
      refused.push({ origin, key: e.key, message: "may not be changed at run time; set it in the -c file" });
      continue;
    }
    changes.set(e.key, e.value);
    if (sections.some((s) => claims(s, e.key))) entries.set(e.key, { value: e.value, origin });
  }
  if (refused.length > 0) throw new ConfigError(refused);
  return { entries, changes };
}

async function readIfPresent(path: string, read: PropertiesReader): Promise<PropertyEntry[]> {
  try {
    return await read(path);
  } catch (err) {
    const cause = err instanceof ConfigError ? (err.cause as { code?: unknown } | undefined) : undefined;
    if (cause?.code === "ENOENT") return [];
    throw err;
  }
}
