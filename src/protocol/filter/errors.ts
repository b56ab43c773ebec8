/**
 * The one error an SQL92 expression can fail to compile with (spec pop-timer-filter §C.2–C.4).
 * It keeps the Java exception class name that RocketMQ reports, so the remark a broker answers
 * with SUBSCRIPTION_PARSE_FAILED reads as Java's (`<exception class>: <message>`), and the line
 * and column of the offending token, also for the checks Java makes without a position.
 */

/** The Java exception RocketMQ's parser would have thrown for the same input (for the remark). */
export const JavaFilterError = {
  /** A token the grammar does not accept. */
  PARSE: "org.apache.rocketmq.filter.parser.ParseException",
  /** A character no token starts with (JavaCC's TokenMgrError). */
  LEXICAL: "org.apache.rocketmq.filter.parser.TokenMgrError",
  /** A compile-time check of an operand (Java throws a bare RuntimeException). */
  CHECK: "java.lang.RuntimeException",
  /** An integer literal beyond 64 bits. */
  NUMBER: "java.lang.NumberFormatException",
} as const;
export type JavaFilterError = (typeof JavaFilterError)[keyof typeof JavaFilterError];

export class FilterParseError extends Error {
  override name = "FilterParseError";
  constructor(
    readonly javaClass: JavaFilterError,
    /** Java's message text, without a position unless Java puts one in. */
    readonly detail: string,
    readonly line: number,
    readonly column: number,
  ) {
    super(withPosition(detail, line, column));
  }

  /** What a broker answers as the remark of SUBSCRIPTION_PARSE_FAILED. */
  get remark(): string {
    return `${this.javaClass}: ${this.message}`;
  }
}

/** Syntax and lexical messages carry Java's position already; the others get ours appended. */
function withPosition(detail: string, line: number, column: number): string {
  if (detail.includes(` at line ${line}, column ${column}`)) return detail;
  return `${detail} (at line ${line}, column ${column})`;
}
