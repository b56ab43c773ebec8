/**
 * The POP lease table through its log (spec pop-timer-filter §A.18): a service started on the
 * directory another one stopped in holds the same leases, identified by the same (popTime,
 * ckQueueOffset), the same next offsets and the same ordered batches, whether the records came
 * before or after a checkpoint; an acked lease stays acked.
 */
import { afterEach, expect, test } from "bun:test";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BrokerContext } from "../../broker/context.ts";
import { ConsumerOffsets } from "../../broker/metadata/consumer-offsets.ts";
import { PopService } from "../../broker/services/pop-leases.ts";
import { silent } from "../integration/harness.ts";

function fakeContext(): BrokerContext {
  return {
    offsets: new ConsumerOffsets("/nonexistent", silent),
    store: { onMessageArrived: () => () => {} },
    log: silent,
    storeConfig: { maxTransferBytesOnMessageInMemory: 1 << 18 },
  } as unknown as BrokerContext;
}

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

const terms = (popTime: number, ckOffset: number) => ({
  ckOffset,
  popTime,
  invisibleTime: 600_000,
  reviveQid: 2,
});

test("leases, next offsets and ordered batches come back after a stop, with records before and after a checkpoint", async () => {
  const dir = await mkdtemp(join(tmpdir(), "rocketbun-pop-recovery-"));
  dirs.push(dir);
  const now = Date.now();
  const first = new PopService(fakeContext(), dir);
  await first.start();
  const q = first.queue("G", "T", "T", 0);
  first.popOffset(q, () => 0);
  await first.popped(q, terms(now, 0), [0, 1, 2], 3);
  expect(first.ack("G", "T", 0, 1, now, 0)).toBe(true);
  first.change("G", "T", 0, 2, 600_000, 2, now + 5);
  const ordered = first.queue("G", "TO", "TO", 1);
  await first.ordered.popped(ordered, now, 600_000, 7, [7, 8], null).durable;
  await first.checkpoint();
  await first.popped(q, terms(now + 9, 3), [3, 4], 5);
  expect(first.ack("G", "T", 0, 4, now + 9, 3)).toBe(true);
  await first.stop();

  const second = new PopService(fakeContext(), dir);
  await second.start();
  const q2 = second.findQueue("G", "T", 0)!;
  expect({
    leases: second.leaseCount,
    popped: q2.popped,
    offsets: [...q2.leases.keys()].sort(),
    order: second.findQueue("G", "TO", 1)?.order?.offsets,
  }).toEqual({ leases: 3, popped: 5, offsets: [0, 2, 3], order: [7, 8] });
  // Handles from before the stop: the superseded one is stale, the others ack.
  expect([
    second.ack("G", "T", 0, 2, now, 0),
    second.ack("G", "T", 0, 0, now, 0),
    second.ack("G", "T", 0, 2, now + 5, 2),
    second.ack("G", "T", 0, 3, now + 9, 3),
  ]).toEqual([false, true, true, true]);
  await second.stop();
});
