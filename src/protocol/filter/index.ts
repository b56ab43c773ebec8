/**
 * SQL92 property filters (spec pop-timer-filter Part C), shared by the broker, the native client
 * and the gateway: compile an expression once, then ask whether a message's properties match.
 */
import { propertyNames } from "./ast.ts";
import { compileNode, type PropertyLookup } from "./evaluate.ts";
import { parseSelector } from "./parser.ts";

export { FilterParseError, JavaFilterError } from "./errors.ts";
export type { PropertyLookup } from "./evaluate.ts";
export { SQL92_EXPRESSION_CHARS_MAX, SQL92_NESTING_MAX, SQL92_TREE_DEPTH_MAX } from "./parser.ts";

export interface Sql92Filter {
  readonly expression: string;
  /** The property names the expression reads. */
  readonly properties: readonly string[];
  /** True only when the expression evaluates to TRUE; UNKNOWN, FALSE and errors are no match. */
  matches(get: PropertyLookup): boolean;
}

/** Compiles an expression; throws FilterParseError (with line and column) if RocketMQ would refuse it. */
export function compileSql92(expression: string): Sql92Filter {
  const root = parseSelector(expression);
  const evaluate = compileNode(root);
  return {
    expression,
    properties: propertyNames(root),
    matches(get) {
      try {
        return evaluate(get) === true;
      } catch {
        // Java's evaluator throws for values it cannot convert; the message is skipped (§C.5).
        return false;
      }
    },
  };
}

/** `matches` over a plain map or record of properties. */
export function lookupIn(
  props: ReadonlyMap<string, string> | Readonly<Record<string, string>>,
): PropertyLookup {
  // Any ReadonlyMap (the broker's PropertiesView is one without being a Map).
  if (typeof (props as ReadonlyMap<string, string>).get === "function") {
    const map = props as ReadonlyMap<string, string>;
    return (name) => map.get(name);
  }
  const rec = props as Readonly<Record<string, string>>;
  return (name) => (Object.hasOwn(rec, name) ? rec[name] : undefined);
}
