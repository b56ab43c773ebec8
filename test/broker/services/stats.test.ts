import { describe, expect, test } from "bun:test";
import { nextMorning, RateCounter } from "../../../broker/services/stats.ts";

/** Local time, as Java's BrokerStats marks local midnights. */
const at = (day: number, hour: number, minute = 0) => new Date(2026, 11, day, hour, minute).getTime();

describe("daily marks of a broker counter (Java's msg*TotalTodayMorning / YesterdayMorning)", () => {
  test("the next morning is the next local midnight", () => {
    expect(nextMorning(at(3, 10))).toBe(at(4, 0));
    expect(nextMorning(at(3, 23, 59))).toBe(at(4, 0));
    expect(nextMorning(at(4, 0))).toBe(at(5, 0));
  });

  test("both marks are 0 before the first midnight, then move a day at a time", () => {
    const c = new RateCounter(at(3, 10));
    c.add(5, at(3, 11));
    expect(c.morningTotals(at(3, 12))).toEqual({ today: 0, yesterday: 0 });
    // The first add after midnight sees the total the day ended with.
    c.add(3, at(4, 1));
    expect(c.morningTotals(at(4, 2))).toEqual({ today: 5, yesterday: 0 });
    c.add(2, at(5, 0, 30));
    expect(c.morningTotals(at(5, 1))).toEqual({ today: 8, yesterday: 5 });
    expect(c.total).toBe(10);
  });

  test("a look after quiet days gives the total for both mornings", () => {
    const c = new RateCounter(at(3, 10));
    c.add(4, at(3, 11));
    c.add(1, at(4, 9));
    // Nothing added on the 5th and 6th: both midnights saw 5.
    expect(c.morningTotals(at(7, 8))).toEqual({ today: 5, yesterday: 5 });
    // Only one midnight after a look in the middle of the day.
    const d = new RateCounter(at(3, 10));
    d.add(4, at(3, 11));
    expect(d.morningTotals(at(4, 12))).toEqual({ today: 4, yesterday: 0 });
  });
});
