/**
 * Bodies of ordered consumption against the layouts Java's fastjson gives them (spec broker §8.9;
 * Java 4.9/5.x LockBatchRequestBody, LockBatchResponseBody, ConsumerRunningInfo): our encoder
 * writes the same text, and Java's text (with fields we do not use) decodes.
 */
import { describe, expect, test } from "bun:test";
import {
  decodeConsumerRunningInfo,
  encodeConsumerRunningInfo,
} from "../../../src/protocol/body/consumer-running-info.ts";
import {
  decodeLockBatchRequest,
  decodeLockBatchResponse,
  encodeLockBatchRequest,
  encodeLockBatchResponse,
} from "../../../src/protocol/body/lock-batch.ts";

const utf8 = new TextEncoder();
const text = (b: Uint8Array) => new TextDecoder().decode(b);
const q = (queueId: number) => ({ topic: "T", brokerName: "broker-a", queueId });

/** What `LockBatchRequestBody.encode()` gives in a Java client, fastjson's sorted keys. */
const JAVA_LOCK_REQUEST =
  '{"clientId":"10.0.0.5@4242","consumerGroup":"OG","mqSet":[{"brokerName":"broker-a","queueId":0,"topic":"T"},{"brokerName":"broker-a","queueId":3,"topic":"T"}],"onlyThisBroker":false}';

describe("lock bodies", () => {
  test("our LockBatchRequestBody is Java's text, and Java's text decodes to it", () => {
    const req = {
      consumerGroup: "OG",
      clientId: "10.0.0.5@4242",
      onlyThisBroker: false,
      mqSet: [q(0), q(3)],
    };
    expect([
      text(encodeLockBatchRequest(req)),
      decodeLockBatchRequest(utf8.encode(JAVA_LOCK_REQUEST)),
    ]).toEqual([JAVA_LOCK_REQUEST, req]);
  });

  test("onlyThisBroker may be absent (Java's default false); an empty mqSet is no queue", () => {
    expect(decodeLockBatchRequest(utf8.encode('{"clientId":"c","consumerGroup":"g"}'))).toEqual({
      consumerGroup: "g",
      clientId: "c",
      onlyThisBroker: false,
      mqSet: [],
    });
  });

  test("LockBatchResponseBody round-trips as {lockOKMQSet:[...]}; an empty body locks nothing", () => {
    const body = encodeLockBatchResponse([q(1)]);
    expect([text(body), decodeLockBatchResponse(body), decodeLockBatchResponse(null)]).toEqual([
      '{"lockOKMQSet":[{"brokerName":"broker-a","queueId":1,"topic":"T"}]}',
      [q(1)],
      [],
    ]);
  });
});

describe("ConsumerRunningInfo", () => {
  const pq = {
    commitOffset: 7,
    cachedMsgMinOffset: 7,
    cachedMsgMaxOffset: 9,
    cachedMsgCount: 3,
    cachedMsgSizeInMiB: 0,
    transactionMsgMinOffset: 0,
    transactionMsgMaxOffset: 0,
    transactionMsgCount: 0,
    locked: true,
    tryUnlockTimes: 0,
    lastLockTimestamp: 1700000000000,
    droped: false,
    lastPullTimestamp: 0,
    lastConsumeTimestamp: 0,
  };

  test("mqTable is written with MessageQueue object keys in Java's TreeMap order", () => {
    const body = encodeConsumerRunningInfo({
      properties: { PROP_CONSUMEORDERLY: "true" },
      subscriptionSet: [],
      mqTable: [
        [q(1), { ...pq, locked: false }],
        [q(0), pq],
      ],
      statusTable: {},
    });
    const s = text(body);
    expect(
      s.startsWith('{"mqTable":{{"brokerName":"broker-a","queueId":0,"topic":"T"}:{"cachedMsgCount":3,'),
    ).toBe(true);
    expect(s.indexOf('"queueId":0')).toBeLessThan(s.indexOf('"queueId":1'));
    expect(decodeConsumerRunningInfo(body)).toEqual({
      properties: { PROP_CONSUMEORDERLY: "true" },
      subscriptions: [],
      mqTable: [
        [q(0), pq],
        [q(1), { ...pq, locked: false }],
      ],
    });
  });

  test("a Java 5.x answer decodes, its other object-keyed table and jstack left aside", () => {
    const java = `{"jstack":"","mqPopTable":{{"brokerName":"broker-a","queueId":2,"topic":"P"}:{"popping":false}},"mqTable":{{"brokerName":"broker-a","queueId":0,"topic":"T"}:{"locked":true,"lastLockTimestamp":5,"droped":false}},"properties":{"PROP_CONSUMEORDERLY":"true","PROP_CONSUME_TYPE":"CONSUME_PASSIVELY","PROP_THREADPOOL_CORE_SIZE":20},"statusTable":{"T":{"consumeFailedMsgs":0,"pullRT":1.5}},"subscriptionSet":[{"topic":"T","subString":"*"}],"userConsumerInfo":{}}`;
    expect(decodeConsumerRunningInfo(utf8.encode(java))).toEqual({
      properties: {
        PROP_CONSUMEORDERLY: "true",
        PROP_CONSUME_TYPE: "CONSUME_PASSIVELY",
        PROP_THREADPOOL_CORE_SIZE: "20",
      },
      subscriptions: [{ topic: "T", subString: "*" }],
      mqTable: [[q(0), { locked: true, lastLockTimestamp: 5, droped: false }]],
    });
  });
});
