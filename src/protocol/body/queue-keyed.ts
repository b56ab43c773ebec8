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
  forEachMember(text, (name, pos) => {
    if (name === tableName) {
      const map = readQueueKeyedMap(text, pos);
      out.table = map.table;
      return map.end;
    }
    const end = valueEnd(text, pos);
    try {
      out.fields[name] = JSON.parse(text.slice(pos, end));
    } catch {
      // Keyed by objects too; not what the caller asked for.
    }
    return end;
  });
  return out;
}

/**
 * The member `name` of a body whose value maps string keys to queue-keyed maps (GetConsumerStatusBody's
 * `consumerTable`: client id → {<mq>:<offset>}), each map's values parsed as JSON; empty when absent.
 */
export function decodeQueueKeyedMaps(
  body: Uint8Array,
  name: string,
): Map<string, [MessageQueueKey, unknown][]> {
  const text = new TextDecoder().decode(body);
  const out = new Map<string, [MessageQueueKey, unknown][]>();
  forEachMember(text, (member, pos) => {
    if (member !== name) return valueEnd(text, pos);
    const open = text.indexOf("{", pos);
    if (open < 0) return text.length;
    let at = open + 1;
    for (;;) {
      at = skipSeparators(text, at);
      if (at >= text.length || text[at] === "}") return at + 1;
      const keyEnd = valueEnd(text, at);
      const key = JSON.parse(text.slice(at, keyEnd)) as string;
      const map = readQueueKeyedMap(text, skipSeparators(text, text.indexOf(":", keyEnd) + 1));
      out.set(key, map.table);
      at = map.end;
    }
  });
  return out;
}

/**
 * Calls `read` with each top-level member's name and the position of its value; `read` returns
 * where the value ends.
 */
function forEachMember(text: string, read: (name: string, valueAt: number) => number): void {
  let pos = text.indexOf("{") + 1;
  if (pos === 0) return;
  for (;;) {
    pos = skipSeparators(text, pos);
    if (pos >= text.length || text[pos] === "}") return;
    const nameEnd = valueEnd(text, pos);
    const name = JSON.parse(text.slice(pos, nameEnd)) as string;
    pos = read(name, skipSeparators(text, text.indexOf(":", nameEnd) + 1));
  }
}

/** The `{<mq>:<value>,...}` map opening at `pos`, and the position just past it. */
function readQueueKeyedMap(text: string, pos: number): { table: [MessageQueueKey, unknown][]; end: number } {
  const table: [MessageQueueKey, unknown][] = [];
  for (pos++; ; ) {
    pos = skipSeparators(text, pos);
    if (pos >= text.length || text[pos] === "}") return { table, end: pos + 1 };
    const keyEnd = valueEnd(text, pos);
    const key = JSON.parse(text.slice(pos, keyEnd)) as Partial<MessageQueueKey>;
    pos = skipSeparators(text, text.indexOf(":", keyEnd) + 1);
    const end = valueEnd(text, pos);
    const mq = {
      topic: String(key.topic ?? ""),
      brokerName: String(key.brokerName ?? ""),
      queueId: Number(key.queueId ?? -1),
    };
    table.push([mq, JSON.parse(text.slice(pos, end))]);
    pos = end;
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
