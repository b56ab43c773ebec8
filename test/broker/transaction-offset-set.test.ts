/**
 * The checker's finished half offsets as bits (offset-set.ts): it must answer as the Set it
 * replaced, whatever order offsets come in, however far apart, and as the walk drops them.
 */
import { expect, test } from "bun:test";
import { OffsetSet } from "../../broker/services/transaction/offset-set.ts";

/** A Set with the same operations: what OffsetSet must agree with. */
function model() {
  const set = new Set<number>();
  return {
    set,
    removeBelow(next: number): number[] {
      const removed = [...set].filter((o) => o < next);
      for (const o of removed) set.delete(o);
      return removed;
    },
  };
}

/** A small deterministic generator (no Math.random in tests). */
function lcg(seed: number): () => number {
  let s = seed;
  return () => {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    return s / 2 ** 32;
  };
}

test("agrees with a Set through adds in and out of order, far offsets, and removals", () => {
  const random = lcg(7);
  const bits = new OffsetSet();
  const m = model();
  let walk = 0;
  for (let round = 0; round < 40; round++) {
    for (let i = 0; i < 500; i++) {
      const r = random();
      // Mostly just past the walk, some behind it, a few far ahead or huge.
      const o =
        r < 0.9
          ? walk + Math.floor(random() * 3000)
          : r < 0.95
            ? Math.max(0, walk - Math.floor(random() * 100))
            : r < 0.99
              ? walk + 2 ** 26 + Math.floor(random() * 10)
              : 2 ** 60;
      bits.add(o);
      m.set.add(o);
    }
    walk += Math.floor(random() * 2500);
    const removed: number[] = [];
    bits.removeBelow(walk, (o) => removed.push(o));
    expect(removed.sort((a, b) => a - b)).toEqual(m.removeBelow(walk).sort((a, b) => a - b));
    expect(bits.size).toBe(m.set.size);
    for (let o = walk - 50; o < walk + 3100; o++) expect(bits.has(o)).toBe(m.set.has(o));
    for (const o of m.set) expect(bits.has(o)).toBe(true);
    let absent = walk;
    while (absent < walk + 5000 && m.set.has(absent)) absent++;
    expect(bits.firstAbsent(walk, walk + 5000)).toBe(absent);
  }
});

test("bits removed from below come in ascending order; a restart's first offset is far from 0", () => {
  const bits = new OffsetSet();
  for (const o of [1_000_000_005, 1_000_000_001, 1_000_000_040, 1_000_000_003]) bits.add(o);
  expect(bits.size).toBe(4);
  const removed: number[] = [];
  bits.removeBelow(1_000_000_040, (o) => removed.push(o));
  expect(removed).toEqual([1_000_000_001, 1_000_000_003, 1_000_000_005]);
  expect(bits.has(1_000_000_040)).toBe(true);
  expect(bits.size).toBe(1);
  // Adding the same offset twice counts it once.
  bits.add(1_000_000_040);
  expect(bits.size).toBe(1);
});

test("firstAbsent passes whole words of set bits and stops at the limit", () => {
  const bits = new OffsetSet();
  for (let o = 100; o < 1000; o++) bits.add(o);
  bits.add(1001);
  expect(bits.firstAbsent(100, 5000)).toBe(1000);
  expect(bits.firstAbsent(1000, 5000)).toBe(1000);
  expect(bits.firstAbsent(1001, 5000)).toBe(1002);
  expect(bits.firstAbsent(100, 700)).toBe(700);
  expect(bits.firstAbsent(50, 5000)).toBe(50);
});
