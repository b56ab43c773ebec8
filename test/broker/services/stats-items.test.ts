import { describe, expect, test } from "bun:test";
import { BrokerStats } from "../../../broker/services/stats.ts";
import {
  DAY_WINDOW,
  HOUR_WINDOW,
  MINUTE_WINDOW,
  StatsItem,
  StatsItems,
  StatsName,
} from "../../../broker/services/stats-items.ts";

describe("statistics items as Java's StatsItem samples them", () => {
  test("no sample yet: all zero; the first sample counts from zero one period earlier", () => {
    const item = new StatsItem();
    item.add(30, 3);
    expect(item.figures(MINUTE_WINDOW)).toEqual({ sum: 0, tps: 0, avgpt: 0 });
    item.sample(MINUTE_WINDOW, 100_000);
    // 30 over the 10 s before the sample, in 3 adds.
    expect(item.figures(MINUTE_WINDOW)).toEqual({ sum: 30, tps: 3, avgpt: 10 });
  });

  test("a window keeps its last samples: the minute 7 samples 10 s apart, so older traffic leaves it", () => {
    const item = new StatsItem();
    let t = 0;
    item.add(600, 6);
    item.sample(MINUTE_WINDOW, t);
    for (let i = 0; i < 6; i++) {
      t += 10_000;
      item.add(10, 1);
      item.sample(MINUTE_WINDOW, t);
    }
    // The synthetic zero sample is gone: the window is the last 60 s, 60 messages in 6 adds.
    expect(item.figures(MINUTE_WINDOW)).toEqual({ sum: 60, tps: 1, avgpt: 10 });
    // The hour and day lists are sampled on their own schedules and have seen nothing yet.
    expect(item.figures(HOUR_WINDOW).sum).toBe(0);
    expect(item.figures(DAY_WINDOW).sum).toBe(0);
  });

  test("items are per statistic and key; a deleted topic or group loses its own items only", () => {
    const items = new StatsItems();
    items.add(StatsName.TOPIC_PUT_NUMS, "orders", 2);
    items.add(StatsName.GROUP_GET_NUMS, "orders@billing", 5);
    items.sample(DAY_WINDOW, 3_600_000);
    expect(items.get(StatsName.TOPIC_PUT_NUMS, "orders")?.figures(DAY_WINDOW).sum).toBe(2);
    expect(items.get(StatsName.TOPIC_PUT_NUMS, "orders@billing")).toBeUndefined();
    items.add(StatsName.BROKER_PUT_NUMS, "orders", 2, 0);
    const stats = new BrokerStats("orders");
    stats.countPut("orders", 1, 80, 100);
    stats.countGet("orders", "billing", 1, 100);
    stats.countGet("payments", "billing", 1, 100);
    stats.forgetTopic("orders");
    expect(stats.items.get(StatsName.TOPIC_PUT_NUMS, "orders")).toBeUndefined();
    expect(stats.items.get(StatsName.GROUP_GET_NUMS, "orders@billing")).toBeUndefined();
    // A cluster that shares the topic's name keeps its broker totals; other topics keep theirs.
    expect(stats.items.get(StatsName.BROKER_PUT_NUMS, "orders")?.value).toBe(1);
    expect(stats.items.get(StatsName.GROUP_GET_NUMS, "payments@billing")?.value).toBe(1);
    stats.forgetGroup("billing");
    expect(stats.items.get(StatsName.GROUP_GET_NUMS, "payments@billing")).toBeUndefined();
  });

  test("clients name the keys: each statistic keeps at most its maximum, and an item idle for a day leaves", () => {
    const items = new StatsItems(3);
    for (const g of ["a", "b", "c", "d"]) items.add(StatsName.GROUP_GET_NUMS, `T@${g}`, 1);
    expect(items.size(StatsName.GROUP_GET_NUMS)).toBe(3);
    expect(items.get(StatsName.GROUP_GET_NUMS, "T@d")).toBeUndefined();
    // Hourly samples for a day: "T@a" keeps getting traffic, as does the broker total (value only).
    items.add(StatsName.BROKER_GET_NUMS, "Cluster", 1, 0);
    let t = 0;
    for (let h = 0; h < DAY_WINDOW.keep; h++) {
      t += DAY_WINDOW.periodMs;
      items.add(StatsName.GROUP_GET_NUMS, "T@a", 1);
      items.add(StatsName.BROKER_GET_NUMS, "Cluster", 1, 0);
      items.sample(DAY_WINDOW, t);
    }
    expect(items.size(StatsName.GROUP_GET_NUMS)).toBe(1);
    expect(items.get(StatsName.GROUP_GET_NUMS, "T@a")).toBeDefined();
    expect(items.get(StatsName.BROKER_GET_NUMS, "Cluster")).toBeDefined();
    // Room again for a new key.
    items.add(StatsName.GROUP_GET_NUMS, "T@d", 1);
    expect(items.get(StatsName.GROUP_GET_NUMS, "T@d")?.value).toBe(1);
  });
});
