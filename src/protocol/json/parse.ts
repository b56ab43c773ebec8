/**
 * A JSON reader that accepts what fastjson peers send (spec remoting §7.8): unquoted numeric and
 * identifier keys (`{0:"addr"}`), single-quoted strings, stray commas, and integers beyond 2^53
 * (kept exact as bigint). Standard JSON takes the native fast path and yields the same values.
 */
import { setOwn } from "../../remoting/own-property.ts";

/** What parsing produces: plain data, with bigint only for integers outside ±(2^53 - 1). */
export type JsonValue = null | boolean | number | bigint | string | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

export class JsonSyntaxError extends Error {
  override name = "JsonSyntaxError";
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(`${message} at offset ${offset}`);
  }
}

// 16+ digits in a row may be an integer a double cannot hold; the native parser would round it.
const LONG_DIGITS = /\d{16}/;

/**
 * Parses fastjson or standard JSON text. Standard JSON without long digit runs goes through
 * JSON.parse; anything else (or anything JSON.parse refuses) goes through the tolerant reader.
 */
export function parseJson(text: string): JsonValue {
  if (!LONG_DIGITS.test(text)) {
    try {
      return JSON.parse(text) as JsonValue;
    } catch {
      // fall through: fastjson forms are not JSON
    }
  }
  return parseLenient(text);
}

/** The tolerant reader alone (exported so tests can hold both paths to the same answers). */
export function parseLenient(text: string): JsonValue {
  const reader = new Reader(text);
  reader.skipSpace();
  const value = reader.value();
  reader.skipSpace();
  if (reader.pos < text.length) throw new JsonSyntaxError("unexpected trailing text", reader.pos);
  return value;
}

/** Sets a key on a parsed object; "__proto__" stays plain data, as JSON.parse keeps it. */
function put(obj: JsonObject, key: string, value: JsonValue): void {
  setOwn(obj, key, value);
}

const IDENT_START = /[A-Za-z_$]/;
const IDENT_PART = /[A-Za-z0-9_$]/;
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const ESCAPES: Record<string, string> = {
  '"': '"',
  "'": "'",
  "\\": "\\",
  "/": "/",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
};

class Reader {
  pos = 0;
  private depth = 0;
  constructor(private readonly text: string) {}

  skipSpace(): void {
    const t = this.text;
    while (this.pos < t.length) {
      const c = t.charCodeAt(this.pos);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09 || c === 0x0c || c === 0xfeff) this.pos++;
      else break;
    }
  }

  private fail(message: string): never {
    throw new JsonSyntaxError(message, this.pos);
  }

  value(): JsonValue {
    const c = this.text[this.pos];
    switch (c) {
      case "{":
        return this.object();
      case "[":
        return this.array();
      case '"':
      case "'":
        return this.string();
      case undefined:
        return this.fail("unexpected end of input");
    }
    if (c === "-" || (c >= "0" && c <= "9")) return this.number();
    for (const [word, value] of WORDS) {
      if (this.text.startsWith(word, this.pos)) {
        this.pos += word.length;
        return value;
      }
    }
    return this.fail(`unexpected character ${JSON.stringify(c)}`);
  }

  private enter(): void {
    // Bounded nesting: a hostile body must not exhaust the stack (style habit 10).
    if (++this.depth > 512) this.fail("nesting deeper than 512");
    this.pos++;
  }

  private object(): JsonObject {
    this.enter();
    const obj: JsonObject = {};
    for (;;) {
      this.skipSeparators();
      if (this.text[this.pos] === "}") break;
      const key = this.key();
      this.skipSpace();
      if (this.text[this.pos] !== ":") this.fail("expected ':'");
      this.pos++;
      this.skipSpace();
      put(obj, key, this.value());
      this.skipSpace();
      const next = this.text[this.pos];
      if (next === "}") break;
      if (next !== ",") this.fail("expected ',' or '}'");
    }
    this.pos++;
    this.depth--;
    return obj;
  }

  private array(): JsonValue[] {
    this.enter();
    const out: JsonValue[] = [];
    for (;;) {
      this.skipSeparators();
      if (this.text[this.pos] === "]") break;
      out.push(this.value());
      this.skipSpace();
      const next = this.text[this.pos];
      if (next === "]") break;
      if (next !== ",") this.fail("expected ',' or ']'");
    }
    this.pos++;
    this.depth--;
    return out;
  }

  /** Whitespace and any number of commas (fastjson's AllowArbitraryCommas). */
  private skipSeparators(): void {
    this.skipSpace();
    while (this.text[this.pos] === ",") {
      this.pos++;
      this.skipSpace();
    }
  }

  /** A quoted key, a bare number (`0`, `-1`) or a bare identifier; all become strings. */
  private key(): string {
    const c = this.text[this.pos];
    if (c === '"' || c === "'") return this.string();
    if (c === "-" || (c !== undefined && c >= "0" && c <= "9")) {
      NUMBER.lastIndex = this.pos;
      const m = NUMBER.exec(this.text);
      if (!m) this.fail("bad numeric key");
      this.pos += m[0].length;
      return m[0];
    }
    if (c !== undefined && IDENT_START.test(c)) {
      const start = this.pos;
      while (this.pos < this.text.length && IDENT_PART.test(this.text[this.pos]!)) this.pos++;
      return this.text.slice(start, this.pos);
    }
    return this.fail("expected an object key");
  }

  private string(): string {
    const quote = this.text[this.pos];
    this.pos++;
    let out = "";
    let start = this.pos;
    const t = this.text;
    for (;;) {
      const c = t[this.pos];
      if (c === undefined) this.fail("unterminated string");
      if (c === quote) break;
      if (c !== "\\") {
        this.pos++;
        continue;
      }
      out += t.slice(start, this.pos);
      const e = t[this.pos + 1];
      if (e === "u") {
        const hex = t.slice(this.pos + 2, this.pos + 6);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) this.fail("bad \\u escape");
        out += String.fromCharCode(Number.parseInt(hex, 16));
        this.pos += 6;
      } else {
        const mapped = e === undefined ? undefined : ESCAPES[e];
        if (mapped === undefined) this.fail("bad escape");
        out += mapped;
        this.pos += 2;
      }
      start = this.pos;
    }
    out += t.slice(start, this.pos);
    this.pos++;
    return out;
  }

  private number(): number | bigint {
    NUMBER.lastIndex = this.pos;
    const m = NUMBER.exec(this.text);
    if (!m) this.fail("bad number");
    const text = m[0];
    this.pos += text.length;
    const n = Number(text);
    if (Number.isSafeInteger(n) || !/^-?\d+$/.test(text)) return n;
    return BigInt(text);
  }
}

const WORDS: ReadonlyArray<readonly [string, JsonValue]> = [
  ["true", true],
  ["false", false],
  ["null", null],
];
