/**
 * Typed custom headers ↔ extFields (spec remoting §2.3), declared as field tables instead of
 * reflection: `defineHeader({ topic: field.string(), queueId: field.int().optional() })`.
 * Decoding parses each value as Java would (Integer.parseInt, Long.parseLong, Boolean.parseBoolean);
 * a missing required field or unparsable number answers SYSTEM_ERROR naming the field, as Java's
 * RemotingCommandException does. Encoding writes every present value as a string.
 */
import type { ExtFields } from "./command.ts";
import { RemotingError } from "./errors.ts";
import { ResponseCode } from "./response-code.ts";

type Kind = "string" | "int" | "long" | "bool" | "double";
type KindType = { string: string; int: number; long: number; bool: boolean; double: number };

export interface FieldSpec<K extends Kind = Kind, R extends boolean = boolean> {
  readonly kind: K;
  readonly required: R;
  /** The name on the wire when it differs from the property name (SEND_MESSAGE_V2's `a`..`n`). */
  readonly wire?: string;
}

class Field<K extends Kind, R extends boolean> implements FieldSpec<K, R> {
  constructor(
    readonly kind: K,
    readonly required: R,
    readonly wire?: string,
  ) {}
  optional(): Field<K, false> {
    return new Field(this.kind, false, this.wire);
  }
  /** Names the field differently on the wire. */
  as(wire: string): Field<K, R> {
    return new Field(this.kind, this.required, wire);
  }
}

export const field = {
  string: () => new Field("string", true),
  int: () => new Field("int", true),
  long: () => new Field("long", true),
  bool: () => new Field("bool", true),
  double: () => new Field("double", true),
};

type Spec = Record<string, FieldSpec>;
type RequiredKeys<S extends Spec> = { [K in keyof S]: S[K]["required"] extends true ? K : never }[keyof S];
type OptionalKeys<S extends Spec> = Exclude<keyof S, RequiredKeys<S>>;

export type HeaderOf<S extends Spec> = { [K in RequiredKeys<S>]: KindType[S[K]["kind"]] } & {
  [K in OptionalKeys<S>]?: KindType[S[K]["kind"]];
};

export interface HeaderCodec<S extends Spec> {
  readonly fields: S;
  decode(ext: ExtFields | null | undefined): HeaderOf<S>;
  encode(header: HeaderOf<S>, into?: ExtFields): ExtFields;
}

/** Whether `text` is an optional sign and one or more ASCII digits (what Java's parseInt/parseLong take). */
function isIntegerText(text: string): boolean {
  const n = text.length;
  let i = 0;
  const first = text.charCodeAt(0);
  if (first === 0x2b || first === 0x2d) i = 1; // + or -
  if (i >= n) return false;
  // A loop, not a regular expression: every number field of every header passes here.
  for (; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return false;
  }
  return true;
}

function parseValue(kind: Kind, name: string, text: string): string | number | boolean {
  switch (kind) {
    case "string":
      return text;
    case "bool":
      return text.toLowerCase() === "true";
    case "double": {
      const n = Number(text);
      if (text.trim() === "" || Number.isNaN(n)) throw badNumber(name, text);
      return n;
    }
    case "int": {
      if (!isIntegerText(text)) throw badNumber(name, text);
      const n = Number(text);
      if (n < -0x80000000 || n > 0x7fffffff) throw badNumber(name, text);
      return n;
    }
    case "long": {
      if (!isIntegerText(text)) throw badNumber(name, text);
      const n = Number(text);
      if (Number.isSafeInteger(n)) return n;
      return beyondSafeLong(name, text);
    }
  }
}

const LONG_MIN = -(2n ** 63n);
const LONG_MAX = 2n ** 63n - 1n;

/**
 * A long JS numbers cannot hold exactly: Java clients do send some, such as mqadmin's
 * queryMsgByKey with endTimestamp Long.MAX_VALUE for "no end". Within Java's long range it
 * becomes ±Number.MAX_SAFE_INTEGER, which compares with every real offset and timestamp as the
 * original does and still reads back as a long; beyond it Long.parseLong fails, and so do we.
 */
function beyondSafeLong(name: string, text: string): number {
  const big = BigInt(text);
  if (big < LONG_MIN || big > LONG_MAX) throw badNumber(name, text);
  return big > 0n ? Number.MAX_SAFE_INTEGER : -Number.MAX_SAFE_INTEGER;
}

function badNumber(name: string, text: string): RemotingError {
  return new RemotingError(
    ResponseCode.SYSTEM_ERROR,
    `the custom field <${name}> is not a number: "${text}"`,
  );
}

/**
 * The codec of one header, compiled from its field table: one decode and one encode function per
 * header, whose property names are literals. One shared loop over every header's names (what this
 * was) reads and writes properties by computed keys, so the engine's caches at those sites see
 * dozens of names and shapes and fall back to generic lookups; a send is encoded and decoded twice
 * (request and response), and in a gateway produce profile those loops took about as long as the
 * broker's whole append. The generated code does exactly what the loop did, field by field: skip
 * an absent value (encode) or throw for an absent required one (decode), parse with parseValue.
 * Names and wire names come from the field tables in code, never from a peer, and are written as
 * JSON string literals.
 */
export function defineHeader<S extends Spec>(fields: S): HeaderCodec<S> {
  const entries = Object.entries(fields).map(([name, spec]) => [name, spec.wire ?? name, spec] as const);
  const lit = JSON.stringify;
  let decodeBody = "const out = {};\nlet text;\n";
  let encodeBody = "let value;\n";
  for (const [name, wire, spec] of entries) {
    decodeBody +=
      `text = ext === undefined || ext === null ? undefined : ext[${lit(wire)}];\n` +
      "if (text === undefined || text === null) {\n" +
      (spec.required ? `  throw missingField(${lit(wire)});\n` : "") +
      "} else {\n" +
      `  out[${lit(name)}] = ${spec.kind === "string" ? "text" : `parseValue(${lit(spec.kind)}, ${lit(wire)}, text)`};\n` +
      "}\n";
    encodeBody +=
      `value = header[${lit(name)}];\n` +
      `if (value !== undefined && value !== null) into[${lit(wire)}] = typeof value === "string" ? value : String(value);\n`;
  }
  const decode = new Function(
    "parseValue",
    "missingField",
    `return function decode(ext) {\n${decodeBody}return out;\n};`,
  )(parseValue, missingField) as (ext: ExtFields | null | undefined) => HeaderOf<S>;
  const encodeInto = new Function(
    `return function encode(header, into) {\n${encodeBody}return into;\n};`,
  )() as (header: HeaderOf<S>, into: ExtFields) => ExtFields;
  return {
    fields,
    decode,
    encode: (header, into = {}) => encodeInto(header, into),
  };
}

function missingField(wire: string): RemotingError {
  return new RemotingError(ResponseCode.SYSTEM_ERROR, `the custom field <${wire}> is null`);
}
