/**
 * The typed tree an SQL92 selector compiles to (spec pop-timer-filter §C.4). AND/OR chains are
 * flattened into one node with their terms in source order: evaluating them left to right with
 * short-circuit gives exactly Java's nested result, and a chain of thousands of terms cannot
 * overflow the stack when evaluated.
 */
import { javaDoubleString, type Value } from "./java-values.ts";

export type RelOp = ">" | ">=" | "<" | "<=";
export type StringOp = "CONTAINS" | "STARTSWITH" | "ENDSWITH";

export type Node =
  /** A literal (Java's ConstantExpression); only these are "constant" for the compile checks. */
  | { readonly k: "lit"; readonly value: Value }
  | { readonly k: "prop"; readonly name: string }
  /** Unary minus: negates a number, gives UNKNOWN for anything else. */
  | { readonly k: "neg"; readonly operand: Node }
  | { readonly k: "not"; readonly operand: Node }
  /** A bare property where a condition is required: UNKNOWN if absent, else FALSE. */
  | { readonly k: "cast"; readonly operand: Node }
  | { readonly k: "and"; readonly terms: readonly Node[] }
  | { readonly k: "or"; readonly terms: readonly Node[] }
  /** `=`; also IS NULL (right is the NULL literal, which `=` itself refuses at compile time). */
  | { readonly k: "eq"; readonly left: Node; readonly right: Node }
  | { readonly k: "rel"; readonly op: RelOp; readonly left: Node; readonly right: Node }
  | { readonly k: "in"; readonly prop: string; readonly values: readonly string[]; readonly not: boolean }
  | {
      readonly k: "str";
      readonly op: StringOp;
      readonly operand: Node;
      readonly search: string;
      readonly not: boolean;
    };

/** Whether Java's parser sees a BooleanExpression (accepted where a condition is required). */
export function isBooleanNode(n: Node): boolean {
  if (n.k === "lit") return n.value === null || typeof n.value === "boolean";
  return n.k !== "prop" && n.k !== "neg";
}

export function quote(s: string): string {
  return `'${s.replaceAll("'", "''")}'`;
}

/** The node as Java's expression `toString` renders it, for error messages. */
export function render(n: Node): string {
  switch (n.k) {
    case "lit": {
      const v = n.value;
      if (v === null) return "NULL";
      if (typeof v === "boolean") return v ? "TRUE" : "FALSE";
      if (typeof v === "string") return quote(v);
      return v.kind === "double" ? javaDoubleString(v.v) : String(v.v);
    }
    case "prop":
      return n.name;
    case "neg":
      return `(- ${render(n.operand)})`;
    case "not":
      return `(NOT ${render(n.operand)})`;
    case "cast":
      return render(n.operand);
    case "and":
    case "or":
      return `(${n.terms.map(render).join(n.k === "and" ? " AND " : " OR ")})`;
    case "eq":
      return `(${render(n.left)} == ${render(n.right)})`;
    case "rel":
      return `(${render(n.left)} ${n.op} ${render(n.right)})`;
    case "in":
      return `${n.prop} ${n.not ? "NOT IN" : "IN"} (${n.values.map(quote).join(", ")})`;
    case "str":
      return `${render(n.operand)} ${n.not ? "NOT " : ""}${n.op} ${quote(n.search)}`;
  }
}

/** The property names a tree reads, in first-use order. */
export function propertyNames(root: Node): string[] {
  const names = new Set<string>();
  const stack: Node[] = [root];
  while (stack.length > 0) {
    const n = stack.pop()!;
    switch (n.k) {
      case "prop":
        names.add(n.name);
        break;
      case "in":
        names.add(n.prop);
        break;
      case "neg":
      case "not":
      case "cast":
      case "str":
        stack.push(n.operand);
        break;
      case "and":
      case "or":
        for (let i = n.terms.length - 1; i >= 0; i--) stack.push(n.terms[i]!);
        break;
      case "eq":
      case "rel":
        stack.push(n.right, n.left);
        break;
    }
  }
  return [...names];
}
