/**
 * Tokens of RocketMQ's SQL92 selector language (spec pop-timer-filter §C.3), lexed one at a time
 * on demand: Java's parser lexes only as far as it looks ahead, so a bad character after a
 * complete expression fails only if it starts the first token after it (§C.4, example 51).
 * Positions are JavaCC's: lines and columns from 1, a tab advances to the next multiple of 8.
 */
import { FilterParseError, JavaFilterError } from "./errors.ts";

export const Tok = {
  EOF: "<EOF>",
  NOT: "NOT",
  AND: "AND",
  OR: "OR",
  BETWEEN: "BETWEEN",
  IN: "IN",
  TRUE: "TRUE",
  FALSE: "FALSE",
  NULL: "NULL",
  IS: "IS",
  CONTAINS: "CONTAINS",
  STARTSWITH: "STARTSWITH",
  ENDSWITH: "ENDSWITH",
  DECIMAL: "<DECIMAL_LITERAL>",
  FLOAT: "<FLOATING_POINT_LITERAL>",
  STRING: "<STRING_LITERAL>",
  ID: "<ID>",
  EQ: "=",
  NE: "<>",
  GT: ">",
  GE: ">=",
  LT: "<",
  LE: "<=",
  LPAREN: "(",
  RPAREN: ")",
  COMMA: ",",
  PLUS: "+",
  MINUS: "-",
} as const;
export type Tok = (typeof Tok)[keyof typeof Tok];

/** Keywords, matched ignoring case; they win over an identifier of the same length. */
const KEYWORDS: ReadonlyMap<string, Tok> = new Map(
  [
    Tok.NOT,
    Tok.AND,
    Tok.OR,
    Tok.BETWEEN,
    Tok.IN,
    Tok.TRUE,
    Tok.FALSE,
    Tok.NULL,
    Tok.IS,
    Tok.CONTAINS,
    Tok.STARTSWITH,
    Tok.ENDSWITH,
  ].map((k) => [k, k]),
);

export interface Token {
  readonly kind: Tok;
  /** The source text of the token (for a string literal, with its quotes). */
  readonly image: string;
  readonly line: number;
  readonly column: number;
}

const TAB_SIZE = 8;
/** Characters of source an error message quotes at most. */
const ERROR_CONTEXT_CHARS = 40;

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

function isIdStart(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 36;
}

function isIdPart(c: number): boolean {
  return isIdStart(c) || isDigit(c);
}

function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13 || c === 12;
}

export class Lexer {
  private pos = 0;
  // JavaCC's SimpleCharStream state: a character after CR or LF starts the next line, so a line
  // end belongs to the line it ends.
  private line = 1;
  private column = 0;
  private prevLF = false;
  private prevCR = false;
  /** The position of the last character read, where JavaCC reports an <EOF> token. */
  private lastLine = 1;
  private lastColumn = 0;

  constructor(private readonly src: string) {}

  private step(c: number): void {
    this.column++;
    if (this.prevLF) {
      this.prevLF = false;
      this.line++;
      this.column = 1;
    } else if (this.prevCR) {
      this.prevCR = false;
      if (c !== 10) {
        this.line++;
        this.column = 1;
      }
    }
    if (c === 13) this.prevCR = true;
    else if (c === 10) this.prevLF = true;
    else if (c === 9) this.column += TAB_SIZE - 1 - ((this.column - 1) % TAB_SIZE);
    this.lastLine = this.line;
    this.lastColumn = this.column;
  }

  private advance(n: number): void {
    for (let i = 0; i < n; i++) this.step(this.src.charCodeAt(this.pos++));
  }

  /** The line and column JavaCC gives the character at `at` (not before the current one). */
  private positionAt(at: number): [number, number] {
    const saved = [this.pos, this.line, this.column, this.lastLine, this.lastColumn] as const;
    const [lf, cr] = [this.prevLF, this.prevCR];
    this.advance(at + 1 - this.pos);
    const where: [number, number] = [this.lastLine, this.lastColumn];
    [this.pos, this.line, this.column, this.lastLine, this.lastColumn] = saved;
    [this.prevLF, this.prevCR] = [lf, cr];
    return where;
  }

  /** Skips whitespace and comments; a `--` comment needs its line end, else it is two minus signs. */
  private skip(): void {
    const s = this.src;
    for (;;) {
      const c = s.charCodeAt(this.pos);
      if (isSpace(c)) {
        this.advance(1);
      } else if (c === 45 && s.charCodeAt(this.pos + 1) === 45) {
        let end = this.pos + 2;
        while (end < s.length && s.charCodeAt(end) !== 10 && s.charCodeAt(end) !== 13) end++;
        if (end >= s.length) return;
        this.advance(end + 1 - this.pos);
      } else if (c === 47 && s.charCodeAt(this.pos + 1) === 42) {
        const end = s.indexOf("*/", this.pos + 2);
        if (end < 0) return;
        this.advance(end + 2 - this.pos);
      } else {
        return;
      }
    }
  }

  next(): Token {
    this.skip();
    const s = this.src;
    if (this.pos >= s.length) {
      return { kind: Tok.EOF, image: "<EOF>", line: this.lastLine, column: this.lastColumn };
    }
    const start = this.pos;
    const len = this.lengthAt(start, s.charCodeAt(start));
    const image = s.slice(start, start + len.n);
    this.advance(1);
    const startLine = this.lastLine;
    const startColumn = this.lastColumn;
    this.advance(len.n - 1);
    let kind = len.kind;
    if (kind === Tok.ID) kind = KEYWORDS.get(image.toUpperCase()) ?? Tok.ID;
    return { kind, image, line: startLine, column: startColumn };
  }

  /** The kind and length of the longest token at `start` (JavaCC's longest-match rule). */
  private lengthAt(start: number, c: number): { kind: Tok; n: number } {
    const s = this.src;
    if (isIdStart(c)) {
      let end = start + 1;
      while (end < s.length && isIdPart(s.charCodeAt(end))) end++;
      return { kind: Tok.ID, n: end - start };
    }
    if (isDigit(c) || (c === 46 && isDigit(s.charCodeAt(start + 1)))) return this.number(start);
    if (c === 39) {
      // Longest match as JavaCC's automaton finds it: every quote may close the literal; a quote
      // right after it makes the pair an escaped quote and the literal goes on. If the input
      // ends inside the literal, the token is the longest prefix that was closed.
      let end = start + 1;
      let closed = -1;
      for (;;) {
        const q = s.indexOf("'", end);
        if (q < 0) break;
        closed = q + 1;
        if (s.charCodeAt(q + 1) !== 39) break;
        end = q + 2;
      }
      if (closed < 0) throw this.lexicalError(start, s.length - 1);
      return { kind: Tok.STRING, n: closed - start };
    }
    const d = s.charCodeAt(start + 1);
    switch (c) {
      case 61:
        return { kind: Tok.EQ, n: 1 };
      case 60:
        if (d === 62) return { kind: Tok.NE, n: 2 };
        return d === 61 ? { kind: Tok.LE, n: 2 } : { kind: Tok.LT, n: 1 };
      case 62:
        return d === 61 ? { kind: Tok.GE, n: 2 } : { kind: Tok.GT, n: 1 };
      case 40:
        return { kind: Tok.LPAREN, n: 1 };
      case 41:
        return { kind: Tok.RPAREN, n: 1 };
      case 44:
        return { kind: Tok.COMMA, n: 1 };
      case 43:
        return { kind: Tok.PLUS, n: 1 };
      case 45:
        return { kind: Tok.MINUS, n: 1 };
    }
    // `.` and `/` may start a longer token (`.5`, `/*`): JavaCC reads one more character first.
    const readTo = (c === 46 || c === 47) && start + 1 < s.length ? start + 1 : start;
    // An unclosed `/*` comment is read to the end of the input.
    throw this.lexicalError(start, c === 47 && d === 42 ? s.length - 1 : readTo);
  }

  /**
   * `0`, `[1-9][0-9]*[lL]?`, or a float: `d+.d*[exp]`, `.d+[exp]`, `d+ exp`. `007` is the token
   * `0` (then `0`, `7`): a decimal never has a leading zero, and no float is longer here.
   */
  private number(start: number): { kind: Tok; n: number } {
    const s = this.src;
    let end = start;
    while (isDigit(s.charCodeAt(end))) end++;
    const intEnd = end;
    let isFloat = false;
    if (s.charCodeAt(end) === 46) {
      isFloat = true;
      end++;
      while (isDigit(s.charCodeAt(end))) end++;
    }
    const exp = this.exponentLength(end);
    if (exp > 0) {
      isFloat = true;
      end += exp;
    }
    if (isFloat) return { kind: Tok.FLOAT, n: end - start };
    if (s.charCodeAt(start) === 48) return { kind: Tok.DECIMAL, n: 1 };
    const suffix = s.charCodeAt(intEnd);
    return { kind: Tok.DECIMAL, n: intEnd - start + (suffix === 108 || suffix === 76 ? 1 : 0) };
  }

  private exponentLength(at: number): number {
    const s = this.src;
    const e = s.charCodeAt(at);
    if (e !== 101 && e !== 69) return 0;
    let end = at + 1;
    const sign = s.charCodeAt(end);
    if (sign === 43 || sign === 45) end++;
    if (!isDigit(s.charCodeAt(end))) return 0;
    while (isDigit(s.charCodeAt(end))) end++;
    return end - at;
  }

  /**
   * JavaCC's TokenMgrError: the position is that of the last character the automaton read
   * (`lastRead`), one column on when the input ends right after it.
   */
  private lexicalError(start: number, lastRead: number): FilterParseError {
    const s = this.src;
    let [line, column] = this.positionAt(lastRead);
    const c = s.charCodeAt(lastRead);
    const eof = lastRead + 1 >= s.length;
    if (eof && (c === 10 || c === 13)) {
      line++;
      column = 0;
    } else if (eof) {
      column++;
    }
    // Bounded: the text may be the rest of a hostile 64 KiB expression.
    let after = s.slice(start, eof ? s.length : lastRead);
    if (after.length > ERROR_CONTEXT_CHARS) after = `${after.slice(0, ERROR_CONTEXT_CHARS)}...`;
    const seen = eof ? "<EOF> " : `${JSON.stringify(String.fromCharCode(c))} (${c}), `;
    return new FilterParseError(
      JavaFilterError.LEXICAL,
      `Lexical error at line ${line}, column ${column}.  Encountered: ${seen}after : ${JSON.stringify(after)}`,
      line,
      column,
    );
  }
}
