/**
 * Finding a verb as mqadmin does: by name, case-insensitively (`topiclist` is `topicList`), and
 * for a name that matches none, the closest verb to suggest ("did you mean").
 */
import { editDistance } from "../../config/suggest.ts";

export { editDistance };

export class VerbTable<V extends { readonly name: string }> {
  private readonly byLowerName: ReadonlyMap<string, V>;

  constructor(readonly verbs: readonly V[]) {
    const map = new Map<string, V>();
    for (const v of verbs) {
      const key = v.name.toLowerCase();
      if (map.has(key)) throw new Error(`admin verb ${v.name} is defined twice`);
      map.set(key, v);
    }
    this.byLowerName = map;
  }

  get(name: string): V | undefined {
    return this.byLowerName.get(name.toLowerCase());
  }

  /**
   * The verb a mistyped name most likely meant: one that starts with it (`consumerProg`), else the
   * nearest within a third of the name's length in edits (`topicLst`, `clusterlsit`).
   */
  suggest(name: string): string | undefined {
    const lower = name.toLowerCase();
    if (lower.length >= 3) {
      const prefixed = this.verbs.filter((v) => v.name.toLowerCase().startsWith(lower));
      if (prefixed.length === 1) return prefixed[0]?.name;
    }
    const limit = Math.max(2, Math.floor(lower.length / 3));
    let best: string | undefined;
    let bestDistance = limit + 1;
    for (const v of this.verbs) {
      const d = editDistance(lower, v.name.toLowerCase());
      if (d < bestDistance) {
        best = v.name;
        bestDistance = d;
      }
    }
    return best;
  }
}
