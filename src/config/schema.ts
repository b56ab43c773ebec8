/**
 * Typed config sections: a table of `key → field` per section, with RocketMQ's property names as keys.
 * Validation turns string entries into a frozen object whose type is inferred from the table.
 */
import { ConfigError, type ConfigProblem } from "./errors.ts";

interface FieldBase {
  readonly doc?: string;
  /** Printed by `-m` (RocketMQ's `@ImportantField`). */
  readonly important?: boolean;
  /** A password: `-p` says whether it is set, never what it is. */
  readonly secret?: boolean;
}

/** `int` is Java's 32-bit int; `long` is a Java long limited to what a JS number holds exactly. */
export interface NumberField extends FieldBase {
  readonly type: "int" | "long";
  readonly default: number;
  readonly min?: number;
  readonly max?: number;
}

export interface BoolField extends FieldBase {
  readonly type: "bool";
  readonly default: boolean;
}

export interface StringField extends FieldBase {
  readonly type: "string";
  readonly default: string;
  /** Returns what is wrong with a value, or undefined when it is fine. */
  readonly check?: (value: string) => string | undefined;
}

export interface EnumField<V extends string = string> extends FieldBase {
  readonly type: "enum";
  readonly default: V;
  readonly enumValues: readonly V[];
}

export type Field = NumberField | BoolField | StringField | EnumField;
export type FieldType = Field["type"];
export type Fields = Readonly<Record<string, Field>>;

export type FieldValue<F extends Field> = F extends NumberField
  ? number
  : F extends BoolField
    ? boolean
    : F extends EnumField<infer V>
      ? V
      : string;

/** The frozen object a section validates to. */
export type SectionValues<F extends Fields> = { readonly [K in keyof F]: FieldValue<F[K]> };

export interface Section<F extends Fields = Fields> {
  readonly name: string;
  readonly fields: F;
  /** Java keys that are valid in real files but mean nothing to RocketBun: accepted, then ignored. */
  readonly ignoredKeys: ReadonlySet<string>;
}

/** The values type of a section constant: `ConfigOf<typeof nettyServerConfig>`. */
export type ConfigOf<S> = S extends Section<infer F> ? SectionValues<F> : never;

const INT_MIN = -(2 ** 31);
const INT_MAX = 2 ** 31 - 1;

/** Declares a section; checks the table itself so a bad default fails at import, not at run time. */
export function defineSection<const F extends Fields>(
  name: string,
  fields: F,
  options: { readonly ignoredKeys?: readonly string[] } = {},
): Section<F> {
  for (const [key, field] of Object.entries(fields)) {
    const problem = checkValue(field, field.default);
    if (problem !== undefined) throw new Error(`${name}.${key}: default ${problem}`);
    if (options.ignoredKeys?.includes(key)) throw new Error(`${name}.${key}: both a field and ignored`);
  }
  return Object.freeze({ name, fields, ignoredKeys: new Set(options.ignoredKeys ?? []) });
}

/** True when the section declares the key, as a field or as an accepted-and-ignored Java key. */
export function claims(section: Section, key: string): boolean {
  return Object.hasOwn(section.fields, key) || section.ignoredKeys.has(key);
}

/** Keys that no section claims, in the order given. */
export function unknownKeys(sections: readonly Section[], keys: Iterable<string>): string[] {
  const unknown: string[] = [];
  for (const key of keys) if (!sections.some((s) => claims(s, key))) unknown.push(key);
  return unknown;
}

/** The section's defaults as a frozen object. */
export function defaultsOf<F extends Fields>(section: Section<F>): SectionValues<F> {
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(section.fields)) out[key] = field.default;
  return Object.freeze(out) as SectionValues<F>;
}

/** Declared min/max within Java's int range, or within the longs a JS number holds exactly. */
function bounds(field: NumberField): readonly [number, number] {
  const long = field.type === "long";
  return [
    Math.max(field.min ?? -Infinity, long ? Number.MIN_SAFE_INTEGER : INT_MIN),
    Math.min(field.max ?? Infinity, long ? Number.MAX_SAFE_INTEGER : INT_MAX),
  ];
}

function checkValue(field: Field, value: unknown): string | undefined {
  switch (field.type) {
    case "int":
    case "long": {
      if (typeof value !== "number" || !Number.isInteger(value)) return `${String(value)} is not an integer`;
      const [lo, hi] = bounds(field);
      if (value < lo) return `${value} is below the minimum ${lo}`;
      if (value > hi) return `${value} is above the maximum ${hi}`;
      return undefined;
    }
    case "bool":
      return typeof value === "boolean" ? undefined : `${String(value)} is not a bool`;
    case "enum":
      return typeof value === "string" && field.enumValues.includes(value)
        ? undefined
        : `${JSON.stringify(value)} is not one of ${field.enumValues.join(", ")}`;
    case "string":
      return typeof value === "string" ? field.check?.(value) : `${String(value)} is not a string`;
  }
}

/**
 * Converts one textual value. Values are trimmed first (Java trims only strings and silently drops a
 * number with a trailing blank; we would rather accept it than drop it).
 */
export function convertValue(field: Field, raw: string): { value: unknown } | { problem: string } {
  const text = raw.trim();
  switch (field.type) {
    case "int":
    case "long": {
      // Java's Integer.parseInt/Long.parseLong syntax: optional sign, decimal digits.
      if (!/^[+-]?\d+$/.test(text)) {
        return { problem: `${JSON.stringify(raw)} is not ${field.type === "int" ? "an int" : "a long"}` };
      }
      const n = Number(text);
      // Beyond 2^53 the number is no longer exact; report the text, not the rounded number.
      if (!Number.isSafeInteger(n)) {
        const [lo, hi] = bounds(field);
        return {
          problem: n < 0 ? `${text} is below the minimum ${lo}` : `${text} is above the maximum ${hi}`,
        };
      }
      const problem = checkValue(field, n);
      return problem === undefined ? { value: n } : { problem };
    }
    case "bool": {
      // Boolean.parseBoolean reads anything but "true" as false; we reject what is neither.
      const lower = text.toLowerCase();
      if (lower === "true") return { value: true };
      if (lower === "false") return { value: false };
      return { problem: `${JSON.stringify(raw)} is not a bool (true or false)` };
    }
    default: {
      const problem = checkValue(field, text);
      return problem === undefined ? { value: text } : { problem };
    }
  }
}

export type Validated<F extends Fields> =
  | { readonly ok: true; readonly values: SectionValues<F> }
  | { readonly ok: false; readonly problems: readonly ConfigProblem[] };

/**
 * Validates the entries this section declares (other keys are the loader's business) over the
 * defaults, optionally replaced per key by `defaults` (role- or machine-specific values).
 * `originOf` names where a key's value came from, for problem reports.
 */
export function validateSection<F extends Fields>(
  section: Section<F>,
  entries: ReadonlyMap<string, string>,
  defaults: Partial<SectionValues<F>> = {},
  originOf: (key: string) => string | undefined = () => undefined,
): Validated<F> {
  const out: Record<string, unknown> = {};
  const problems: ConfigProblem[] = [];
  const overrides: Readonly<Record<string, unknown>> = defaults;
  for (const [key, field] of Object.entries(section.fields)) {
    const raw = entries.get(key);
    if (raw === undefined) {
      const value = Object.hasOwn(overrides, key) ? overrides[key] : field.default;
      // A role default can be derived (haListenPort from listenPort), so it is checked like input.
      const problem = checkValue(field, value);
      if (problem !== undefined) problems.push({ key, message: `default ${problem}` });
      out[key] = value;
      continue;
    }
    const converted = convertValue(field, raw);
    if ("problem" in converted) problems.push({ origin: originOf(key), key, message: converted.problem });
    else out[key] = converted.value;
  }
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, values: Object.freeze(out) as SectionValues<F> };
}

/** Validates one section and throws ConfigError listing every bad value. */
export function parseSection<F extends Fields>(
  section: Section<F>,
  entries: ReadonlyMap<string, string> | Readonly<Record<string, string>>,
  defaults: Partial<SectionValues<F>> = {},
): SectionValues<F> {
  const map = entries instanceof Map ? entries : new Map(Object.entries(entries));
  const result = validateSection(section, map, defaults);
  if (!result.ok) throw new ConfigError(result.problems);
  return result.values;
}

/** Formats a value the way `.properties` files spell it. */
export function formatValue(value: unknown): string {
  return typeof value === "string" ? value : String(value);
}
