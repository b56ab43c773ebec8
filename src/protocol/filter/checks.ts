/**
 * The compile-time checks RocketMQ's parser makes while it builds the tree (spec
 * pop-timer-filter §C.4 table), and the conversion of number literals with their range checks
 * (§C.3). Each failure is a FilterParseError at the operator's or literal's position.
 */
import { isBooleanNode, type Node, render } from "./ast.ts";
import { FilterParseError, JavaFilterError } from "./errors.ts";
import type { JavaNumber } from "./java-values.ts";
import type { Token } from "./lexer.ts";

const DOUBLE_MIN = 4.9e-324;
const LONG_MAX = 2n ** 63n - 1n;
/** Characters of an operand an error message quotes at most. */
const MESSAGE_OPERAND_CHARS = 200;

export function clip(s: string): string {
  return s.length > MESSAGE_OPERAND_CHARS ? `${s.slice(0, MESSAGE_OPERAND_CHARS)}...` : s;
}

export function checkError(detail: string, at: Token): FilterParseError {
  return new FilterParseError(JavaFilterError.CHECK, detail, at.line, at.column);
}

/** `=`/`<>` refuse a NULL literal operand (use IS NULL). */
export function checkEqualOperand(n: Node, at: Token): void {
  if (n.k === "lit" && n.value === null) throw checkError("'NULL' cannot be compared.", at);
}

/** A TRUE/FALSE literal on the left of `=` refuses a non-boolean literal on the right. */
export function checkEqualCompatibility(left: Node, right: Node, at: Token): void {
  if (left.k === "lit" && right.k === "lit" && isBooleanNode(left) && !isBooleanNode(right)) {
    throw checkError(`'${render(left)}' cannot be compared with '${clip(render(right))}'`, at);
  }
}

/** Relational operators accept numeric literals and non-boolean expressions only. */
export function checkRelationalOperand(n: Node, at: Token): void {
  const literalNumber = n.k === "lit" && typeof n.value === "object" && n.value !== null;
  if ((n.k === "lit" && !literalNumber) || (n.k !== "lit" && isBooleanNode(n))) {
    throw checkError(`Value '${clip(render(n))}' cannot be compared.`, at);
  }
}

/** Java's createFromDecimal: drop an l/L suffix, an int if it fits, else a long, else an error. */
export function decimal(t: Token): JavaNumber {
  const last = t.image.charCodeAt(t.image.length - 1);
  const digits = last === 108 || last === 76 ? t.image.slice(0, -1) : t.image;
  // More than 19 digits is beyond a long whatever they are; checked first so BigInt stays cheap.
  const n = digits.length > 19 ? LONG_MAX + 1n : BigInt(digits);
  if (n > LONG_MAX) {
    throw new FilterParseError(
      JavaFilterError.NUMBER,
      `For input string: "${clip(digits)}"`,
      t.line,
      t.column,
    );
  }
  return n <= 0x7fffffffn ? { kind: "int", v: Number(n) } : { kind: "long", v: n };
}

/** Java's createFloat: the range check refuses 0.0 (below Double.MIN_VALUE) and overflow. */
export function float(t: Token): JavaNumber {
  const v = Number(t.image);
  if (v > Number.MAX_VALUE) {
    throw checkError(`${clip(t.image)} is greater than 1.7976931348623157E308`, t);
  }
  if (v < DOUBLE_MIN) throw checkError(`${clip(t.image)} is less than 4.9E-324`, t);
  return { kind: "double", v };
}
