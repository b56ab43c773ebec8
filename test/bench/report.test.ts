/**
 * The benchmarks' progress lines: one per finished measure or round, naming the benchmark, the
 * round of how many, the measure, its value and unit, and the ratio to its ceiling when there is one.
 */
import { afterEach, beforeEach, describe, expect, spyOn, test } from "bun:test";
import { formatProgress, progressSteps } from "../../bench/lib/report.ts";

describe("formatProgress", () => {
  test("a measure with a ceiling shows the ratio and the ceiling", () => {
    expect(
      formatProgress({
        bench: "broker",
        round: 3,
        rounds: 12,
        name: "raw send, 128 in flight",
        value: 41_234.4,
        unit: "msgs/s",
        ceiling: 79_100,
      }),
    ).toBe("  broker 3/12: raw send, 128 in flight 41,234 msgs/s (0.52 of 79,100)");
  });

  test("without a ceiling, no ratio; small values keep two decimals; a note follows", () => {
    expect(
      formatProgress({ bench: "broker", round: 11, rounds: 12, name: "e2e p50", value: 1.234, unit: "ms" }),
    ).toBe("  broker 11/12: e2e p50 1.23 ms");
    expect(
      formatProgress({
        bench: "soak",
        round: 2,
        rounds: 15,
        name: "t=20 s, sent",
        value: 9000,
        unit: "msgs/s",
        note: "consumed 180,000/180,064",
      }),
    ).toBe("  soak 2/15: t=20 s, sent 9,000 msgs/s; consumed 180,000/180,064");
  });

  test("a ceiling of 0 (not measured) prints no ratio rather than Infinity", () => {
    expect(
      formatProgress({ bench: "x", round: 1, rounds: 1, name: "m", value: 5, unit: "u", ceiling: 0 }),
    ).toBe("  x 1/1: m 5.00 u");
  });
});

describe("progressSteps", () => {
  let printed: string[] = [];
  let spy: ReturnType<typeof spyOn>;
  beforeEach(() => {
    printed = [];
    spy = spyOn(console, "log").mockImplementation((line: unknown) => void printed.push(String(line)));
  });
  afterEach(() => spy.mockRestore());

  test("numbers measures in order as they finish and hands each value back", () => {
    const step = progressSteps("namesrv", 2);
    const echo = step("raw TCP echo, 1 in flight", 20_000, "round trips/s");
    expect(echo).toBe(20_000);
    step("GET_ROUTEINFO_BY_TOPIC, 1 in flight", 15_000, "req/s", echo);
    expect(printed).toEqual([
      "  namesrv 1/2: raw TCP echo, 1 in flight 20,000 round trips/s",
      "  namesrv 2/2: GET_ROUTEINFO_BY_TOPIC, 1 in flight 15,000 req/s (0.75 of 20,000)",
    ]);
  });
});
