import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { diskUsedPercent, ratioText, usedPercentOf } from "../../../broker/store/disk-usage.ts";

describe("disk usage as Java's getDiskPartitionSpaceUsedPercent answers it", () => {
  test("used against used + available, whole percents rounded up", () => {
    // 600 used of 950 (50 blocks reserved for root count as neither): 63.16 % → 64.
    expect(usedPercentOf(1000, 400, 350)).toBe(64);
    // Exact percents are not rounded up.
    expect(usedPercentOf(1000, 500, 500)).toBe(50);
    expect(usedPercentOf(1000, 1000, 1000)).toBe(0);
    expect(usedPercentOf(1000, 0, 0)).toBe(100);
    expect(usedPercentOf(0, 0, 0)).toBe(-1);
  });

  test("runtime-info text is Java's String.valueOf(double) of the ratio", () => {
    expect([64, 7, 100, 0, -1].map(ratioText)).toEqual(["0.64", "0.07", "1.0", "0.0", "-1.0"]);
  });

  test("a real partition agrees with df's Use% (the same formula); a missing path is -1", async () => {
    const dir = tmpdir();
    const df = spawnSync("df", ["--output=pcent", dir], { encoding: "utf8" });
    const ours = await diskUsedPercent(dir);
    if (df.status === 0) {
      const pcent = Number(df.stdout.split("\n")[1]!.trim().replace("%", ""));
      // Other writers may move the partition by a percent between the two reads.
      expect(Math.abs(ours - pcent)).toBeLessThanOrEqual(1);
    } else {
      expect(ours).toBeGreaterThanOrEqual(0);
      expect(ours).toBeLessThanOrEqual(100);
    }
    expect(await diskUsedPercent(join(dir, "rocketbun-no-such-dir", "x"))).toBe(-1);
  });
});
