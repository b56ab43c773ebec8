/**
 * Recursive-descent parser for RocketMQ's SQL92 selectors (spec pop-timer-filter §C.4), with the
 * compile-time checks Java makes while it builds the tree, in the same order, so the first error
 * reported is Java's. Linear in the input; the input length, the nesting of parentheses and
 * unary operators, and the depth of the tree are bounded, so hostile text fails fast.
 */
import { isBooleanNode, type Node, type RelOp, render, type StringOp } from "./ast.ts";
import {
  checkEqualCompatibility,
  checkEqualOperand,
  checkError,
  checkRelationalOperand,
  clip,
  decimal,
  float,
} from "./checks.ts";
import { FilterParseError, JavaFilterError } from "./errors.ts";
import { compareValues, javaString } from "./java-values.ts";
import { Lexer, Tok, type Token } from "./lexer.ts";

/** Longest expression accepted, in UTF-16 units (Java has no limit; real selectors are short). */
export const SQL92_EXPRESSION_CHARS_MAX = 65_536;
/** Deepest nesting of parentheses and unary operators. */
export const SQL92_NESTING_MAX = 100;
/** Deepest tree (chains like `a = 1 = TRUE` nest; AND/OR chains are flat and do not). */
export const SQL92_TREE_DEPTH_MAX = 1_000;

export function parseSelector(src: string): Node {
  if (src.length > SQL92_EXPRESSION_CHARS_MAX) {
    throw new FilterParseError(
      JavaFilterError.PARSE,
      `Expression of ${src.length} characters is longer than ${SQL92_EXPRESSION_CHARS_MAX}`,
      1,
      1,
    );
  }
  return new Parser(src).selector();
}

class Parser {
  private readonly lexer: Lexer;
  private readonly ahead: Token[] = [];
  private nesting = 0;
  private readonly depths = new WeakMap<Node, number>();
  /** Errors of the grammar itself (not of the checks), for the `+` lookahead rule. */
  private readonly syntaxErrors = new WeakSet<FilterParseError>();

  constructor(src: string) {
    this.lexer = new Lexer(src);
  }

  /** The i-th token ahead (0 = next), lexed only when asked for, as JavaCC does. */
  private peek(i = 0): Token {
    while (this.ahead.length <= i) this.ahead.push(this.lexer.next());
    return this.ahead[i]!;
  }

  private take(): Token {
    const t = this.peek();
    this.ahead.shift();
    return t;
  }

  private expect(kind: Tok): Token {
    const t = this.peek();
    if (t.kind !== kind) throw this.unexpected(t, [kind]);
    return this.take();
  }

  private unexpected(t: Token, expected: readonly string[]): FilterParseError {
    const image = t.kind === Tok.EOF ? "<EOF>" : clip(t.image);
    const wanted = expected.length === 1 ? "Was expecting:" : "Was expecting one of:";
    const err = new FilterParseError(
      JavaFilterError.PARSE,
      `Encountered "${image}" at line ${t.line}, column ${t.column}. ${wanted} ${expected.join(", ")}`,
      t.line,
      t.column,
    );
    this.syntaxErrors.add(err);
    return err;
  }

  /** A tree node, refused when it would make the tree deeper than SQL92_TREE_DEPTH_MAX. */
  private node(n: Node, at: Token, ...children: Node[]): Node {
    let depth = 1;
    for (const c of children) depth = Math.max(depth, (this.depths.get(c) ?? 1) + 1);
    if (depth > SQL92_TREE_DEPTH_MAX) {
      throw new FilterParseError(
        JavaFilterError.PARSE,
        `Expression nests deeper than ${SQL92_TREE_DEPTH_MAX} at line ${at.line}, column ${at.column}`,
        at.line,
        at.column,
      );
    }
    this.depths.set(n, depth);
    return n;
  }

  /** Tokens after a complete expression are ignored, but the first must lex (Java looks at it). */
  selector(): Node {
    const first = this.peek();
    const e = this.orExpr();
    this.peek();
    return this.asBoolean(e, first);
  }

  private asBoolean(n: Node, at: Token): Node {
    if (isBooleanNode(n)) return n;
    if (n.k === "prop") return this.node({ k: "cast", operand: n }, at, n);
    throw new FilterParseError(
      JavaFilterError.PARSE,
      `Expression will not result in a boolean value: ${clip(render(n))}`,
      at.line,
      at.column,
    );
  }

  private orExpr(): Node {
    const first = this.peek();
    const left = this.andExpr();
    if (this.peek().kind !== Tok.OR) return left;
    // Java checks both operands once the second is parsed: a syntax error in it comes first.
    this.take();
    const second = this.peek();
    const right = this.andExpr();
    const terms = [this.asBoolean(left, first), this.asBoolean(right, second)];
    while (this.peek().kind === Tok.OR) {
      this.take();
      const at = this.peek();
      terms.push(this.asBoolean(this.andExpr(), at));
    }
    return this.node({ k: "or", terms }, first, ...terms);
  }

  private andExpr(): Node {
    const first = this.peek();
    const left = this.equality();
    if (this.peek().kind !== Tok.AND) return left;
    // Java checks both operands once the second is parsed: a syntax error in it comes first.
    this.take();
    const second = this.peek();
    const right = this.equality();
    const terms = [this.asBoolean(left, first), this.asBoolean(right, second)];
    while (this.peek().kind === Tok.AND) {
      this.take();
      const at = this.peek();
      terms.push(this.asBoolean(this.equality(), at));
    }
    return this.node({ k: "and", terms }, first, ...terms);
  }

  private equality(): Node {
    let left = this.comparison();
    for (;;) {
      const op = this.peek();
      if (op.kind === Tok.EQ || op.kind === Tok.NE) {
        this.take();
        const right = this.comparison();
        checkEqualOperand(left, op);
        checkEqualOperand(right, op);
        checkEqualCompatibility(left, right, op);
        const eq = this.node({ k: "eq", left, right }, op, left, right);
        left = op.kind === Tok.EQ ? eq : this.node({ k: "not", operand: eq }, op, eq);
      } else if (op.kind === Tok.IS && this.peek(1).kind === Tok.NULL) {
        this.take();
        this.take();
        left = this.node({ k: "eq", left, right: NULL_LITERAL }, op, left);
      } else if (op.kind === Tok.IS) {
        this.take();
        this.expect(Tok.NOT);
        this.expect(Tok.NULL);
        const eq = this.node({ k: "eq", left, right: NULL_LITERAL }, op, left);
        left = this.node({ k: "not", operand: eq }, op, eq);
      } else {
        return left;
      }
    }
  }

  private comparison(): Node {
    let left = this.unary();
    for (;;) {
      const op = this.peek();
      const rel = REL_OPS.get(op.kind);
      if (rel) {
        this.take();
        left = this.relational(rel, left, this.unary(), op);
        continue;
      }
      let not = false;
      if (op.kind === Tok.NOT) {
        // JavaCC enters this loop on NOT alone (its loop decision looks one token ahead), so a
        // NOT after an operand must start NOT CONTAINS/STARTSWITH/ENDSWITH/BETWEEN/IN: `a NOT x`
        // is a parse error, not `a` with ignored tokens (checked against RocketMQ's parser).
        const second = this.peek(1);
        if (!STRING_OPS.has(second.kind) && second.kind !== Tok.BETWEEN && second.kind !== Tok.IN) {
          // Java reports the NOT itself: it is the token no alternative of the loop accepts.
          throw this.unexpected(op, [Tok.CONTAINS, Tok.STARTSWITH, Tok.ENDSWITH, Tok.BETWEEN, Tok.IN]);
        }
        this.take();
        not = true;
      }
      const kind = this.peek().kind;
      const stringOp = STRING_OPS.get(kind);
      if (stringOp) {
        this.take();
        const search = this.stringLiteral();
        left = this.node({ k: "str", op: stringOp, operand: left, search, not }, op, left);
      } else if (kind === Tok.BETWEEN) {
        this.take();
        const low = this.unary();
        this.expect(Tok.AND);
        const high = this.unary();
        left = not ? this.notBetween(left, low, high, op) : this.between(left, low, high, op);
      } else if (kind === Tok.IN) {
        this.take();
        left = this.inList(left, not, op);
      } else {
        return left;
      }
    }
  }

  private relational(op: RelOp, left: Node, right: Node, at: Token): Node {
    checkRelationalOperand(left, at);
    checkRelationalOperand(right, at);
    return this.node({ k: "rel", op, left, right }, at, left, right);
  }

  /** Java checks two literal bounds first: neither NULL, and low not above high. */
  private between(value: Node, low: Node, high: Node, at: Token): Node {
    if (low.k === "lit" && high.k === "lit") {
      const lv = low.value;
      const hv = high.value;
      if (lv === null || hv === null) {
        throw checkError("Illegal values of between, values can not be null!", at);
      }
      let order: number;
      try {
        order = compareValues(hv, lv);
      } catch (err) {
        throw checkError(`java.lang.NumberFormatException: ${(err as Error).message}`, at);
      }
      if (order < 0) {
        throw checkError(
          `Illegal values of between, left value(${javaString(lv)}) must less than or equal to right value(${javaString(hv)})`,
          at,
        );
      }
    }
    const ge = this.relational(">=", value, low, at);
    const le = this.relational("<=", value, high, at);
    return this.node({ k: "and", terms: [ge, le] }, at, ge, le);
  }

  /** NOT BETWEEN has no bound checks in Java. */
  private notBetween(value: Node, low: Node, high: Node, at: Token): Node {
    const lt = this.relational("<", value, low, at);
    const gt = this.relational(">", value, high, at);
    return this.node({ k: "or", terms: [lt, gt] }, at, lt, gt);
  }

  private inList(left: Node, not: boolean, at: Token): Node {
    this.expect(Tok.LPAREN);
    const values = [this.stringLiteral()];
    while (this.peek().kind === Tok.COMMA) {
      this.take();
      values.push(this.stringLiteral());
    }
    this.expect(Tok.RPAREN);
    if (left.k !== "prop") {
      throw checkError(`Expected a property for In expression, got: ${clip(render(left))}`, at);
    }
    return this.node({ k: "in", prop: left.name, values, not }, at);
  }

  private unary(): Node {
    const t = this.peek();
    if (t.kind !== Tok.PLUS && t.kind !== Tok.MINUS && t.kind !== Tok.NOT) return this.primary();
    this.enter(t);
    this.take();
    let operand: Node;
    try {
      operand = this.unary();
    } catch (err) {
      // Java takes `+` only if a whole unary expression follows (a syntactic lookahead); if not,
      // the `+` itself is the token it reports.
      if (t.kind === Tok.PLUS && err instanceof FilterParseError && this.syntaxErrors.has(err)) {
        throw this.unexpected(t, PRIMARY_STARTS);
      }
      throw err;
    }
    this.nesting--;
    // Unary plus is the operand itself (a literal stays a literal for the checks).
    if (t.kind === Tok.PLUS) return operand;
    if (t.kind === Tok.MINUS) return this.node({ k: "neg", operand }, t, operand);
    const b = this.asBoolean(operand, t);
    return this.node({ k: "not", operand: b }, t, b);
  }

  private enter(t: Token): void {
    if (++this.nesting > SQL92_NESTING_MAX) {
      throw new FilterParseError(
        JavaFilterError.PARSE,
        `Expression nests deeper than ${SQL92_NESTING_MAX} at line ${t.line}, column ${t.column}`,
        t.line,
        t.column,
      );
    }
  }

  private primary(): Node {
    const t = this.peek();
    switch (t.kind) {
      case Tok.STRING:
        return { k: "lit", value: this.stringLiteral() };
      case Tok.DECIMAL:
        this.take();
        return { k: "lit", value: decimal(t) };
      case Tok.FLOAT:
        this.take();
        return { k: "lit", value: float(t) };
      case Tok.TRUE:
        this.take();
        return { k: "lit", value: true };
      case Tok.FALSE:
        this.take();
        return { k: "lit", value: false };
      case Tok.NULL:
        this.take();
        return NULL_LITERAL;
      case Tok.ID:
        this.take();
        return { k: "prop", name: t.image };
      case Tok.LPAREN: {
        this.enter(t);
        this.take();
        const inner = this.orExpr();
        this.expect(Tok.RPAREN);
        this.nesting--;
        return inner;
      }
      default:
        throw this.unexpected(t, PRIMARY_STARTS);
    }
  }

  /** `'...'` with `''` standing for one quote. */
  private stringLiteral(): string {
    const t = this.expect(Tok.STRING);
    return t.image.slice(1, -1).replaceAll("''", "'");
  }
}

const NULL_LITERAL: Node = { k: "lit", value: null };

const REL_OPS: ReadonlyMap<Tok, RelOp> = new Map([
  [Tok.GT, ">"],
  [Tok.GE, ">="],
  [Tok.LT, "<"],
  [Tok.LE, "<="],
]);

const STRING_OPS: ReadonlyMap<Tok, StringOp> = new Map([
  [Tok.CONTAINS, "CONTAINS"],
  [Tok.STARTSWITH, "STARTSWITH"],
  [Tok.ENDSWITH, "ENDSWITH"],
]);

const PRIMARY_STARTS = [
  Tok.STRING,
  Tok.DECIMAL,
  Tok.FLOAT,
  Tok.TRUE,
  Tok.FALSE,
  Tok.NULL,
  Tok.ID,
  Tok.LPAREN,
  Tok.PLUS,
  Tok.MINUS,
  Tok.NOT,
];
