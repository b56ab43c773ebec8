/**
 * Editing a properties string without decoding it (the schedule and timer services' deliveries)
 * gives what editing the decoded map and encoding it gives, for every short string.
 */
import { expect, test } from "bun:test";
import {
  decodeProperties,
  editProperties,
  editPropertiesString,
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

test("editPropertiesString decodes to editProperties of the decoded string", () => {
  const edits: [Record<string, string>, string[]][] = [
    [{}, []],
    [{ a: "x" }, []],
    [{}, ["a"]],
    [{ b: "y", WAIT: "false" }, ["a", "ab"]],
    [{ a: "" }, ["b"]],
  ];
  for (const s of strings()) {
    for (const [set, remove] of edits) {
      const direct = [...decodeProperties(editPropertiesString(s, set, remove))];
      const viaMap = [...editProperties(decodeProperties(s), set, remove)].filter(([, v]) => v !== "");
      expect([s, set, remove, direct.sort()]).toEqual([s, set, remove, viaMap.sort()]);
    }
  }
});
