import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import type { MessageExt } from "../../src/client/message.ts";
import { ProcessQueue } from "../../src/client/process-queue.ts";

const msg = (queueOffset: number, bytes = 10) =>
  ({ queueOffset, body: new Uint8Array(bytes) }) as unknown as MessageExt;

/** The plain model: offset → message, commit offset = lowest cached, else highest + 1. */
class Model {
  readonly cached = new Map<number, number>();
  highest = -1;
  put(offsets: number[]): void {
    for (const o of offsets) {
      if (o <= this.highest) continue;
      this.cached.set(o, 10);
    }
    this.highest = Math.max(this.highest, ...offsets.filter((o) => o > this.highest));
  }
  remove(offsets: number[]): number {
    for (const o of offsets) this.cached.delete(o);
    if (this.highest < 0) return -1;
    return this.cached.size > 0 ? Math.min(...this.cached.keys()) : this.highest + 1;
  }
}

describe("process queue", () => {
  test("commit offsets, counts and bytes follow the plain model under any put/remove order", () => {
    const step = fc.oneof(
      fc.record({ put: fc.integer({ min: 1, max: 40 }), gap: fc.integer({ min: 0, max: 3 }) }),
      fc.record({ remove: fc.array(fc.nat(200), { maxLength: 40 }) }),
    );
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
        const pq = new ProcessQueue();
        const model = new Model();
        let next = 0;
        for (const s of steps) {
          if ("put" in s) {
            // A pull: increasing offsets from `next`, with gaps where tags filtered some out.
            const offsets: number[] = [];
            for (let i = 0; i < s.put; i++) offsets.push(next + i * (s.gap + 1));
            next = offsets.at(-1)! + 1;
            pq.put(offsets.map((o) => msg(o)));
            model.put(offsets);
          } else {
            const commit = pq.remove(s.remove.map((o) => msg(o)));
            expect(commit).toBe(model.remove(s.remove));
          }
          expect([pq.count, pq.cachedBytes]).toEqual([model.cached.size, 10 * model.cached.size]);
        }
      }),
    );
  });

  test("a duplicate pull is cached once and consumed once; clear forgets everything", () => {
    const pq = new ProcessQueue();
    pq.put([msg(0), msg(1), msg(2)]);
    pq.put([msg(1), msg(2), msg(3)]); // the same offsets again, and one new
    expect(pq.count).toBe(4);
    expect(pq.remove([msg(0), msg(1), msg(1)])).toBe(2);
    expect(pq.count).toBe(2);
    expect(pq.remove([msg(3)])).toBe(2);
    expect(pq.remove([msg(2)])).toBe(4);
    pq.clear();
    expect([pq.count, pq.cachedBytes, pq.remove([])]).toEqual([0, 0, -1]);
    pq.put([msg(0)]); // after a clear, lower offsets are accepted again
    expect(pq.count).toBe(1);
  });
});
