/**
 * GetConsumerStatusBody: a consumer's answer to GET_CONSUMER_STATUS_FROM_CLIENT (221), its offsets
 * of one topic's queues in `messageQueueTable`, and a broker's answer to
 * INVOKE_BROKER_TO_GET_CONSUMER_STATUS (223), those tables by client id in `consumerTable`. Both
 * tables are keyed by MessageQueue objects, as fastjson writes them (see queue-keyed.ts).
 */
import { decodeQueueKeyedBody, type MessageQueueKey, queueKeyedMapText } from "./queue-keyed.ts";

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
  const text = new TextDecoder().decode(body);
  const start = text.indexOf('"consumerTable"');
  if (start < 0) return out;
  // Each client's table is a queue-keyed map: read it as the one table of a wrapper object.
  let pos = text.indexOf("{", start) + 1;
  for (;;) {
    while (pos < text.length && /[\s,]/.test(text[pos]!)) pos++;
    if (pos >= text.length || text[pos] !== '"') return out;
    const idEnd = stringEnd(text, pos);
    const id = JSON.parse(text.slice(pos, idEnd)) as string;
    const open = text.indexOf("{", idEnd);
    const close = objectEnd(text, open);
    const wrapped = new TextEncoder().encode(`{"t":${text.slice(open, close)}}`);
    out.set(
      id,
      decodeQueueKeyedBody(wrapped, "t").table.map(([mq, v]) => [mq, Number(v)]),
    );
    pos = close;
  }
}

function stringEnd(text: string, pos: number): number {
  let i = pos + 1;
  for (; i < text.length && text[i] !== '"'; i++) if (text[i] === "\\") i++;
  return i + 1;
}

/** Index just past the object opening at `pos`; strings are skipped whole. */
function objectEnd(text: string, pos: number): number {
  let depth = 0;
  for (let i = pos; i < text.length; i++) {
    const c = text[i];
    if (c === '"') i = stringEnd(text, i) - 1;
    else if (c === "{") depth++;
    else if (c === "}" && --depth === 0) return i + 1;
  }
  return text.length;
}
