/**
 * The transaction checker's op-record bookkeeping without a network (spec broker §10.2, §10.3): op
 * records this broker writes are known at once and not read back from the store; op records it did
 * not write (another process's, or from before a restart) are still read.
 */
import { expect, test } from "bun:test";
import { ConsumerOffsets } from "../../broker/metadata/consumer-offsets.ts";
import { HalfProgress } from "../../broker/services/transaction/half-progress.ts";
import { OpWriter } from "../../broker/services/transaction/op-writer.ts";
import { MemoryMessageStore } from "../../broker/store/memory-store.ts";
import type { TopicManager } from "../../broker/topics/topic-manager.ts";
import { TRANS_OP_HALF_TOPIC } from "../../src/protocol/topic-names.ts";
import { TRANS_CHECK_GROUP } from "../../src/protocol/transaction.ts";
import { silent } from "../integration/harness.ts";

const host = { ip: new Uint8Array([127, 0, 0, 1]), port: 10911 };
const topics = { createIfAbsent: async () => undefined } as unknown as TopicManager;

/** A store that counts the records read back. */
async function countingStore() {
  const store = new MemoryMessageStore();
  await store.open();
  let recordsRead = 0;
  const readRecords = store.readRecords.bind(store);
  store.readRecords = async (spans) => {
    recordsRead += spans.length;
    return readRecords(spans);
  };
  return { store, recordsRead: () => recordsRead };
}

function writerFor(store: MemoryMessageStore, progress: HalfProgress | null): OpWriter {
  return new OpWriter({
    store,
    topics,
    storeHost: () => host,
    onStored: (halves, at) => progress?.markWritten(halves, at),
    log: silent,
  });
}

test("op records this broker wrote finish their halves without being read back", async () => {
  const { store, recordsRead } = await countingStore();
  const offsets = new ConsumerOffsets("/nonexistent", silent);
  const progress = new HalfProgress(store, offsets);
  progress.load();
  const writer = writerFor(store, progress);
  expect(await Promise.all([writer.finish(0), writer.finish(1), writer.finish(2)])).toEqual([
    true,
    true,
    true,
  ]);
  await writer.finish(5);
  await progress.readOps();
  expect(recordsRead()).toBe(0);
  expect([0, 1, 2, 3, 4, 5].map((o) => progress.isFinished(o))).toEqual([
    true,
    true,
    true,
    false,
    false,
    true,
  ]);
  // The op offset still follows the records: every half before 6 walked past, every op record done.
  progress.advance(6);
  const opRecords = store.getMaxOffsetInQueue(TRANS_OP_HALF_TOPIC, 0);
  expect(opRecords).toBeGreaterThan(0);
  expect(offsets.query(TRANS_CHECK_GROUP, TRANS_OP_HALF_TOPIC, 0)).toBe(opRecords);
});

test("op records written elsewhere (before a restart) are read back and finish their halves", async () => {
  const { store, recordsRead } = await countingStore();
  const offsets = new ConsumerOffsets("/nonexistent", silent);
  // Written by a writer whose progress is gone, as after a restart.
  const before = writerFor(store, null);
  await Promise.all([before.finish(3), before.finish(4)]);
  const progress = new HalfProgress(store, offsets);
  progress.load();
  const writer = writerFor(store, progress);
  await writer.finish(7);
  await progress.readOps();
  expect(recordsRead()).toBe(store.getMaxOffsetInQueue(TRANS_OP_HALF_TOPIC, 0) - 1);
  expect([3, 4, 5, 6, 7].map((o) => progress.isFinished(o))).toEqual([true, true, false, false, true]);
  // Advancing keeps the op offset at the first record naming a half not walked past.
  progress.advance(5);
  expect(offsets.query(TRANS_CHECK_GROUP, TRANS_OP_HALF_TOPIC, 0)).toBe(
    store.getMaxOffsetInQueue(TRANS_OP_HALF_TOPIC, 0) - 1,
  );
});

test("ends waiting while an op record is written share the next record, split at the body cap", async () => {
  const { store } = await countingStore();
  const named: number[][] = [];
  const writer = new OpWriter({
    store,
    topics,
    storeHost: () => host,
    onStored: (halves) => named.push([...halves]),
    log: silent,
  });
  // The first end is written at once; the 1,000 after it wait for that write: 10-digit offsets
  // take 11 bytes each, so 372 fit a 4096-byte body (4092 bytes).
  const first = 1_000_000_000;
  const ends = Array.from({ length: 1001 }, (_, i) => writer.finish(first + i));
  expect((await Promise.all(ends)).every((stored) => stored)).toBe(true);
  expect(named.map((h) => h.length)).toEqual([1, 372, 372, 256]);
  expect(named.flat()).toEqual(Array.from({ length: 1001 }, (_, i) => first + i));
});
