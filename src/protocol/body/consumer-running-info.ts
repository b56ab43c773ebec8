/**
 * ConsumerRunningInfo: a consumer's answer to GET_CONSUMER_RUNNING_INFO (307), which a broker
 * forwards from an admin (mqadmin consumerStatus, consumerProgress -s). Java writes it with
 * fastjson: `mqTable` is a map keyed by MessageQueue objects (see queue-keyed.ts), `properties` a
 * string map in which PROP_CONSUMEORDERLY tells an orderly consumer, and each queue's
 * ProcessQueueInfo says whether the consumer holds its broker lock.
 */
import { writeJson } from "../json/write.ts";
import { decodeQueueKeyedBody, type MessageQueueKey } from "./queue-keyed.ts";
import type { SubscriptionData } from "./subscription.ts";

/** Java's ConsumerRunningInfo.PROP_* keys. */
export const RunningInfoProp = {
  NAMESERVER_ADDR: "PROP_NAMESERVER_ADDR",
  THREADPOOL_CORE_SIZE: "PROP_THREADPOOL_CORE_SIZE",
  CONSUME_ORDERLY: "PROP_CONSUMEORDERLY",
  CONSUME_TYPE: "PROP_CONSUME_TYPE",
  CLIENT_VERSION: "PROP_CLIENT_VERSION",
  CONSUMER_START_TIMESTAMP: "PROP_CONSUMER_START_TIMESTAMP",
} as const;

/** Java's ProcessQueueInfo (the `droped` spelling is the wire's). */
export interface ProcessQueueInfo {
  commitOffset: number;
  cachedMsgMinOffset: number;
  cachedMsgMaxOffset: number;
  cachedMsgCount: number;
  cachedMsgSizeInMiB: number;
  transactionMsgMinOffset: number;
  transactionMsgMaxOffset: number;
  transactionMsgCount: number;
  locked: boolean;
  tryUnlockTimes: number;
  lastLockTimestamp: number;
  droped: boolean;
  lastPullTimestamp: number;
  lastConsumeTimestamp: number;
}

export interface ConsumerRunningInfo {
  properties: Record<string, string>;
  subscriptionSet: SubscriptionData[];
  mqTable: [MessageQueueKey, ProcessQueueInfo][];
  /** Per topic consume statistics; RocketBun's native client keeps none and sends it empty. */
  statusTable: Record<string, unknown>;
}

/** What an admin reads back: the properties and, per queue, the lock flags. */
export interface RunningInfoView {
  properties: Record<string, string>;
  /** Topic and expression of each subscription (consumerStatus compares them across members). */
  subscriptions: { topic: string; subString: string }[];
  mqTable: [MessageQueueKey, Partial<ProcessQueueInfo>][];
}

const encoder = new TextEncoder();

function compareKey(a: MessageQueueKey, b: MessageQueueKey): number {
  if (a.topic !== b.topic) return a.topic < b.topic ? -1 : 1;
  if (a.brokerName !== b.brokerName) return a.brokerName < b.brokerName ? -1 : 1;
  return a.queueId - b.queueId;
}

/** fastjson's layout, `mqTable` in TreeMap order (Java's MessageQueue.compareTo). */
export function encodeConsumerRunningInfo(info: ConsumerRunningInfo): Uint8Array {
  const rows = [...info.mqTable].sort(([a], [b]) => compareKey(a, b));
  const table = new Map<unknown, ProcessQueueInfo>(
    rows.map(([mq, pq]) => [{ brokerName: mq.brokerName, queueId: mq.queueId, topic: mq.topic }, pq]),
  );
  return encoder.encode(
    writeJson({
      mqTable: table,
      properties: info.properties,
      statusTable: info.statusTable,
      subscriptionSet: info.subscriptionSet,
    }),
  );
}

export function decodeConsumerRunningInfo(body: Uint8Array): RunningInfoView {
  const { fields, table } = decodeQueueKeyedBody(body, "mqTable");
  const props = fields.properties;
  const properties: Record<string, string> = {};
  if (props !== null && typeof props === "object")
    for (const [k, v] of Object.entries(props)) properties[k] = String(v);
  const subs = Array.isArray(fields.subscriptionSet) ? (fields.subscriptionSet as unknown[]) : [];
  const subscriptions = subs.map((raw) => {
    const sub = (raw ?? {}) as { topic?: unknown; subString?: unknown };
    return { topic: String(sub.topic ?? ""), subString: String(sub.subString ?? "") };
  });
  return {
    properties,
    subscriptions,
    mqTable: table.map(([mq, v]) => [mq, (v ?? {}) as Partial<ProcessQueueInfo>]),
  };
}
