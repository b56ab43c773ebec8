/**
 * Batched CommitLog reads (broker/store/record-reader.ts): a batch gathers its records in one
 * buffer, read per run of nearby records, with the records of other queues in between copied past;
 * what it returns must be byte for byte what reading each record alone returns, across segment
 * boundaries, from disk and from the append buffers.
 */
import { expect, test } from "bun:test";
import { FileMessageStore } from "../../../broker/store/file-store.ts";
import {
  joinRecords,
  SCRATCH_BYTES_MAX,
  SCRATCH_KEPT_MAX,
  ScratchBuffers,
} from "../../../broker/store/read-buffers.ts";
import { message, openedFileStore, tempDir } from "./helpers.ts";

const TOPIC = "ReadsT";
const QUEUES = 3;
/** Small segments, so a queue's records lie in several files. */
const SEGMENT_BYTES = 8 * 1024;

const hex = (r: Uint8Array | undefined) => (r ? Buffer.from(r).toString("hex") : undefined);

/** Bodies of varied sizes, each naming its place, spread over the queues in turn. */
async function putSome(store: FileMessageStore, from: number, n: number): Promise<void> {
  for (let i = from; i < from + n; i++) {
    const body = `m${i}:${"x".repeat((i * 97) % 900)}`;
    await store.putMessage(message(TOPIC, i % QUEUES, body, { TAGS: `t${i % 5}` }));
  }
}

async function spansOf(store: FileMessageStore, queueId: number): Promise<[number, number][]> {
  const out: [number, number][] = [];
  // A read stops where the written units end and the buffered ones begin: read on from there.
  while (out.length < store.getMaxOffsetInQueue(TOPIC, queueId)) {
    const units = await store.readQueueUnits(TOPIC, queueId, out.length, 1000);
    if (units.length === 0) throw new Error(`queue ${queueId} stops at ${out.length}`);
    for (const u of units) out.push([u.phyOffset, u.size]);
  }
  return out;
}

async function singles(store: FileMessageStore, spans: readonly [number, number][]) {
  const out: (string | undefined)[] = [];
  for (const s of spans) out.push(hex((await store.readRecords([s]))[0]));
  return out;
}

test("a batch read returns each record byte for byte as a read of that record alone, across segments, with other queues' records between", async () => {
  await using dir = await tempDir();
  const open = async () => {
    const store = new FileMessageStore({
      storePathRootDir: dir.path,
      mappedFileSizeCommitLog: SEGMENT_BYTES,
    });
    await store.open();
    return store;
  };
  const first = await open();
  await putSome(first, 0, 90);
  await first.shutdown();
  // Reopened: the first records are read from disk, the later ones may still be in append buffers.
  const store = await open();
  try {
    await putSome(store, 90, 30);
    const perQueue = await Promise.all(Array.from({ length: QUEUES }, (_, q) => spansOf(store, q)));
    const all = perQueue.flat().sort((a, b) => a[0] - b[0]);
    expect(all.length).toBe(120);
    const segments = new Set(all.map(([p]) => Math.floor(p / SEGMENT_BYTES)));
    expect(segments.size).toBeGreaterThan(5);
    for (const spans of [...perQueue, all]) {
      const batch = await store.readRecords(spans);
      expect(batch.map(hex)).toEqual(await singles(store, spans));
      expect(batch.every((r) => r !== undefined)).toBe(true);
    }
    // Each record names its place: the batch is the right records in the right order.
    const bodies = (await store.readRecords(all)).map(
      (r) => /m(\d+):/.exec(Buffer.from(r!).toString("latin1"))![1],
    );
    expect(bodies).toEqual(Array.from({ length: 120 }, (_, i) => String(i)));
  } finally {
    await store.shutdown();
  }
});

test("a batch read gathers its records in one buffer, back to back, in the order asked", async () => {
  await using dir = await tempDir();
  await using store = await openedFileStore(dir.path, { mappedFileSizeCommitLog: 64 * 1024 });
  await putSome(store, 0, 30);
  const spans = await spansOf(store, 1);
  const batch = (await store.readRecords(spans)) as Uint8Array[];
  expect(new Set(batch.map((r) => r.buffer)).size).toBe(1);
  for (let i = 1; i < batch.length; i++)
    expect(batch[i]!.byteOffset).toBe(batch[i - 1]!.byteOffset + batch[i - 1]!.byteLength);
  // So an answer's body is a view of the batch, byte for byte the records one after another.
  const body = joinRecords(batch);
  expect([body.buffer === batch[0]!.buffer, hex(body)]).toEqual([true, hex(Buffer.concat(batch))]);
  // Records not back to back (out of order here) are copied.
  const swapped = [batch[1]!, batch[0]!];
  const copy = joinRecords(swapped);
  expect([copy.buffer === batch[0]!.buffer, hex(copy)]).toEqual([false, hex(Buffer.concat(swapped))]);
});

test("a span that is not a record reads as undefined without spoiling its neighbours in the batch", async () => {
  await using dir = await tempDir();
  await using store = await openedFileStore(dir.path, { mappedFileSizeCommitLog: SEGMENT_BYTES });
  await putSome(store, 0, 12);
  const spans = await spansOf(store, 0);
  const [p, s] = spans[1]!;
  const mixed: [number, number][] = [spans[0]!, [p + 1, s], ...spans.slice(2), [1 << 30, 100]];
  const batch = await store.readRecords(mixed);
  const alone = await singles(store, spans);
  expect(batch.map(hex)).toEqual([alone[0], undefined, ...alone.slice(2), undefined]);
});

test("scratch buffers kept between reads are bounded in number and size", () => {
  const pool = new ScratchBuffers();
  const taken = Array.from({ length: SCRATCH_KEPT_MAX + 3 }, () => pool.take(1000));
  taken.push(pool.take(SCRATCH_BYTES_MAX * 3));
  for (const b of taken) pool.release(b);
  expect(pool.keptBytes).toBe(SCRATCH_KEPT_MAX * SCRATCH_BYTES_MAX);
  // A kept buffer is handed out again rather than a new one.
  const again = pool.take(SCRATCH_BYTES_MAX);
  expect(taken).toContain(again);
});

test("a run the CommitLog cannot read whole (part written, part still buffered) is read record by record, byte for byte", async () => {
  await using dir = await tempDir();
  await using store = await openedFileStore(dir.path, { mappedFileSizeCommitLog: 64 * 1024 });
  await putSome(store, 0, 40);
  const all = (await Promise.all(Array.from({ length: QUEUES }, (_, q) => spansOf(store, q))))
    .flat()
    .sort((a, b) => a[0] - b[0]);
  const expected = await singles(store, all);
  // A boundary inside the batch: a range crossing it is refused as the CommitLog refuses one
  // that runs past what was written, while each record on either side still reads alone.
  const boundary = all[17]![0];
  const cl = store.cl;
  const readInto = cl.readInto.bind(cl);
  const refused: [number, number][] = [];
  cl.readInto = async (target, at, offset, len) => {
    if (offset < boundary && offset + len > boundary) {
      refused.push([offset, len]);
      return false;
    }
    return readInto(target, at, offset, len);
  };
  const batch = await store.readRecords(all);
  expect(refused.length).toBeGreaterThan(0);
  expect(batch.map(hex)).toEqual(expected);
  // The fallback still gathers the batch back to back in one buffer.
  const records = batch as Uint8Array[];
  expect(new Set(records.map((r) => r.buffer)).size).toBe(1);
  for (let i = 1; i < records.length; i++)
    expect(records[i]!.byteOffset).toBe(records[i - 1]!.byteOffset + records[i - 1]!.byteLength);
});
