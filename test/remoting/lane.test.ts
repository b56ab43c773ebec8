import { describe, expect, test } from "bun:test";
import { Lane } from "../../src/remoting/lane.ts";

describe("Lane: a bounded stand-in for Java's processor executor", () => {
  test("queues past its concurrency, refuses past queueMax, and reports its queue as Java's executor stats do", async () => {
    const lane = new Lane("send", { concurrency: 1, queueMax: 2 });
    const dones: (() => void)[] = [];
    const started: string[] = [];
    const task = (name: string) => (done: () => void) => {
      started.push(name);
      dones.push(done);
    };
    expect(lane.load()).toEqual({ waiting: 0, headWaitMs: 0 });
    expect([lane.submit(task("a")), lane.submit(task("b"))]).toEqual([true, true]);
    await Bun.sleep(30);
    expect(lane.submit(task("c"))).toBe(true);
    // Full: a fourth is refused (the processor answers SYSTEM_BUSY).
    expect(lane.submit(task("d"))).toBe(false);
    const load = lane.load();
    expect(load.waiting).toBe(2);
    // The head ("b") has waited since before the sleep; "c" arrived just now.
    expect(load.headWaitMs).toBeGreaterThanOrEqual(25);
    dones.shift()!();
    expect(started).toEqual(["a", "b"]);
    const after = lane.load();
    expect(after.waiting).toBe(1);
    expect(after.headWaitMs).toBeLessThan(load.headWaitMs);
    dones.shift()!();
    dones.shift()!();
    expect(started).toEqual(["a", "b", "c"]);
    expect(lane.load()).toEqual({ waiting: 0, headWaitMs: 0 });
    expect(lane.active).toBe(0);
  });
});
