/**
 * The half cache END_TRANSACTION reads instead of the CommitLog: a remembered half owns its body.
 * A request's body is a view into the socket chunk it arrived in, a Buffer, and Buffer#slice is a
 * view too: a cache entry made that way kept the whole chunk alive until its END.
 */
import { expect, test } from "bun:test";
import { HalfCache } from "../../broker/services/transaction/half-cache.ts";
import type { MessageToStore, PutMessageResult } from "../../broker/store/message-store.ts";
import { PutMessageStatus } from "../../broker/store/status.ts";
import { TRANS_HALF_TOPIC } from "../../src/protocol/topic-names.ts";

const host = { ip: new Uint8Array([127, 0, 0, 1]), port: 10911 };

function halfIn(chunk: Buffer, from: number, to: number): MessageToStore {
  return {
    topic: TRANS_HALF_TOPIC,
    queueId: 0,
    flag: 0,
    body: chunk.subarray(from, to),
    properties: new Map([["TRAN_MSG", "true"]]),
    propertiesString: "TRAN_MSG\u0001true\u0002",
    bornTimestamp: 1,
    bornHost: host,
    storeHost: host,
    sysFlag: 0,
    reconsumeTimes: 0,
    preparedTransactionOffset: 0,
  };
}

const stored = (wroteOffset: number) =>
  ({
    status: PutMessageStatus.PUT_OK,
    result: { wroteOffset, queueOffset: 7 },
  }) as unknown as PutMessageResult;

test("a cached half's body is a copy of its bytes, not a view of the socket chunk", () => {
  const chunk = Buffer.alloc(64 * 1024, 1);
  const cache = new HalfCache();
  cache.stored(halfIn(chunk, 100, 1124), stored(4096));
  const half = cache.hold(4096)!;
  expect(half.body.length).toBe(1024);
  expect(half.body.buffer).not.toBe(chunk.buffer);
  chunk.fill(2); // the transport's chunk changes or is dropped: the cached bytes do not follow
  expect(half.body.every((b) => b === 1)).toBe(true);
  expect(half.queueOffset).toBe(7);
  cache.release(half);
  cache.forget(4096);
  expect(cache.hold(4096)).toBeUndefined();
});

/** A chunk whose bytes at [i * 100, i * 100 + 100) are all `i % 256`. */
function numberedChunk(count: number): Buffer {
  const chunk = Buffer.alloc(count * 100);
  for (let i = 0; i < count; i++) chunk.fill(i % 256, i * 100, i * 100 + 100);
  return chunk;
}

test("a half whose slab bytes a later body overwrites leaves the cache; the rest keep their bytes", () => {
  const chunk = numberedChunk(30);
  const cache = new HalfCache(1000); // room for ten 100-byte bodies
  for (let i = 0; i < 25; i++) cache.stored(halfIn(chunk, i * 100, i * 100 + 100), stored(i));
  for (let i = 0; i < 15; i++) expect(cache.has(i)).toBe(false);
  for (let i = 15; i < 25; i++) {
    const half = cache.hold(i)!;
    expect(half.body.every((b) => b === i)).toBe(true);
    cache.release(half);
  }
});

test("a held half keeps its slab bytes: the body that would overwrite them gets its own copy", () => {
  const chunk = numberedChunk(30);
  const cache = new HalfCache(1000);
  for (let i = 0; i < 10; i++) cache.stored(halfIn(chunk, i * 100, i * 100 + 100), stored(i));
  const held = cache.hold(0)!;
  for (let i = 10; i < 20; i++) cache.stored(halfIn(chunk, i * 100, i * 100 + 100), stored(i));
  expect(held.body.every((b) => b === 0)).toBe(true);
  expect(cache.has(0)).toBe(true);
  for (let i = 10; i < 20; i++) {
    const half = cache.hold(i)!;
    expect(half.body.every((b) => b === i)).toBe(true);
    cache.release(half);
  }
  cache.release(held);
  cache.forget(0);
  // Released and forgotten: the ring moves past it again.
  cache.stored(halfIn(chunk, 2000, 2100), stored(20));
  expect(cache.hold(20)!.body.buffer.byteLength).toBe(1000);
});

test("a body too large for the slab gets a copy of its own", () => {
  const chunk = Buffer.alloc(200 * 1024, 3);
  const cache = new HalfCache();
  cache.stored(halfIn(chunk, 0, 100 * 1024), stored(1));
  const half = cache.hold(1)!;
  expect(half.body.buffer.byteLength).toBe(100 * 1024);
  expect(half.body.every((b) => b === 3)).toBe(true);
});

test("a body that does not fit before the slab's end goes to its start, over the oldest only", () => {
  const chunk = Buffer.alloc(3000);
  for (let i = 0; i < 10; i++) chunk.fill(i + 1, i * 300, i * 300 + 300);
  const cache = new HalfCache(1000); // three 300-byte bodies, then 100 bytes left over
  for (let i = 0; i < 4; i++) cache.stored(halfIn(chunk, i * 300, i * 300 + 300), stored(i));
  expect(cache.has(0)).toBe(false);
  for (let i = 1; i < 4; i++) {
    const half = cache.hold(i)!;
    expect(half.body.every((b) => b === i + 1)).toBe(true);
    cache.release(half);
  }
});

test("a held half forgotten by the count bound keeps its slab bytes until released", () => {
  const chunk = numberedChunk(30);
  const cache = new HalfCache(1000);
  for (let i = 0; i < 10; i++) cache.stored(halfIn(chunk, i * 100, i * 100 + 100), stored(i));
  const held = cache.hold(0)!;
  cache.forget(0);
  expect(cache.has(0)).toBe(false);
  expect(cache.hold(0)).toBeUndefined();
  cache.stored(halfIn(chunk, 1000, 1100), stored(10));
  expect(held.body.every((b) => b === 0)).toBe(true);
  expect(cache.hold(10)!.body.every((b) => b === 10)).toBe(true);
  cache.release(held);
  cache.stored(halfIn(chunk, 1100, 1200), stored(11));
  expect(cache.hold(11)!.body.buffer.byteLength).toBe(1000);
});
