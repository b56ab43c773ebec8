/**
 * Compiled SQL92 expressions by text, failures included (Java's parser keeps 100 per process;
 * here one cache per broker): a lite-pull consumer sends its expression with every pull, and it
 * is parsed once.
 */
import { ExpressionType } from "../../src/protocol/body/subscription.ts";
import { compileSql92, FilterParseError, type Sql92Filter } from "../../src/protocol/filter/index.ts";

export type Compiled =
  | { readonly ok: true; readonly filter: Sql92Filter }
  | { readonly ok: false; readonly remark: string };

/** Entries kept; the oldest is dropped beyond it. */
export const COMPILE_CACHE_ENTRIES_MAX = 256;
/** Longer expressions are compiled each time, so the cache holds at most 1 MiB of text. */
const CACHED_EXPRESSION_CHARS_MAX = 4096;

export class CompileCache {
  private readonly cache = new Map<string, Compiled>();

  /** The expression compiled for its type; only SQL92 has a compiler (any other type fails, §C.2). */
  compile(expressionType: string, expression: string): Compiled {
    if (expressionType !== ExpressionType.SQL92) {
      return {
        ok: false,
        remark: `no filter compiler for expression type ${JSON.stringify(expressionType)}`,
      };
    }
    const hit = this.cache.get(expression);
    if (hit) {
      // Re-inserted so that Map order is least recently used first.
      this.cache.delete(expression);
      this.cache.set(expression, hit);
      return hit;
    }
    let result: Compiled;
    try {
      result = { ok: true, filter: compileSql92(expression) };
    } catch (err) {
      if (!(err instanceof FilterParseError)) throw err;
      result = { ok: false, remark: err.remark };
    }
    if (expression.length > CACHED_EXPRESSION_CHARS_MAX) return result;
    if (this.cache.size >= COMPILE_CACHE_ENTRIES_MAX) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(expression, result);
    return result;
  }
}
