/**
 * Evaluation of a parsed selector against one message's properties (spec pop-timer-filter §C.5):
 * three-valued logic (null is UNKNOWN), left-to-right short-circuit, Java's type coordination.
 * The tree is turned into closures once; a message matches only when the result is exactly TRUE,
 * and an exception during evaluation (a value Java could not convert) means "no match".
 */
import type { Node, RelOp, StringOp } from "./ast.ts";
import {
  compareDouble,
  compareValues,
  FilterEvalError,
  isNumber,
  negate,
  sameValue,
  toDouble,
  type Value,
} from "./java-values.ts";

/** A message property's value, undefined when the message has none. */
export type PropertyLookup = (name: string) => string | undefined;

type Eval = (get: PropertyLookup) => Value;

/** From this many IN elements on, membership is a Set lookup. */
const IN_SET_MIN = 8;

export function compileNode(n: Node): Eval {
  switch (n.k) {
    case "lit": {
      const v = n.value;
      return () => v;
    }
    case "prop": {
      const name = n.name;
      return (get) => get(name) ?? null;
    }
    case "neg": {
      const operand = compileNode(n.operand);
      return (get) => {
        const v = operand(get);
        return isNumber(v) ? negate(v) : null;
      };
    }
    case "not": {
      const operand = compileNode(n.operand);
      return (get) => {
        const v = operand(get);
        if (v === null) return null;
        if (typeof v !== "boolean") throw new FilterEvalError("NOT of a value that is not a boolean");
        return !v;
      };
    }
    case "cast": {
      // Property values are strings, never booleans: present means FALSE.
      const operand = compileNode(n.operand);
      return (get) => {
        const v = operand(get);
        return v === null ? null : v === true;
      };
    }
    case "and":
      return logic(n.terms.map(compileNode), false);
    case "or":
      return logic(n.terms.map(compileNode), true);
    case "eq":
      return equality(compileNode(n.left), compileNode(n.right));
    case "rel":
      return relational(n.op, compileNode(n.left), compileNode(n.right));
    case "in":
      return membership(n.prop, n.values, n.not);
    case "str":
      return stringTest(n.op, compileNode(n.operand), n.search, n.not);
  }
}

/**
 * AND (decisive = false) or OR (decisive = true): the first decisive term decides; otherwise
 * UNKNOWN if any term was UNKNOWN.
 */
function logic(terms: readonly Eval[], decisive: boolean): Eval {
  if (terms.length === 2) {
    const [a, b] = terms as [Eval, Eval];
    return (get) => {
      const x = a(get);
      if (x === decisive) return decisive;
      const y = b(get);
      if (y === decisive) return decisive;
      return x === null || y === null ? null : !decisive;
    };
  }
  return (get) => {
    let unknown = false;
    for (const t of terms) {
      const v = t(get);
      if (v === decisive) return decisive;
      if (v === null) unknown = true;
    }
    return unknown ? null : !decisive;
  };
}

/** `=`: UNKNOWN when only the left is null, FALSE when only the right is, TRUE when both are. */
function equality(left: Eval, right: Eval): Eval {
  return (get) => {
    const l = left(get);
    const r = right(get);
    if (l === null) return r === null ? true : null;
    if (r === null) return false;
    return sameValue(l, r) || compareValues(l, r) === 0;
  };
}

function relational(op: RelOp, left: Eval, right: Eval): Eval {
  const test = REL_TESTS[op];
  return (get) => {
    const l = left(get);
    if (l === null) return null;
    const r = right(get);
    if (r === null) return null;
    // Two strings (property against property) compare as doubles, or throw.
    if (typeof l === "string" && typeof r === "string") return test(compareDouble(toDouble(l), toDouble(r)));
    return test(compareValues(l, r));
  };
}

const REL_TESTS: Readonly<Record<RelOp, (sign: number) => boolean>> = {
  ">": (s) => s > 0,
  ">=": (s) => s >= 0,
  "<": (s) => s < 0,
  "<=": (s) => s <= 0,
};

function membership(prop: string, values: readonly string[], not: boolean): Eval {
  if (values.length >= IN_SET_MIN) {
    const set = new Set(values);
    return (get) => {
      const v = get(prop);
      return v === undefined ? null : set.has(v) !== not;
    };
  }
  return (get) => {
    const v = get(prop);
    return v === undefined ? null : values.includes(v) !== not;
  };
}

/** FALSE for an empty search string or a value that is not a string, negated or not. */
function stringTest(op: StringOp, operand: Eval, search: string, not: boolean): Eval {
  if (search === "") return () => false;
  return (get) => {
    const v = operand(get);
    if (typeof v !== "string") return false;
    const found =
      op === "CONTAINS"
        ? v.includes(search)
        : op === "STARTSWITH"
          ? v.startsWith(search)
          : v.endsWith(search);
    return found !== not;
  };
}
