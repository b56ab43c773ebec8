/**
 * "Did you mean" for unknown keys: the closest declared key by edit distance, case-insensitively,
 * so that `brokerNmae` or `listenport` point at the key the user meant.
 */
import type { Section } from "./schema.ts";

/** Edit distance between two strings (insertions, deletions, substitutions). */
export function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row.push(Math.min((prev[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + cost));
    }
    prev = row;
  }
  return prev[b.length] ?? 0;
}

/** ` (did you mean X?)` when a declared key is within 2 edits, else "". */
export function suggestKey(key: string, sections: readonly Section[]): string {
  const lower = key.toLowerCase();
  let best: string | undefined;
  let bestDistance = 3;
  for (const s of sections) {
    for (const candidate of [...Object.keys(s.fields), ...s.ignoredKeys]) {
      const d = editDistance(lower, candidate.toLowerCase());
      if (d < bestDistance) {
        best = candidate;
        bestDistance = d;
      }
    }
  }
  return best === undefined ? "" : ` (did you mean ${best}?)`;
}
