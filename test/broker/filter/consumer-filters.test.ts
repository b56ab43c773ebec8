/**
 * The SQL92 filter registry (spec pop-timer-filter §C.2, §C.9): subVersion rules of heartbeat
 * registration, removal when a newer expression does not compile, Java's consumerFilter.json
 * layout across a reload, and the dead-group sweep.
 */
import { describe, expect, test } from "bun:test";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConsumerFilters, FILTER_DATA_DEAD_MS } from "../../../broker/filter/consumer-filters.ts";
import type { SubscriptionData } from "../../../src/protocol/body/subscription.ts";
import { silent } from "../../support/silent.ts";

function sql(
  topic: string,
  subString: string,
  subVersion: number,
  expressionType = "SQL92",
): SubscriptionData {
  return { topic, subString, tagsSet: [], codeSet: [], subVersion, expressionType, classFilterMode: false };
}

function view(f: ConsumerFilters) {
  return f
    .all()
    .map((d) => ({ topic: d.topic, group: d.consumerGroup, expression: d.expression, v: d.clientVersion }));
}

describe("ConsumerFilters", () => {
  test("registers SQL92 subscriptions only, keeps an entry against older or equal versions, replaces it with newer ones", async () => {
    const dir = await mkdtemp(join(tmpdir(), "rocketbun-filters-"));
    try {
      const f = new ConsumerFilters(dir, silent);
      f.registerAll("G", [
        sql("T", "a > 1", 10),
        { ...sql("U", "TagA", 10), expressionType: "TAG" },
        sql("V", "", 10),
      ]);
      expect(view(f)).toEqual([{ topic: "T", group: "G", expression: "a > 1", v: 10 }]);
      f.registerAll("G", [sql("T", "a > 2", 10)]);
      f.registerAll("G", [sql("T", "a > 3", 9)]);
      expect(view(f)).toEqual([{ topic: "T", group: "G", expression: "a > 1", v: 10 }]);
      f.registerAll("G", [sql("T", "a > 1", 11)]);
      expect(view(f)).toEqual([{ topic: "T", group: "G", expression: "a > 1", v: 11 }]);
      f.registerAll("G", [sql("T", "b = 'x'", 12)]);
      expect(view(f)).toEqual([{ topic: "T", group: "G", expression: "b = 'x'", v: 12 }]);
      expect(f.get("T", "G")?.compiled.matches((n) => (n === "b" ? "x" : undefined))).toBe(true);
      // A newer expression that does not compile removes the entry (pulls then answer 27).
      f.registerAll("G", [sql("T", "b =", 13)]);
      expect(view(f)).toEqual([]);
      // A type without a compiler never registers.
      f.registerAll("G", [sql("T", "a > 1", 14, "XPATH")]);
      expect(view(f)).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test("persists in Java's consumerFilter.json layout and reloads compiled entries", async () => {
    const dir = await mkdtemp(join(tmpdir(), "rocketbun-filters-"));
    try {
      const f = new ConsumerFilters(dir, silent, () => 1000);
      f.registerAll("G", [sql("T", "a between 1 and 3", 7)]);
      expect(await f.persist()).toBe(true);
      const onDisk = JSON.parse(await readFile(join(dir, "config", "consumerFilter.json"), "utf8"));
      expect(onDisk).toEqual({
        filterDataByTopic: {
          T: {
            topic: "T",
            groupFilterData: {
              G: {
                consumerGroup: "G",
                topic: "T",
                expression: "a between 1 and 3",
                expressionType: "SQL92",
                bornTime: 1000,
                deadTime: 0,
                clientVersion: 7,
              },
            },
          },
        },
      });
      const again = new ConsumerFilters(dir, silent);
      await again.load();
      expect(view(again)).toEqual([{ topic: "T", group: "G", expression: "a between 1 and 3", v: 7 }]);
      expect(again.get("T", "G")?.compiled.matches(() => "2")).toBe(true);
      await f.shutdown();
      await again.shutdown();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test("a group without consumers is marked dead, revived when it returns, deleted a day after dying", async () => {
    const dir = await mkdtemp(join(tmpdir(), "rocketbun-filters-"));
    try {
      let now = 5;
      const f = new ConsumerFilters(dir, silent, () => now);
      f.registerAll("G", [sql("T", "a > 1", 1)]);
      f.sweep(() => false);
      expect(f.get("T", "G")?.deadTime).toBe(5);
      now = 10;
      f.sweep(() => true);
      expect(f.get("T", "G")?.deadTime).toBe(0);
      now = 20;
      f.sweep(() => false);
      expect(f.get("T", "G")?.deadTime).toBe(20);
      now = 20 + FILTER_DATA_DEAD_MS + 1;
      f.sweep(() => false);
      expect(view(f)).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
