/**
 * The timer service's state without I/O: the heap's order, and the recovery promise of its saved
 * progress, checked over random runs. Whatever moment the progress is saved, re-reading the timer
 * queue from it loses no entry that was not delivered; saved with no round in flight, nothing read
 * late and no put waiting for a retry (a clean stop), it repeats none either.
 */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { TimerHeap } from "../../broker/services/timer/timer-heap.ts";
import { TimerIndex, type TimerRound } from "../../broker/services/timer/timer-index.ts";
import type { TimerProgressValues } from "../../broker/services/timer/timer-progress.ts";
import type { QueueUnit } from "../../broker/store/message-store.ts";

const PRECISION_MS = 1;
const NONE = new Map<number, string>();

/** A unit of the timer queue for an entry due at `due` (its slot is one precision step earlier). */
function unit(queueOffset: number, due: number): QueueUnit {
  return { queueOffset, phyOffset: queueOffset * 100, size: 100, tagsCode: due - PRECISION_MS };
}

/** Every entry a freshly recovered index would deliver, by queue offset. */
function recoveredPending(saved: TimerProgressValues, queue: readonly QueueUnit[]): Set<number> {
  const index = new TimerIndex(saved, PRECISION_MS);
  index.add(
    queue.filter((u) => u.queueOffset >= saved.lowWater),
    NONE,
  );
  const round = index.take(Number.POSITIVE_INFINITY, Number.MAX_SAFE_INTEGER);
  return new Set(round.entries.map((e) => e.queueOffset));
}

describe("timer heap", () => {
  test("pops entries by due time, then by queue offset, whatever the push order", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 50 }), fc.nat(1000)), { maxLength: 300 }),
        (xs) => {
          const heap = new TimerHeap();
          const entries = xs.map(([due], i) => ({ due, queueOffset: i, phyOffset: i * 7, size: 10 + i }));
          for (const e of entries) heap.push(e);
          const out = [];
          for (let e = heap.pop(); e; e = heap.pop()) out.push(e);
          const sorted = [...entries].sort((a, b) => a.due - b.due || a.queueOffset - b.queueOffset);
          expect(out).toEqual(sorted);
        },
      ),
    );
  });
});

describe("timer progress", () => {
  test("a save at any moment loses nothing undelivered; a save at rest (no round, no late entry, no retry) repeats nothing", () => {
    const step = fc.oneof(
      fc.record({
        kind: fc.constant("append" as const),
        dues: fc.array(fc.integer({ min: 0, max: 400 }), { maxLength: 20 }),
      }),
      fc.record({ kind: fc.constant("read" as const), n: fc.integer({ min: 1, max: 30 }) }),
      fc.record({
        kind: fc.constant("round" as const),
        advance: fc.integer({ min: 0, max: 60 }),
        max: fc.integer({ min: 1, max: 25 }),
        failEvery: fc.integer({ min: 0, max: 4 }),
        saveMidRound: fc.boolean(),
      }),
    );
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), (steps) => {
        const queue: QueueUnit[] = [];
        const index = new TimerIndex({ enqueueOffset: 0, firedUpTo: 0, lowWater: 0 }, PRECISION_MS);
        const delivered = new Set<number>();
        const retrying = new Set<number>();
        let now = 100;
        const check = (saved: TimerProgressValues, inflight: TimerRound | undefined, atRest: boolean) => {
          const pending = recoveredPending(saved, queue);
          const lost = queue.filter((u) => !delivered.has(u.queueOffset) && !pending.has(u.queueOffset));
          expect(lost).toEqual([]);
          if (atRest) expect([...pending].filter((o) => delivered.has(o))).toEqual([]);
          void inflight;
        };
        for (const s of steps) {
          if (s.kind === "append") {
            // Entries are sent for the future of the moment they are sent.
            for (const d of s.dues) queue.push(unit(queue.length, now + 1 + d));
          } else if (s.kind === "read") {
            const from = index.readOffset;
            index.add(queue.slice(from, from + s.n), NONE);
          } else {
            now += s.advance;
            const round = index.take(now, s.max);
            if (s.saveMidRound) check(index.snapshot(), round, false);
            const retry = new Set(round.entries.filter((_, i) => s.failEvery > 0 && i % s.failEvery === 0));
            for (const e of round.entries) {
              if (retry.has(e)) retrying.add(e.queueOffset);
              else {
                delivered.add(e.queueOffset);
                retrying.delete(e.queueOffset);
              }
            }
            index.finish(round, retry);
          }
          const saved = index.snapshot();
          check(saved, undefined, saved.enqueueOffset === index.readOffset && retrying.size === 0);
        }
      }),
      { numRuns: 300 },
    );
  });

  test("a delete entry cancels its key for entries due up to its own time, then expires", () => {
    const index = new TimerIndex({ enqueueOffset: 0, firedUpTo: 0, lowWater: 0 }, PRECISION_MS);
    const del: QueueUnit = { queueOffset: 1, phyOffset: 100, size: 50, tagsCode: -(1000 - PRECISION_MS) };
    index.add([unit(0, 1000), del], new Map([[1, "T+U1"]]));
    expect([
      index.isCancelled("T+U1", 1000),
      index.isCancelled("T+U1", 1001),
      index.isCancelled("T+U2", 1000),
    ]).toEqual([true, false, false]);
    index.finish(index.take(1000, 10), new Set());
    expect({
      cancelled: index.isCancelled("T+U1", 1000),
      pending: index.pending,
      saved: index.snapshot(),
    }).toEqual({
      cancelled: false,
      pending: 0,
      saved: { enqueueOffset: 2, firedUpTo: 1000, lowWater: 2 },
    });
  });
});
