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

export function defineHeader<S extends Spec>(fields: S): HeaderCodec<S> {
  const entries = Object.entries(fields).map(([name, spec]) => [name, spec.wire ?? name, spec] as const);
  const names = entries.map((e) => e[0]);
  const wires = entries.map((e) => e[1]);
  return {
    fields,
    decode(ext) {
      const out: Record<string, unknown> = {};
      for (const [name, wire, spec] of entries) {
        const text = ext?.[wire];
        if (text === undefined || text === null) {
          if (spec.required) {
            throw new RemotingError(ResponseCode.SYSTEM_ERROR, `the custom field <${wire}> is null`);
          }
          continue;
        }
        out[name] = parseValue(spec.kind, wire, text);
      }
      return out as HeaderOf<S>;
    },
    encode(header, into = {}) {
      // Indexed loops over flat arrays, not a destructuring for-of: this runs for every pull and
      // every send, and in a drain profile it took nearly as much time as the request's JSON.
      const values = header as Record<string, unknown>;
      for (let i = 0; i < names.length; i++) {
        const value = values[names[i]!];
        if (value === undefined || value === null) continue;
        into[wires[i]!] = typeof value === "string" ? value : String(value);
      }
      return into;
    },
  };
}
