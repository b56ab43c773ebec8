/**
 * Queue lock bodies for ordered consumption (spec broker §8.9): LockBatchRequestBody and
 * UnlockBatchRequestBody (one shape), LockBatchResponseBody. Java writes them with fastjson:
 * sorted keys, the queue set as an array of `{"brokerName":..,"queueId":n,"topic":..}`.
 */
import { jsonBytes } from "../json/index.ts";
import { parseJson } from "../json/parse.ts";
import { asArrayOrEmpty, asBool, asInt, asObject, asString } from "../json/read.ts";
import type { MessageQueueKey } from "./queue-keyed.ts";

/** LOCK_BATCH_MQ (41) and UNLOCK_BATCH_MQ (42) request body. */
export interface LockBatchRequest {
  consumerGroup: string;
  clientId: string;
  /** In Java's strict lock mode, false asks the broker to lock on its replicas too. */
  onlyThisBroker: boolean;
  mqSet: MessageQueueKey[];
}

const decoder = new TextDecoder();

function queueOf(v: Parameters<typeof asObject>[0], path: string): MessageQueueKey {
  const o = asObject(v, path);
  return {
    topic: asString(o.topic, `${path}.topic`),
    brokerName: asString(o.brokerName, `${path}.brokerName`),
    queueId: asInt(o.queueId, `${path}.queueId`),
  };
}

/** Sorted keys as fastjson writes them, so Java and our encoder give the same bytes. */
function queueJson(mq: MessageQueueKey): Record<string, unknown> {
  return { brokerName: mq.brokerName, queueId: mq.queueId, topic: mq.topic };
}

export function encodeLockBatchRequest(req: LockBatchRequest): Uint8Array {
  return jsonBytes({
    clientId: req.clientId,
    consumerGroup: req.consumerGroup,
    mqSet: req.mqSet.map(queueJson),
    onlyThisBroker: req.onlyThisBroker,
  });
}

/** Throws BodyShapeError / JsonSyntaxError for a body that is not a LockBatchRequestBody. */
export function decodeLockBatchRequest(body: Uint8Array | null): LockBatchRequest {
  const o = asObject(parseJson(decoder.decode(body ?? new Uint8Array())), "LockBatchRequestBody");
  return {
    consumerGroup: asString(o.consumerGroup, "consumerGroup"),
    clientId: asString(o.clientId, "clientId"),
    onlyThisBroker: asBool(o.onlyThisBroker, "onlyThisBroker", false),
    mqSet: asArrayOrEmpty(o.mqSet, "mqSet").map((q, i) => queueOf(q, `mqSet[${i}]`)),
  };
}

export function encodeLockBatchResponse(locked: readonly MessageQueueKey[]): Uint8Array {
  return jsonBytes({ lockOKMQSet: locked.map(queueJson) });
}

export function decodeLockBatchResponse(body: Uint8Array | null): MessageQueueKey[] {
  if (!body || body.length === 0) return [];
  const o = asObject(parseJson(decoder.decode(body)), "LockBatchResponseBody");
  return asArrayOrEmpty(o.lockOKMQSet, "lockOKMQSet").map((q, i) => queueOf(q, `lockOKMQSet[${i}]`));
}
