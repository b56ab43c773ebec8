/**
 * The JSON header form (spec remoting §2.2). Writers emit Java's alphabetical key order with string
 * extFields; readers accept what real clients send: numbers/booleans in extFields (ali-ons, C++),
 * a trailing newline (C++), missing flag/version/language/opaque, a numeric language.
 * Reading is linear in the header's size: nesting is bounded before JSON.parse runs, and an
 * extFields value that is an object or array refuses the request instead of being stringified.
 */
import { type ExtFields, RemotingCommand, setExtField } from "./command.ts";
import { FrameError, RefusedRequestError } from "./errors.ts";
import { languageFromJson } from "./language-code.ts";
import { SerializeType } from "./serialize-type.ts";

const utf8 = new TextEncoder();
// Not fatal, as the default is: Bun 1.4.5 decodes twice as slowly when given the options object.
const utf8Decoder = new TextDecoder();

/**
 * Deepest nesting a JSON header may have. Real ones have 2 (the header, extFields); the slack is
 * for members other clients may add. Checked by a byte scan before JSON.parse, so a header of
 * 100,000 "[" is refused in microseconds instead of being parsed (and, before, stringified back
 * until the stack overflowed: 0.74 s per frame). The scan runs on every request, so it counts
 * with native indexOf first: a header with no more than this many "{" and "[" bytes in all, as
 * every real one is, cannot nest deeper, and the exact scan only runs for the others.
 */
export const JSON_HEADER_DEPTH_MAX = 8;
/** Longest extFields key quoted in an error remark. */
const REMARK_KEY_CHARS_MAX = 64;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

export function encodeJsonHeader(cmd: RemotingCommand): Uint8Array {
  return utf8.encode(jsonHeaderText(cmd));
}

export function jsonHeaderText(cmd: RemotingCommand): string {
  // Key order as fastjson writes it; null members are left out (spec §2.2).
  const header: Record<string, unknown> = { code: cmd.code };
  if (cmd.extFields) header.extFields = cmd.extFields;
  header.flag = cmd.flag;
  header.language = cmd.language === "UNKNOWN" ? "OTHER" : cmd.language;
  header.opaque = cmd.opaque;
  if (cmd.remark !== null) header.remark = cmd.remark;
  header.serializeTypeCurrentRPC = "JSON";
  header.version = cmd.version;
  return JSON.stringify(header);
}

export function decodeJsonHeader(bytes: Uint8Array): RemotingCommand {
  if (nestedDeeperThan(bytes, JSON_HEADER_DEPTH_MAX)) {
    throw new FrameError(`bad JSON header: nested deeper than ${JSON_HEADER_DEPTH_MAX} levels`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(utf8Decoder.decode(bytes));
  } catch (err) {
    throw new FrameError(`bad JSON header: ${(err as Error).message}`);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new FrameError("bad JSON header: not an object");
  }
  const h = parsed as Record<string, unknown>;
  const cmd = new RemotingCommand({
    code: intField(h, "code"),
    language: languageFromJson(h.language),
    version: intField(h, "version"),
    opaque: intField(h, "opaque"),
    flag: intField(h, "flag"),
    remark: typeof h.remark === "string" && h.remark !== "" ? h.remark : null,
    serializeType: SerializeType.JSON,
  });
  cmd.extFields = extFieldsOf(h.extFields, cmd);
  return cmd;
}

/**
 * True when `json` opens more than `max` objects/arrays at once; strings are skipped. Linear in
 * the length of `json` whatever its content, with no string or array made.
 */
export function nestedDeeperThan(json: Uint8Array, max: number): boolean {
  return openersMoreThan(json, max) && scanDeeperThan(json, max);
}

/** Whether `json` holds more than `max` "{" and "[" bytes, strings included (memchr speed). */
function openersMoreThan(json: Uint8Array, max: number): boolean {
  const braces = countUpTo(json, OPEN_BRACE, max + 1);
  return braces > max || countUpTo(json, OPEN_BRACKET, max + 1 - braces) + braces > max;
}

/** Occurrences of `byte` in `bytes`, counting no further than `limit`. */
function countUpTo(bytes: Uint8Array, byte: number, limit: number): number {
  let n = 0;
  for (let i = bytes.indexOf(byte); i !== -1 && n < limit; i = bytes.indexOf(byte, i + 1)) n++;
  return n;
}

/**
 * The exact depth scan. A string is skipped with indexOf to its closing quote: a quote after an
 * odd run of backslashes is escaped, and each run is counted once, for the quote that ends it.
 */
function scanDeeperThan(json: Uint8Array, max: number): boolean {
  let depth = 0;
  for (let i = 0; i < json.length; i++) {
    const b = json[i]!;
    if (b === QUOTE) {
      let end = json.indexOf(QUOTE, i + 1);
      while (end !== -1 && backslashesBefore(json, end, i + 1) % 2 === 1) end = json.indexOf(QUOTE, end + 1);
      // An unterminated string nests nothing more; JSON.parse names the error.
      if (end === -1) return false;
      i = end;
    } else if (b === OPEN_BRACE || b === OPEN_BRACKET) {
      if (++depth > max) return true;
    } else if (b === CLOSE_BRACE || b === CLOSE_BRACKET) {
      depth--;
    }
  }
  return false;
}

/** How many backslashes stand right before `at`, not looking before `from`. */
function backslashesBefore(json: Uint8Array, at: number, from: number): number {
  let n = 0;
  for (let j = at - 1; j >= from && json[j] === BACKSLASH; j--) n++;
  return n;
}

function intField(h: Record<string, unknown>, key: string): number {
  const v = h[key];
  if (v === undefined || v === null) return 0;
  const n = typeof v === "string" ? Number(v) : v;
  if (typeof n !== "number" || !Number.isInteger(n) || n < -0x80000000 || n > 0x7fffffff) {
    throw new FrameError(`bad JSON header: ${key} is not an int32`);
  }
  return n;
}

/**
 * extFields as Java's HashMap<String,String>: strings kept, numbers and booleans as their text
 * (fastjson fills the map with the text of any scalar, spec §2.2), null members left out. An
 * object or array value, or extFields that are not an object, refuse `cmd` (RefusedRequestError).
 */
function extFieldsOf(raw: unknown, cmd: RemotingCommand): ExtFields | null {
  if (raw === undefined || raw === null) return null;
  if (typeof raw !== "object" || Array.isArray(raw))
    throw new RefusedRequestError(cmd, "bad JSON header: extFields is not an object");
  const fields = raw as Record<string, unknown>;
  // Java and our own peers send strings only: keep the parsed object as it is (JSON.parse makes
  // even a "__proto__" key an own data property).
  let allStrings = true;
  for (const key in fields) {
    if (typeof fields[key] !== "string") {
      allStrings = false;
      break;
    }
  }
  if (allStrings) return fields as ExtFields;
  const out: ExtFields = {};
  for (const key in fields) {
    const value = fields[key];
    if (value === null || value === undefined) continue;
    if (typeof value === "object") {
      const what = Array.isArray(value) ? "an array" : "an object";
      const name = key.length > REMARK_KEY_CHARS_MAX ? `${key.slice(0, REMARK_KEY_CHARS_MAX)}...` : key;
      throw new RefusedRequestError(
        cmd,
        `bad JSON header: extFields.${name} is ${what}; values must be strings, numbers or booleans`,
      );
    }
    setExtField(out, key, typeof value === "string" ? value : String(value));
  }
  return out;
}
