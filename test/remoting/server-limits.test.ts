/**
 * The pieces of ServerResources on their own: the buffer budget's charges and evictions, the
 * connection gate, the limits derived from the host, and the once-per-burst log.
 */
import { describe, expect, test } from "bun:test";
import type { Logger } from "pino";
import { type BudgetHolder, BufferBudget } from "../../src/remoting/buffer-budget.ts";
import { BurstLog } from "../../src/remoting/burst-log.ts";
import { ConnectionGate } from "../../src/remoting/connection-gate.ts";
import {
  bufferBytesMaxFor,
  connectionsMaxFor,
  FALLBACK_CONNECTIONS_MAX,
  parseOpenFilesLimit,
} from "../../src/remoting/host-limits.ts";
import { waitFor } from "../support/rocketbun-child.ts";
import { silent } from "../support/silent.ts";

const MiB = 1024 * 1024;

/** A holder that records its eviction and releases itself, as TcpConnection does. */
function holder(name: string, budget: BufferBudget, evicted: string[]): BudgetHolder {
  const h: BudgetHolder = {
    remoteAddress: name,
    close() {},
    abort() {
      evicted.push(name);
      budget.release(h);
    },
  };
  return h;
}

/** A logger that records (level, message) pairs. */
function recordingLogger(lines: [string, string][]): Logger {
  const rec = (level: string) => (_fields: unknown, msg: string) => lines.push([level, msg]);
  return { warn: rec("warn"), info: rec("info") } as unknown as Logger;
}

describe("BufferBudget", () => {
  test("when full, the connection with most unsent bytes is closed to make room, heaviest first", () => {
    const budget = new BufferBudget(10 * MiB, silent);
    const evicted: string[] = [];
    const [a, b, c, asker] = ["a", "b", "c", "asker"].map((n) =>
      holder(n, budget, evicted),
    ) as BudgetHolder[];
    budget.take(a!, 2 * MiB, "unsent");
    budget.take(b!, 5 * MiB, "unsent");
    budget.take(c!, 3 * MiB, "unsent");
    expect(budget.take(asker!, 4 * MiB, "working")).toBe(true);
    expect({ evicted, used: budget.used, peak: budget.peak }).toEqual({
      evicted: ["b"],
      used: 9 * MiB,
      peak: 10 * MiB,
    });
  });

  test("an asker never closes a lighter peer: an unsent charge that would make it the heaviest fails", () => {
    const budget = new BufferBudget(10 * MiB, silent);
    const evicted: string[] = [];
    const [a, asker] = ["a", "asker"].map((n) => holder(n, budget, evicted)) as BudgetHolder[];
    budget.take(a!, 6 * MiB, "unsent");
    expect(budget.take(asker!, 3 * MiB, "unsent")).toBe(true);
    expect(budget.take(asker!, 4 * MiB, "unsent")).toBe(false);
    expect({ evicted, used: budget.used, asker: budget.heldBy(asker!) }).toEqual({
      evicted: [],
      used: 9 * MiB,
      asker: 3 * MiB,
    });
  });

  test("working bytes are never what is closed for room: a working charge that does not fit is refused", () => {
    const budget = new BufferBudget(10 * MiB, silent);
    const evicted: string[] = [];
    const [a, asker] = ["a", "asker"].map((n) => holder(n, budget, evicted)) as BudgetHolder[];
    budget.take(a!, 8 * MiB, "working");
    expect(budget.take(asker!, 4 * MiB, "working")).toBe(false);
    expect(evicted).toEqual([]);
  });

  test("give returns at most what was charged; release returns everything; both are idempotent", () => {
    const budget = new BufferBudget(10 * MiB, silent);
    const a = holder("a", budget, []);
    budget.take(a, 3, "unsent");
    budget.take(a, 4, "working");
    budget.give(a, 10, "unsent");
    expect(budget.used).toBe(4);
    budget.release(a);
    budget.release(a);
    budget.give(a, 4, "working");
    expect(budget.used).toBe(0);
  });
});

describe("ConnectionGate", () => {
  test("admits up to the cap, refuses beyond it, and admits again after a leave", () => {
    const gate = new ConnectionGate(2, silent);
    const admitted = [gate.admit("x:1"), gate.admit("x:2"), gate.admit("x:3")];
    gate.leave();
    admitted.push(gate.admit("x:4"));
    gate.stop();
    expect({ admitted, open: gate.open, refused: gate.refused }).toEqual({
      admitted: [true, true, false, true],
      open: 2,
      refused: 1,
    });
  });
});

describe("host limits", () => {
  const limits = [
    "Limit                     Soft Limit           Hard Limit           Units     ",
    "Max processes             95034                95034                processes ",
    "Max open files            1024                 524288               files     ",
  ].join("\n");

  test("the soft open-files limit is read from /proc/<pid>/limits", () => {
    expect([
      parseOpenFilesLimit(limits),
      parseOpenFilesLimit(limits.replace("1024  ", "unlimited")),
      parseOpenFilesLimit(""),
    ]).toEqual([1024, undefined, undefined]);
  });

  test("connections keep a quarter of the descriptors (at least 64) for everything else", () => {
    expect([160, 1024, 65536, undefined].map(connectionsMaxFor)).toEqual([
      96,
      768,
      49152,
      FALLBACK_CONNECTIONS_MAX,
    ]);
  });

  test("buffers get a quarter of the memory, between 64 MiB and 1 GiB", () => {
    expect([128 * MiB, 2048 * MiB, 64 * 1024 * MiB].map(bufferBytesMaxFor)).toEqual([
      64 * MiB,
      512 * MiB,
      1024 * MiB,
    ]);
  });
});

describe("BurstLog", () => {
  test("a burst logs its first event at once and its count once it is over", async () => {
    const lines: [string, string][] = [];
    const burst = new BurstLog(recordingLogger(lines), "refusing", 20);
    for (let i = 0; i < 1000; i++) burst.note({ i });
    expect(lines).toEqual([["warn", "refusing"]]);
    await waitFor("the burst to end", () => burst.inBurst === 0);
    expect(lines).toEqual([
      ["warn", "refusing"],
      ["info", "refusing (burst over)"],
    ]);
  });
});
