/**
 * GetConsumerStatusBody: a consumer's answer to GET_CONSUMER_STATUS_FROM_CLIENT (221), its offsets
 * of one topic's queues in `messageQueueTable`, and a broker's answer to
 * INVOKE_BROKER_TO_GET_CONSUMER_STATUS (223), those tables by client id in `consumerTable`. Both
 * tables are keyed by MessageQueue objects, as fastjson writes them (see queue-keyed.ts).
 */
import {
  decodeQueueKeyedBody,
  decodeQueueKeyedMaps,
  type MessageQueueKey,
  queueKeyedMapText,
} from "./queue-keyed.ts";

export type QueueOffsetRows = [MessageQueueKey, number][];

/**
 * A client's `messageQueueTable`, or null when its body has none: Java's client answers a null
 * table for a consumer without an offset store (not a push consumer), which a broker then leaves
 * out of its answer.
 */
export function decodeClientQueueTable(body: Uint8Array): QueueOffsetRows | null {
  const text = new TextDecoder().decode(body);
  if (!/"messageQueueTable"\s*:\s*\{/.test(text)) return null;
  return decodeQueueKeyedBody(body, "messageQueueTable").table.map(([mq, v]) => [mq, Number(v)]);
}

/** The broker's body: every answering client's table, and Java's always-empty `messageQueueTable`. */
export function encodeConsumerStatusBody(consumerTable: ReadonlyMap<string, QueueOffsetRows>): Uint8Array {
  const clients = [...consumerTable].map(([id, rows]) => `${JSON.stringify(id)}:${queueKeyedMapText(rows)}`);
  return new TextEncoder().encode(`{"consumerTable":{${clients.join(",")}},"messageQueueTable":{}}`);
}

/** A client's body (what our test consumers and a native client answer to 221). */
export function encodeClientStatusBody(rows: QueueOffsetRows): Uint8Array {
  return new TextEncoder().encode(`{"messageQueueTable":${queueKeyedMapText(rows)}}`);
}

/** The broker's `consumerTable`, client id → rows (the reading side of 223, for admin tools). */
export function decodeConsumerTable(body: Uint8Array): Map<string, QueueOffsetRows> {
  const out = new Map<string, QueueOffsetRows>();
  for (const [id, rows] of decodeQueueKeyedMaps(body, "consumerTable"))
    out.set(
      id,
      rows.map(([mq, v]) => [mq, Number(v)]),
    );
  return out;
}
