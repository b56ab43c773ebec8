/**
 * Java `.properties` text: a parser with java.util.Properties#load semantics and a writer whose output
 * that parser (and Java) reads back to the same entries.
 */
import { ConfigError } from "./errors.ts";

/** One `key=value` entry with the (1-based) line its logical line starts on. */
export interface PropertyEntry {
  readonly key: string;
  readonly value: string;
  readonly line: number;
}

// Java treats only these three as whitespace between key, separator and value.
const isBlank = (c: string | undefined): boolean => c === " " || c === "\t" || c === "\f";

/** A logical line: natural lines joined at backslash continuations, with where each piece began. */
interface LogicalLine {
  readonly text: string;
  /** `[offset in text, physical line number]`, ascending by offset. */
  readonly pieces: ReadonlyArray<readonly [number, number]>;
}

function skipBlanks(s: string, from: number): number {
  let i = from;
  while (i < s.length && isBlank(s[i])) i++;
  return i;
}

function trailingBackslashes(s: string): number {
  let n = 0;
  while (n < s.length && s[s.length - 1 - n] === "\\") n++;
  return n;
}

function* logicalLines(text: string): Generator<LogicalLine> {
  const natural = text.split(/\r\n|\r|\n/);
  let i = 0;
  while (i < natural.length) {
    const first = natural[i] ?? "";
    const firstLine = ++i;
    const start = skipBlanks(first, 0);
    if (start === first.length) continue;
    // A comment is recognised only at the start of a logical line, and never continues.
    if (first[start] === "#" || first[start] === "!") continue;
    let piece = first.slice(start);
    let joined = "";
    const pieces: Array<readonly [number, number]> = [[0, firstLine]];
    // An odd number of trailing backslashes escapes the line end: the next line continues this one,
    // minus its leading whitespace. An even number is escaped backslashes.
    while (trailingBackslashes(piece) % 2 === 1) {
      joined += piece.slice(0, -1);
      if (i >= natural.length) {
        piece = "";
        break;
      }
      const next = natural[i] ?? "";
      i++;
      pieces.push([joined.length, i]);
      piece = next.slice(skipBlanks(next, 0));
    }
    yield { text: joined + piece, pieces };
  }
}

function lineAt(logical: LogicalLine, offset: number): number {
  let line = logical.pieces[0]?.[1] ?? 1;
  for (const [start, n] of logical.pieces) {
    if (start > offset) break;
    line = n;
  }
  return line;
}

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = { t: "\t", n: "\n", r: "\r", f: "\f" };

/** Resolves escapes in `text.slice(from, to)`; any other escaped character stands for itself. */
function decodeEscapes(logical: LogicalLine, from: number, to: number, origin: string | undefined): string {
  const s = logical.text;
  let out = "";
  for (let i = from; i < to; i++) {
    const c = s[i] ?? "";
    if (c !== "\\") {
      out += c;
      continue;
    }
    const e = s[++i] ?? "";
    if (e === "u") {
      const hex = s.slice(i + 1, Math.min(i + 5, to));
      if (!/^[0-9a-fA-F]{4}$/.test(hex)) {
        const line = lineAt(logical, i);
        const where = origin === undefined ? `line ${line}` : `${origin}:${line}`;
        throw new ConfigError([{ origin: where, message: `malformed \\uXXXX escape "\\u${hex}"` }]);
      }
      out += String.fromCharCode(Number.parseInt(hex, 16));
      i += 4;
    } else {
      out += SIMPLE_ESCAPES[e] ?? e;
    }
  }
  return out;
}

function splitEntry(logical: LogicalLine, origin: string | undefined): PropertyEntry {
  const s = logical.text;
  let keyEnd = 0;
  let valueStart = s.length;
  let hasSeparator = false;
  let escaped = false;
  for (; keyEnd < s.length; keyEnd++) {
    const c = s[keyEnd];
    if (!escaped && (c === "=" || c === ":")) {
      hasSeparator = true;
      valueStart = keyEnd + 1;
      break;
    }
    if (!escaped && isBlank(c)) {
      valueStart = keyEnd + 1;
      break;
    }
    escaped = c === "\\" ? !escaped : false;
  }
  // Blanks around the separator are dropped; after a blank, one `=` or `:` may still follow.
  while (valueStart < s.length) {
    const c = s[valueStart];
    if (!isBlank(c)) {
      if (hasSeparator || (c !== "=" && c !== ":")) break;
      hasSeparator = true;
    }
    valueStart++;
  }
  return {
    key: decodeEscapes(logical, 0, keyEnd, origin),
    value: decodeEscapes(logical, valueStart, s.length, origin),
    line: lineAt(logical, 0),
  };
}

/**
 * Every entry in file order, duplicates included. `origin` (a file name) prefixes error locations.
 * Throws ConfigError naming the line of a malformed `\uXXXX` escape.
 */
export function parsePropertyEntries(text: string, origin?: string): PropertyEntry[] {
  const entries: PropertyEntry[] = [];
  for (const logical of logicalLines(text)) entries.push(splitEntry(logical, origin));
  return entries;
}

/** Parses `.properties` text into an ordered map; the last duplicate of a key wins. */
export function parseProperties(text: string, origin?: string): Map<string, string> {
  const map = new Map<string, string>();
  for (const e of parsePropertyEntries(text, origin)) map.set(e.key, e.value);
  return map;
}

function escapeChar(c: string): string {
  switch (c) {
    case "\\":
      return "\\\\";
    case "\t":
      return "\\t";
    case "\n":
      return "\\n";
    case "\r":
      return "\\r";
    case "\f":
      return "\\f";
  }
  const code = c.charCodeAt(0);
  // Control characters would be invisible or break the line; spell them as \uXXXX.
  if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) return `\\u${code.toString(16).padStart(4, "0")}`;
  return c;
}

/** Escapes a key: separators and blanks anywhere, comment markers too (they matter at line start). */
export function escapeKey(key: string): string {
  let out = "";
  for (const c of key) {
    out += c === "=" || c === ":" || c === " " || c === "#" || c === "!" ? `\\${c}` : escapeChar(c);
  }
  return out;
}

/** Escapes a value: only leading blanks need protecting; `=` and `:` inside a value are literal. */
export function escapeValue(value: string): string {
  let out = "";
  let leading = true;
  for (const c of value) {
    if (leading && c === " ") {
      out += "\\ ";
      continue;
    }
    leading = false;
    out += escapeChar(c);
  }
  return out;
}

/** Writes entries as `key=value` lines (after optional `#` comment lines); ends with a newline. */
export function stringifyProperties(
  entries: Iterable<readonly [string, string]>,
  comments: readonly string[] = [],
): string {
  const lines: string[] = [];
  for (const c of comments) lines.push(`# ${c.replace(/[\r\n]+/g, " ")}`);
  for (const [k, v] of entries) lines.push(`${escapeKey(k)}=${escapeValue(v)}`);
  return lines.length === 0 ? "" : `${lines.join("\n")}\n`;
}
