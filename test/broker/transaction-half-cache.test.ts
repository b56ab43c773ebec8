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

test("a cached half's body is a copy of its bytes alone, not a view of the socket chunk", () => {
  const chunk = Buffer.alloc(64 * 1024, 1);
  const cache = new HalfCache();
  cache.stored(halfIn(chunk, 100, 1124), stored(4096));
  const half = cache.get(4096)!;
  expect(half.body.length).toBe(1024);
  expect(half.body.buffer.byteLength).toBe(1024);
  chunk.fill(2); // the transport's chunk changes or is dropped: the cached bytes do not follow
  expect(half.body.every((b) => b === 1)).toBe(true);
  expect(half.queueOffset).toBe(7);
  cache.forget(4096);
  expect(cache.get(4096)).toBeUndefined();
});
