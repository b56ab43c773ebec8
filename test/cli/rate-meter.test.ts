import { describe, expect, test } from "bun:test";
import { RateMeter } from "../../src/cli/rate-meter.ts";

describe("rate meter", () => {
  test("each interval reports its own rate and latencies; the summary covers the whole run", () => {
    let now = 0;
    const meter = new RateMeter(() => now);
    meter.ok(2);
    meter.ok(4);
    meter.fail();
    now = 500;
    expect(meter.take()).toEqual({ total: 2, failed: 1, tps: 4, avgMs: 3, maxMs: 4 });
    now = 1500;
    expect(meter.take()).toEqual({ total: 2, failed: 1, tps: 0, avgMs: 0, maxMs: 0 });
    meter.ok(10);
    now = 2000;
    expect(meter.summary()).toEqual({
      total: 3,
      failed: 1,
      elapsedMs: 2000,
      tps: 1.5,
      avgMs: 16 / 3,
      maxMs: 10,
    });
  });
});
