/**
 * A JSON writer with fastjson's two output styles (spec remoting §7.8):
 * - "fastjson" (RemotingSerializable.encode): maps keyed by numbers get bare keys, `{0:"addr"}`;
 * - "standard" (the 105 body for version ≥ 401): every key quoted, map keys sorted, non-ASCII as
 *   uppercase `\uXXXX`, `/` as `\/`, longs beyond ±(2^53 - 1) as strings.
 * Object fields are written in sorted order, as fastjson's SortField does; null and undefined
 * fields are left out. A JS `Map` stands for a Java map (its keys keep their number type); a `Set`
 * is written as an array.
 */

export type JsonStyle = "fastjson" | "standard";

/** Encodes `value` in the given style. */
export function writeJson(value: unknown, style: JsonStyle = "fastjson"): string {
  return style === "standard" ? write(value, quoteStandard, true) : write(value, quoteFastjson, false);
}

/** `writeJson` as UTF-8 bytes, ready for a command body. */
export function jsonBytes(value: unknown, style: JsonStyle = "fastjson"): Uint8Array {
  return encoder.encode(writeJson(value, style));
}

const encoder = new TextEncoder();
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

type Quote = (s: string) => string;

function write(value: unknown, quote: Quote, standard: boolean): string {
  switch (typeof value) {
    case "string":
      return quote(value);
    case "number":
      return Number.isFinite(value) ? String(value) : "null";
    case "bigint":
      return standard && (value > MAX_SAFE || value < -MAX_SAFE) ? `"${value}"` : String(value);
    case "boolean":
      return value ? "true" : "false";
    case "object":
      break;
    default:
      return "null";
  }
  if (value === null) return "null";
  if (Array.isArray(value) || value instanceof Set) {
    const parts: string[] = [];
    for (const item of value) parts.push(write(item, quote, standard));
    return `[${parts.join(",")}]`;
  }
  if (value instanceof Map) return writeMap(value, quote, standard);
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj).sort(compareText);
  const parts: string[] = [];
  for (const key of keys) {
    const item = obj[key];
    if (item === undefined || item === null) continue;
    parts.push(`${quote(key)}:${write(item, quote, standard)}`);
  }
  return `{${parts.join(",")}}`;
}

function writeMap(map: Map<unknown, unknown>, quote: Quote, standard: boolean): string {
  const entries = [...map.entries()].sort(([a], [b]) => compareKeys(a, b));
  const parts: string[] = [];
  for (const [key, item] of entries) {
    if (item === undefined || item === null) continue;
    const text =
      typeof key === "string"
        ? quote(key)
        : standard
          ? quote(String(key))
          : // fastjson's default writes a non-String key as the JSON value it is: {0:"a"}.
            write(key, quote, standard);
    parts.push(`${text}:${write(item, quote, standard)}`);
  }
  return `{${parts.join(",")}}`;
}

/** Java's String.compareTo: UTF-16 code-unit order. */
function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function compareKeys(a: unknown, b: unknown): number {
  if ((typeof a === "number" || typeof a === "bigint") && (typeof b === "number" || typeof b === "bigint")) {
    return a < b ? -1 : a > b ? 1 : 0;
  }
  return compareText(String(a), String(b));
}

const quoteFastjson: Quote = (s) => JSON.stringify(s);

/** True when BrowserCompatible writes `s` differently from JSON.stringify (controls, non-ASCII, `/`). */
function needsBrowserEscape(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c >= 0x7f || c === 0x2f) return true;
  }
  return false;
}
const SHORT_ESCAPES: Record<string, string> = {
  "\b": "\\b",
  "\f": "\\f",
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
  '"': '\\"',
  "/": "\\/",
  "\\": "\\\\",
};

/** fastjson's BrowserCompatible string form. */
const quoteStandard: Quote = (s) => {
  if (!needsBrowserEscape(s)) return JSON.stringify(s);
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    const code = s.charCodeAt(i);
    const short = SHORT_ESCAPES[c];
    if (short !== undefined) out += short;
    else if (code < 0x20 || code >= 0x7f) out += `\\u${code.toString(16).toUpperCase().padStart(4, "0")}`;
    else out += c;
  }
  return `${out}"`;
};
