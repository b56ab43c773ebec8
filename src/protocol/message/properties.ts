/**
 * Message properties: the `name U+0001 value U+0002` string codec (spec §2.1) and the
 * well-known property keys the broker and store act on (spec §2.2).
 */

export const NAME_VALUE_SEPARATOR = "\u0001";
export const PROPERTY_SEPARATOR = "\u0002";

/** Largest properties string in UTF-8 bytes: its length field in the record is an i16 (spec §1.7). */
export const PROPERTIES_BYTES_MAX = 32767;

/** `MessageConst` keys used by the store and broker (spec §2.2). */
export const MessageConst = {
  KEYS: "KEYS",
  TAGS: "TAGS",
  WAIT: "WAIT",
  DELAY: "DELAY",
  RETRY_TOPIC: "RETRY_TOPIC",
  REAL_TOPIC: "REAL_TOPIC",
  REAL_QID: "REAL_QID",
  TRAN_MSG: "TRAN_MSG",
  PGROUP: "PGROUP",
  MIN_OFFSET: "MIN_OFFSET",
  MAX_OFFSET: "MAX_OFFSET",
  ORIGIN_MESSAGE_ID: "ORIGIN_MESSAGE_ID",
  RECONSUME_TIME: "RECONSUME_TIME",
  MSG_REGION: "MSG_REGION",
  TRACE_ON: "TRACE_ON",
  UNIQ_KEY: "UNIQ_KEY",
  MAX_RECONSUME_TIMES: "MAX_RECONSUME_TIMES",
  CONSUME_START_TIME: "CONSUME_START_TIME",
  TRAN_PREPARED_QUEUE_OFFSET: "TRAN_PREPARED_QUEUE_OFFSET",
  TRANSACTION_ID: "__transactionId__",
  TRANSACTION_CHECK_TIMES: "TRANSACTION_CHECK_TIMES",
  CHECK_IMMUNITY_TIME_IN_SECONDS: "CHECK_IMMUNITY_TIME_IN_SECONDS",
  INSTANCE_ID: "INSTANCE_ID",
  CORRELATION_ID: "CORRELATION_ID",
  REPLY_TO_CLIENT: "REPLY_TO_CLIENT",
  TTL: "TTL",
  ARRIVE_TIME: "ARRIVE_TIME",
  PUSH_REPLY_TIME: "PUSH_REPLY_TIME",
  CLUSTER: "CLUSTER",
  MSG_TYPE: "MSG_TYPE",
  INNER_NUM: "INNER_NUM",
  TIMER_DELIVER_MS: "TIMER_DELIVER_MS",
  TIMER_DELAY_SEC: "TIMER_DELAY_SEC",
  TIMER_DELAY_MS: "TIMER_DELAY_MS",
  TIMER_OUT_MS: "TIMER_OUT_MS",
  TIMER_ENQUEUE_MS: "TIMER_ENQUEUE_MS",
  TIMER_DEQUEUE_MS: "TIMER_DEQUEUE_MS",
  TIMER_ROLL_TIMES: "TIMER_ROLL_TIMES",
  TIMER_DEL_UNIQKEY: "TIMER_DEL_UNIQKEY",
  /** [5.x] born time a proxy or RECALL_MESSAGE records as a property. */
  BORN_TIMESTAMP: "BORN_TIMESTAMP",
  /** Aliyun ONS / ali-ons `setStartDeliverTime`: absolute deliver time, epoch ms. */
  START_DELIVER_TIME: "__STARTDELIVERTIME",
  CRC32: "__CRC32#",
} as const;

/** Separator between several keys inside `KEYS` (spec §2.1). */
export const KEY_SEPARATOR = " ";

/**
 * Encodes properties. Entries with an empty key or value are dropped because no parser keeps
 * them; the trailing U+0002 is kept, as 5.2.0+ does (parsers accept both forms).
 */
export function encodeProperties(props: ReadonlyMap<string, string>): string {
  let s = "";
  for (const [k, v] of props) {
    if (k.length === 0 || v.length === 0) continue;
    s += k + NAME_VALUE_SEPARATOR + v + PROPERTY_SEPARATOR;
  }
  return s;
}

/**
 * Calls `entry` for each entry of a properties string that Java's `string2messageProperties`
 * keeps (a non-empty name and value), in order, with the positions of the name `[start, sep)`
 * and the value `[sep + 1, end)`. A later duplicate comes later: the caller's last write wins.
 */
export function scanProperties(s: string, entry: (start: number, sep: number, end: number) => void): void {
  let start = 0;
  while (start < s.length) {
    let end = s.indexOf(PROPERTY_SEPARATOR, start);
    if (end < 0) end = s.length;
    const sep = s.indexOf(NAME_VALUE_SEPARATOR, start);
    if (end - start >= 3 && sep > start && sep < end - 1) entry(start, sep, end);
    start = end + 1;
  }
}

/** Decodes a properties string the way Java's `string2messageProperties` does. */
export function decodeProperties(s: string): Map<string, string> {
  const map = new Map<string, string>();
  scanProperties(s, (start, sep, end) => map.set(s.slice(start, sep), s.slice(sep + 1, end)));
  return map;
}

/** A copy of `props` with the `remove` keys dropped, then the `set` entries put. */
export function editProperties(
  props: Iterable<readonly [string, string]>,
  set: Readonly<Record<string, string>> = {},
  remove: readonly string[] = [],
): Map<string, string> {
  const out = new Map(props);
  for (const key of remove) out.delete(key);
  for (const [key, value] of Object.entries(set)) out.set(key, value);
  return out;
}

/**
 * `encodeProperties(editProperties(decodeProperties(s), set, remove))` without the maps: the
 * entries of `s` not named in `remove` or `set`, as they are, then the `set` entries. Decoding
 * either string gives the same map.
 */
export function editPropertiesString(
  s: string,
  set: Readonly<Record<string, string>> = {},
  remove: readonly string[] = [],
): string {
  let out = "";
  scanProperties(s, (start, sep, end) => {
    const name = s.slice(start, sep);
    if (!remove.includes(name) && set[name] === undefined) out += s.slice(start, end) + PROPERTY_SEPARATOR;
  });
  for (const [key, value] of Object.entries(set)) {
    if (key.length > 0 && value.length > 0) out += key + NAME_VALUE_SEPARATOR + value + PROPERTY_SEPARATOR;
  }
  return out;
}

/** The individual keys of a `KEYS` value (space separated; empty parts skipped). */
export function splitKeys(keys: string | undefined): string[] {
  if (!keys) return [];
  return keys.split(KEY_SEPARATOR).filter((k) => k.length > 0);
}

/**
 * The value `decodeProperties(s).get(key)` would give, found by scanning `s` without building a
 * map: the last entry named `key` whose value is not empty.
 */
export function findProperty(s: string, key: string): string | undefined {
  const needle = needleOf(key);
  // Forward: JSC's indexOf is far faster than lastIndexOf. The last match wins, as in decoding.
  let valueAt = -1;
  let valueEnd = -1;
  for (let at = s.indexOf(needle); at >= 0; at = s.indexOf(needle, at + 1)) {
    // A name starts the string or follows U+0002; anywhere else the match is inside a value.
    if (at !== 0 && s.charCodeAt(at - 1) !== 2) continue;
    const from = at + needle.length;
    let end = s.indexOf(PROPERTY_SEPARATOR, from);
    if (end < 0) end = s.length;
    if (end > from) {
      valueAt = from;
      valueEnd = end;
    }
  }
  return valueAt < 0 ? undefined : s.slice(valueAt, valueEnd);
}

/** `key + U+0001` per key looked up; keys are a handful of constants. */
const needles = new Map<string, string>();
const NEEDLES_MAX = 256;
const PROPERTY_SEPARATOR_CODE = 2;

function needleOf(key: string): string {
  let needle = needles.get(key);
  if (needle === undefined) {
    if (needles.size >= NEEDLES_MAX) needles.clear();
    needle = key + NAME_VALUE_SEPARATOR;
    needles.set(key, needle);
  }
  return needle;
}

/** Keys the broker and store read on every send; `pickCanonical` finds them in its one pass. */
export const PICKED_KEYS: readonly string[] = [
  MessageConst.TAGS,
  MessageConst.KEYS,
  MessageConst.UNIQ_KEY,
  MessageConst.WAIT,
  MessageConst.DELAY,
  MessageConst.TIMER_DELIVER_MS,
  MessageConst.TIMER_DELAY_SEC,
  MessageConst.TIMER_DELAY_MS,
  MessageConst.START_DELIVER_TIME,
  MessageConst.TRAN_MSG,
  MessageConst.CLUSTER,
  MessageConst.MSG_REGION,
  MessageConst.TRACE_ON,
  // END_TRANSACTION reads these two of every half message (its producer group, its immunity):
  // picked in the pass made anyway, instead of two scans of the string per transaction.
  MessageConst.PGROUP,
  MessageConst.CHECK_IMMUNITY_TIME_IN_SECONDS,
];

/**
 * If `encodeProperties(decodeProperties(s))` is `s` itself (or `s` plus its missing trailing
 * U+0002), i.e. every entry has a name and a value and no name repeats: the values of
 * `PICKED_KEYS`, by position. Otherwise undefined.
 */
export function pickCanonical(s: string): (string | undefined)[] | undefined {
  const starts = canonicalScratch;
  const picked: (string | undefined)[] = new Array(PICKED_KEYS.length).fill(undefined);
  let n = 0;
  let start = 0;
  while (start < s.length) {
    let end = s.indexOf(PROPERTY_SEPARATOR, start);
    if (end < 0) end = s.length;
    const sep = s.indexOf(NAME_VALUE_SEPARATOR, start);
    if (sep <= start || sep >= end - 1) return undefined;
    const nameLength = sep - start;
    for (let i = 0; i < n; i += 2) {
      if (starts[i + 1]! - starts[i]! === nameLength && sameChars(s, starts[i]!, start, nameLength)) {
        return undefined;
      }
    }
    if (n + 2 > starts.length) return undefined;
    starts[n++] = start;
    starts[n++] = sep;
    for (let k = 0; k < PICKED_KEYS.length; k++) {
      const key = PICKED_KEYS[k]!;
      if (key.length === nameLength && s.startsWith(key, start)) {
        picked[k] = s.slice(sep + 1, end);
        break;
      }
    }
    start = end + 1;
  }
  return picked;
}

/** True if re-encoding the decoded `s` gives `s` back, up to the trailing U+0002 (see `pickCanonical`). */
export function isCanonicalProperties(s: string): boolean {
  return pickCanonical(s) !== undefined;
}

function sameChars(s: string, a: number, b: number, len: number): boolean {
  for (let i = 0; i < len; i++) if (s.charCodeAt(a + i) !== s.charCodeAt(b + i)) return false;
  return true;
}

/** Name bounds of the entries seen so far; 64 entries is far beyond what producers send. */
const canonicalScratch = new Int32Array(128);

/**
 * A read-only view of a properties string that answers `get` from the values `pickCanonical`
 * found, else by scanning the string, and decodes it into a map only when iterated. The send path
 * looks up a handful of keys per message; most messages are never iterated.
 */
export class PropertiesView implements ReadonlyMap<string, string> {
  private decoded: Map<string, string> | undefined;

  /**
   * `picked[i]` must be what the string holds under `PICKED_KEYS[i]`; `added`, entries the string
   * holds once each with those (non-empty) values, answered without a scan (see `appended`).
   */
  constructor(
    readonly encoded: string,
    private readonly picked?: readonly (string | undefined)[],
    private readonly added?: Readonly<Record<string, string>>,
  ) {}

  private map(): Map<string, string> {
    this.decoded ??= decodeProperties(this.encoded);
    return this.decoded;
  }

  /**
   * This view with `entries` appended to its string, keeping the picked values: for keys outside
   * PICKED_KEYS that the string does not hold yet (else undefined, and the caller edits the
   * string instead). What the half-message step adds to every transactional message; the new
   * view answers `get` for them without a scan (END_TRANSACTION reads REAL_TOPIC and REAL_QID),
   * so `entries` is kept and must not change afterwards.
   */
  appended(entries: Readonly<Record<string, string>>): PropertiesView | undefined {
    let s = this.encoded;
    if (s.length > 0 && s.charCodeAt(s.length - 1) !== PROPERTY_SEPARATOR_CODE) s += PROPERTY_SEPARATOR;
    // for-in, not Object.entries: no pair arrays on a path every transaction takes.
    for (const key in entries) {
      const value = entries[key]!;
      if (key.length === 0 || value.length === 0 || PICKED_KEYS.includes(key)) return undefined;
      const needle = needleOf(key);
      if (this.encoded.includes(needle)) return undefined;
      s += needle + value + PROPERTY_SEPARATOR;
    }
    return new PropertiesView(s, this.picked, this.added ? { ...this.added, ...entries } : entries);
  }

  get(key: string): string | undefined {
    if (this.picked) {
      const i = PICKED_KEYS.indexOf(key);
      if (i >= 0) return this.picked[i];
    }
    if (this.added !== undefined && Object.hasOwn(this.added, key)) return this.added[key];
    return this.decoded ? this.decoded.get(key) : findProperty(this.encoded, key);
  }

  has(key: string): boolean {
    return this.get(key) !== undefined;
  }

  get size(): number {
    return this.map().size;
  }

  forEach(fn: (value: string, key: string, map: ReadonlyMap<string, string>) => void, thisArg?: unknown) {
    for (const [k, v] of this.map()) fn.call(thisArg, v, k, this);
  }

  entries(): MapIterator<[string, string]> {
    return this.map().entries();
  }

  keys(): MapIterator<string> {
    return this.map().keys();
  }

  values(): MapIterator<string> {
    return this.map().values();
  }

  [Symbol.iterator](): MapIterator<[string, string]> {
    return this.map()[Symbol.iterator]();
  }
}
