/**
 * The values an SQL92 expression computes with, and Java's rules for comparing two of them
 * (spec pop-timer-filter §C.5 "type coordination"): Integer, Long, Double, Boolean and String
 * stay distinct, a string meeting a number is parsed as that number's type, and a comparison
 * Java would answer with an exception throws FilterEvalError (the message then does not match).
 */
import { parseJavaInt } from "../message/java-number.ts";

export type JavaNumber =
  | { readonly kind: "int"; readonly v: number }
  | { readonly kind: "long"; readonly v: bigint }
  | { readonly kind: "double"; readonly v: number };

/** null is SQL's UNKNOWN / an absent property. */
export type Value = null | string | boolean | JavaNumber;

/** An exception during evaluation: Java's NumberFormatException or ClassCastException. */
export class FilterEvalError extends Error {
  override name = "FilterEvalError";
}

const LONG_MAX = 2n ** 63n - 1n;
const LONG_MIN = -(2n ** 63n);
const INTEGER_TEXT = /^[+-]?\d+$/;

export function isNumber(v: Value): v is JavaNumber {
  return typeof v === "object" && v !== null;
}

/** Integer.valueOf(String): optional sign and ASCII digits, in range, nothing else. */
function toInt(s: string): number {
  const n = parseJavaInt(s);
  if (n === undefined) throw new FilterEvalError(`For input string: "${s}"`);
  return n;
}

/** Long.valueOf(String). */
function toLong(s: string): bigint {
  if (!INTEGER_TEXT.test(s)) throw new FilterEvalError(`For input string: "${s}"`);
  const n = BigInt(s);
  if (n < LONG_MIN || n > LONG_MAX) throw new FilterEvalError(`For input string: "${s}"`);
  return n;
}

/**
 * Double.valueOf(String): Java trims characters up to U+0020, then accepts a sign, `NaN`,
 * `Infinity`, decimal digits with an optional point and exponent, or a hex float (`0x1.8p1`),
 * each number with an optional f/F/d/D suffix.
 */
const DOUBLE_TEXT = /^[+-]?(?:NaN|Infinity|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?[fFdD]?)$/;
const HEX_DOUBLE_TEXT = /^([+-]?)0[xX]([0-9a-fA-F]*)(?:\.([0-9a-fA-F]*))?[pP]([+-]?\d+)[fFdD]?$/;

/** `m × 2^e` without the underflow or overflow of computing 2^e alone. */
function scaleByPowerOfTwo(m: number, e: number): number {
  let v = m;
  let k = e;
  while (k > 1000) {
    v *= 2 ** 1000;
    k -= 1000;
  }
  while (k < -1000) {
    v *= 2 ** -1000;
    k += 1000;
  }
  return v * 2 ** k;
}

/** A hex float's value, or undefined if `t` is not one (Java needs a digit and the `p` exponent). */
function hexDouble(t: string): number | undefined {
  const m = HEX_DOUBLE_TEXT.exec(t);
  if (!m) return undefined;
  const [, sign, whole = "", fraction = "", exponent = "0"] = m;
  if (whole.length + fraction.length === 0) return undefined;
  // Exponents beyond any double's reach are clamped: the value is then 0 or Infinity anyway.
  const exp = Math.max(-100_000, Math.min(100_000, Number(exponent))) - 4 * fraction.length;
  const v = scaleByPowerOfTwo(Number(BigInt(`0x${whole}${fraction}`)), exp);
  return sign === "-" ? -v : v;
}

export function javaTrim(s: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && s.charCodeAt(a) <= 32) a++;
  while (b > a && s.charCodeAt(b - 1) <= 32) b--;
  return a === 0 && b === s.length ? s : s.slice(a, b);
}

export function toDouble(s: string): number {
  const t = javaTrim(s);
  if (!DOUBLE_TEXT.test(t)) {
    const hex = hexDouble(t);
    if (hex === undefined) throw new FilterEvalError(`For input string: "${s}"`);
    return hex;
  }
  const last = t.charCodeAt(t.length - 1);
  // f, F, d, D: a type suffix, not part of the number.
  const body = last === 102 || last === 70 || last === 100 || last === 68 ? t.slice(0, -1) : t;
  return Number(body);
}

/** Double.compare: NaN equals itself and is above everything, -0.0 is below 0.0. */
export function compareDouble(a: number, b: number): number {
  if (a < b) return -1;
  if (a > b) return 1;
  if (a === b) {
    if (a !== 0) return 0;
    const na = Object.is(a, -0);
    const nb = Object.is(b, -0);
    return na === nb ? 0 : na ? -1 : 1;
  }
  const an = Number.isNaN(a);
  const bn = Number.isNaN(b);
  return an === bn ? 0 : an ? 1 : -1;
}

function sign(a: number | bigint, b: number | bigint): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function asDouble(n: JavaNumber): number {
  return n.kind === "long" ? Number(n.v) : n.v;
}

/** Two numbers after Java's widening: int < long < double. */
function compareNumbers(l: JavaNumber, r: JavaNumber): number {
  if (l.kind === "double" || r.kind === "double") return compareDouble(asDouble(l), asDouble(r));
  if (l.kind === "int" && r.kind === "int") return sign(l.v, r.v);
  return sign(BigInt(l.v), BigInt(r.v));
}

/** A string parsed as the type of `like` (Java converts the string side to the number's class). */
function parseAs(s: string, like: JavaNumber): JavaNumber {
  switch (like.kind) {
    case "int":
      return { kind: "int", v: toInt(s) };
    case "long":
      return { kind: "long", v: toLong(s) };
    default:
      return { kind: "double", v: toDouble(s) };
  }
}

function compareBooleans(a: boolean, b: boolean): number {
  return a === b ? 0 : a ? 1 : -1;
}

/**
 * Java's `ComparisonExpression.__compare` with string conversion on: the sign of comparing two
 * non-null values. Mixtures Java cannot convert compare as "less" (-1), never equal.
 */
export function compareValues(l: Exclude<Value, null>, r: Exclude<Value, null>): number {
  if (typeof l === "string") {
    if (typeof r === "string") return l < r ? -1 : l > r ? 1 : 0;
    if (typeof r === "boolean") return compareBooleans(l.toLowerCase() === "true", r);
    return compareNumbers(parseAs(l, r), r);
  }
  if (typeof l === "boolean") {
    if (typeof r === "boolean") return compareBooleans(l, r);
    // Java casts the Boolean to String here: a ClassCastException.
    if (typeof r === "string")
      throw new FilterEvalError("java.lang.Boolean cannot be cast to java.lang.String");
    return -1;
  }
  if (typeof r === "string") return compareNumbers(l, parseAs(r, l));
  if (typeof r === "boolean") return -1;
  return compareNumbers(l, r);
}

/** Java's `equals` before `compareTo`: same class and same value. */
export function sameValue(l: Exclude<Value, null>, r: Exclude<Value, null>): boolean {
  if (typeof l !== "object" || typeof r !== "object") return l === r;
  return l.kind === r.kind && (l.kind === "double" ? compareDouble(l.v, r.v as number) === 0 : l.v === r.v);
}

export function negate(n: JavaNumber): JavaNumber {
  switch (n.kind) {
    case "int":
      // Integer overflow wraps in Java: -(-2147483648) is itself.
      return { kind: "int", v: -n.v | 0 };
    case "long":
      return { kind: "long", v: BigInt.asIntN(64, -n.v) };
    default:
      return { kind: "double", v: -n.v };
  }
}

/** Double.toString for the magnitudes error messages show (`10.0`, `3.1E10`, `4.9E-324`). */
export function javaDoubleString(d: number): string {
  if (Number.isNaN(d)) return "NaN";
  if (!Number.isFinite(d)) return d > 0 ? "Infinity" : "-Infinity";
  if (d === 0) return Object.is(d, -0) ? "-0.0" : "0.0";
  const abs = Math.abs(d);
  if (abs >= 1e-3 && abs < 1e7) {
    const s = String(d);
    return s.includes(".") ? s : `${s}.0`;
  }
  const [mantissa, exponent] = d.toExponential().split("e") as [string, string];
  const m = mantissa.includes(".") ? mantissa : `${mantissa}.0`;
  return `${m}E${exponent.startsWith("+") ? exponent.slice(1) : exponent}`;
}

/** Java's `toString` of a value, as messages quote it. */
export function javaString(v: Value): string {
  if (v === null) return "null";
  if (typeof v === "string") return v;
  if (typeof v === "boolean") return String(v);
  return v.kind === "double" ? javaDoubleString(v.v) : String(v.v);
}
