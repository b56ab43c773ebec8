import { describe, expect, test } from "bun:test";
import {
  decodeProperties,
  encodeProperties,
  findProperty,
  isCanonicalProperties,
  PICKED_KEYS,
  PropertiesView,
  pickCanonical,
} from "../../../src/protocol/message/index.ts";

/** Every string of length ≤ 7 over a small alphabet that includes both separators. */
function* strings(): Generator<string> {
  const alphabet = ["a", "b", "\u0001", "\u0002"];
  let layer = [""];
  for (let len = 0; len <= 7; len++) {
    yield* layer;
    layer = layer.flatMap((s) => alphabet.map((c) => s + c));
  }
}

describe("properties scanned without a map", () => {
  test("findProperty answers what decodeProperties(s).get answers, for every short string", () => {
    for (const s of strings()) {
      const map = decodeProperties(s);
      for (const key of ["a", "b", "ab", "ba", "aa"])
        expect([s, key, findProperty(s, key)]).toEqual([s, key, map.get(key)]);
    }
  });

  test("isCanonicalProperties holds exactly when re-encoding gives the string back, up to the trailing U+0002", () => {
    for (const s of strings()) {
      const again = encodeProperties(decodeProperties(s));
      const same = again === s || again === `${s}\u0002`;
      expect([s, isCanonicalProperties(s)]).toEqual([s, same]);
    }
  });

  test("pickCanonical finds the picked keys' values whenever the string is canonical", () => {
    const names = ["TAGS", "TAG", "WAIT", "UNIQ_KEY", "PGROUP", "X", ""];
    const values = ["v", "", "a\u0001b"];
    const entries = names.flatMap((n) => values.map((v) => `${n}\u0001${v}`));
    const joins = (list: string[]) => [list.join("\u0002"), `${list.join("\u0002")}\u0002`];
    for (const a of entries)
      for (const b of entries)
        for (const s of [...joins([a]), ...joins([a, b]), ...joins([b, a, "KEYS\u0001k"])]) {
          const picked = pickCanonical(s);
          expect([s, picked !== undefined]).toEqual([s, isCanonicalProperties(s)]);
          if (!picked) continue;
          const map = decodeProperties(s);
          expect([s, picked]).toEqual([s, PICKED_KEYS.map((k) => map.get(k))]);
          const view = new PropertiesView(s, picked);
          expect(PICKED_KEYS.map((k) => view.get(k))).toEqual(PICKED_KEYS.map((k) => map.get(k)));
        }
  });

  test("a PropertiesView reads and iterates like the decoded map", () => {
    const s = "TAGS\u0001t\u0002KEYS\u0001k1 k2\u0002UNIQ_KEY\u0001AB\u0002";
    const view = new PropertiesView(s);
    expect(view.get("KEYS")).toBe("k1 k2");
    expect(view.has("WAIT")).toBe(false);
    expect(new Map(view)).toEqual(decodeProperties(s));
    expect(view.size).toBe(3);
    expect([...view.keys()]).toEqual(["TAGS", "KEYS", "UNIQ_KEY"]);
  });
});
