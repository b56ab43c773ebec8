/**
 * Admin bodies keyed by MessageQueue (TopicStatsTable, ConsumeStats, ResetOffsetBody). Java maps them
 * as HashMap<MessageQueue, V>, which fastjson writes with the queue object itself as the key:
 * `{"offsetTable":{{"brokerName":"b","queueId":0,"topic":"T"}:{...}}}`. Java clients parse exactly
 * that, so we write it; it is not standard JSON.
 */
export interface MessageQueueKey {
  topic: string;
  brokerName: string;
  queueId: number;
}

function mqText(mq: MessageQueueKey): string {
  return `{"brokerName":${JSON.stringify(mq.brokerName)},"queueId":${mq.queueId},"topic":${JSON.stringify(mq.topic)}}`;
}

/** `{"offsetTable":{<mq>:<value>,...}, ...extra}` with fastjson's object keys. */
export function encodeQueueKeyedTable(
  rows: ReadonlyArray<readonly [MessageQueueKey, unknown]>,
  extra: Record<string, unknown> = {},
): Uint8Array {
  return new TextEncoder().encode(queueKeyedTableText(rows, extra));
}

/** The text of `encodeQueueKeyedTable`, for bodies that nest such tables (ConsumeStatsList). */
export function queueKeyedTableText(
  rows: ReadonlyArray<readonly [MessageQueueKey, unknown]>,
  extra: Record<string, unknown> = {},
): string {
  const table = queueKeyedMapText(rows);
  const rest = Object.entries(extra)
    .map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)},`)
    .join("");
  return `{${rest}"offsetTable":${table}}`;
}

/** A bare Map<MessageQueue, V> as fastjson writes it: `{<mq>:<value>,...}`. */
export function queueKeyedMapText(rows: ReadonlyArray<readonly [MessageQueueKey, unknown]>): string {
  return `{${rows.map(([mq, v]) => `${mqText(mq)}:${JSON.stringify(v)}`).join(",")}}`;
}

export interface QueueKeyedBody {
  /** The body's other members (ConsumeStats' consumeTps, ...). */
  fields: Record<string, unknown>;
  /** `offsetTable`, one [queue, value] per entry, values parsed as JSON. */
  table: [MessageQueueKey, unknown][];
}

/**
 * Reads such a body. A scanner rather than JSON.parse, since the table's keys are objects; strings
 * are skipped as units so braces inside them do not count. `tableName` is the member keyed by
 * queues (`mqTable` in ConsumerRunningInfo); another member that is not JSON (a second table with
 * object keys, such as 5.x's `mqPopTable`) is left out of `fields`.
 */
export function decodeQueueKeyedBody(body: Uint8Array, tableName = "offsetTable"): QueueKeyedBody {
  const text = new TextDecoder().decode(body);
  const out: QueueKeyedBody = { fields: {}, table: [] };
  let pos = text.indexOf("{") + 1;
  if (pos === 0) return out;
  for (;;) {
    pos = skipSeparators(text, pos);
    if (pos >= text.length || text[pos] === "}") return out;
    const nameEnd = valueEnd(text, pos);
    const name = JSON.parse(text.slice(pos, nameEnd)) as string;
    pos = text.indexOf(":", nameEnd) + 1;
    pos = skipSeparators(text, pos);
    if (name !== tableName) {
      const end = valueEnd(text, pos);
      try {
        out.fields[name] = JSON.parse(text.slice(pos, end));
      } catch {
        // Keyed by objects too; not what the caller asked for.
      }
      pos = end;
      continue;
    }
    for (pos++; ; ) {
      pos = skipSeparators(text, pos);
      if (pos >= text.length || text[pos] === "}") break;
      const keyEnd = valueEnd(text, pos);
      const key = JSON.parse(text.slice(pos, keyEnd)) as Partial<MessageQueueKey>;
      pos = skipSeparators(text, text.indexOf(":", keyEnd) + 1);
      const end = valueEnd(text, pos);
      const mq = {
        topic: String(key.topic ?? ""),
        brokerName: String(key.brokerName ?? ""),
        queueId: Number(key.queueId ?? -1),
      };
      out.table.push([mq, JSON.parse(text.slice(pos, end))]);
      pos = end;
    }
    pos++;
  }
}

/** Just the `offsetTable` entries of such a body. */
export function decodeQueueKeyedTable(body: Uint8Array): [MessageQueueKey, unknown][] {
  return decodeQueueKeyedBody(body).table;
}

function skipSeparators(text: string, pos: number): number {
  while (pos < text.length && /[\s,]/.test(text[pos]!)) pos++;
  return pos;
}

/** Index just past the JSON value starting at `pos` (an object, array, string or scalar). */
function valueEnd(text: string, pos: number): number {
  let depth = 0;
  for (let i = pos; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === "\\") i++;
      if (depth === 0) return i + 1;
    } else if (c === "{" || c === "[") depth++;
    else if (c === "}" || c === "]") {
      if (depth === 0) return i;
      if (--depth === 0) return i + 1;
    } else if (depth === 0 && c === ",") return i;
  }
  return text.length;
}
