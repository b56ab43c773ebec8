import { describe, expect, test } from "bun:test";
import { editDistance, VerbTable } from "../../../src/cli/admin/verb-lookup.ts";

const table = new VerbTable(
  ["topicList", "topicRoute", "topicStatus", "clusterList", "consumerProgress", "consumerConnection"].map(
    (name) => ({ name }),
  ),
);

describe("admin verb lookup", () => {
  test("a verb is found whatever its case, as mqadmin finds it", () => {
    expect(["topiclist", "TOPICLIST", "TopicList", "topicList"].map((n) => table.get(n)?.name)).toEqual([
      "topicList",
      "topicList",
      "topicList",
      "topicList",
    ]);
    expect(table.get("topicLst")).toBeUndefined();
  });

  test("a mistyped verb suggests the nearest one, or a unique verb it starts", () => {
    expect({
      typo: table.suggest("topicLst"),
      swapped: table.suggest("clusterlsit"),
      prefix: table.suggest("consumerProg"),
      ambiguousPrefix: table.suggest("consumer"),
      unrelated: table.suggest("frobnicate"),
    }).toEqual({
      typo: "topicList",
      swapped: "clusterList",
      prefix: "consumerProgress",
      ambiguousPrefix: undefined,
      unrelated: undefined,
    });
  });

  test("two verbs that differ only in case are refused when the table is built", () => {
    expect(() => new VerbTable([{ name: "topicList" }, { name: "TopicList" }])).toThrow(
      "admin verb TopicList is defined twice",
    );
  });

  test("edit distance counts insertions, deletions and substitutions", () => {
    expect([
      editDistance("", "abc"),
      editDistance("kitten", "sitting"),
      editDistance("same", "same"),
    ]).toEqual([3, 3, 0]);
  });
});
