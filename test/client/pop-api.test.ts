/**
 * The client's POP helpers that need no broker: the batch-ack bit set is Java's BitSet.toByteArray
 * in base64 (spec pop-timer-filter §A.8's example), and a bad handle is refused before any request.
 */
import { expect, test } from "bun:test";
import { MQClientError } from "../../src/client/errors.ts";
import { bitSet, parseHandle } from "../../src/client/pop-api.ts";

test("bit set of offsets 100, 103, 109 from start 100 is the spec's CQI=", () => {
  expect([bitSet([0, 3, 9]), bitSet([0]), bitSet([7]), bitSet([8])]).toEqual([
    "CQI=",
    "AQ==",
    "gA==",
    "AAE=",
  ]);
});

test("a handle with fewer than 8 fields is INVALID_PARAMETER", () => {
  expect(() => parseHandle("1 2 3")).toThrow(MQClientError);
  expect(parseHandle("100 1700000000000 60000 3 0 broker-a 2 105 4096")).toEqual({
    ckQueueOffset: 100,
    popTime: 1700000000000,
    invisibleTime: 60000,
    reviveQid: 3,
    retryFlag: "0",
    brokerName: "broker-a",
    queueId: 2,
    queueOffset: 105,
    commitLogOffset: 4096,
  });
});
