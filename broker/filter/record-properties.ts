/**
 * A message's properties straight from its stored record (spec broker §4.1): only the
 * properties region is read, and a name is found by scanning its bytes, entry by entry, without
 * decoding the region. The answer is what `decodeProperties(..).get(name)` gives: the last entry
 * of that name with a non-empty value. Only the value found is decoded.
 */
import type { PropertyLookup } from "../../src/protocol/filter/index.ts";
import { headLayout, RECORD } from "../../src/protocol/message/index.ts";

const NAME_VALUE_SEPARATOR = 1;
const PROPERTY_SEPARATOR = 2;
const utf8 = new TextDecoder();
const utf8Encoder = new TextEncoder();

/** UTF-8 bytes of a property name, per name looked up (names come from compiled expressions). */
const nameBytes = new Map<string, Uint8Array>();
const NAME_BYTES_MAX = 1024;

function bytesOf(name: string): Uint8Array {
  let b = nameBytes.get(name);
  if (!b) {
    if (nameBytes.size >= NAME_BYTES_MAX) nameBytes.clear();
    b = utf8Encoder.encode(name);
    nameBytes.set(name, b);
  }
  return b;
}

/** [start, end) of the properties region of a record the store returned (it validated it). */
export function propertiesRegion(record: Uint8Array): [number, number] {
  const dv = new DataView(record.buffer, record.byteOffset, record.byteLength);
  const head = headLayout(dv.getInt32(RECORD.sysFlag[0]), dv.getInt32(RECORD.magicCode[0]));
  const topicLengthAt = head.topicLength + dv.getInt32(head.bodyLength);
  const topicBytes = head.topicLengthBytes === 2 ? dv.getInt16(topicLengthAt) : dv.getUint8(topicLengthAt);
  const propsLengthAt = topicLengthAt + head.topicLengthBytes + topicBytes;
  const propsBytes = Math.max(0, dv.getInt16(propsLengthAt));
  return [propsLengthAt + 2, propsLengthAt + 2 + propsBytes];
}

function decodeValue(b: Uint8Array, from: number, to: number): string {
  // Short ASCII values (the usual case) without a decoder call.
  if (to - from <= 32) {
    let s = "";
    for (let i = from; i < to; i++) {
      const c = b[i]!;
      if (c >= 0x80) return utf8.decode(b.subarray(from, to));
      s += String.fromCharCode(c);
    }
    return s;
  }
  return utf8.decode(b.subarray(from, to));
}

/** The value of `name` in the region [start, end) of `b`, or undefined. */
export function findPropertyInBytes(
  b: Uint8Array,
  start: number,
  end: number,
  name: string,
): string | undefined {
  const key = bytesOf(name);
  const len = key.length;
  if (len === 0) return undefined;
  let valueFrom = -1;
  let valueTo = -1;
  let pos = start;
  while (pos < end) {
    // A plain loop: entries are short, and a native indexOf call per entry costs more.
    let entryEnd = pos;
    while (entryEnd < end && b[entryEnd] !== PROPERTY_SEPARATOR) entryEnd++;
    if (pos + len < entryEnd && b[pos + len] === NAME_VALUE_SEPARATOR) {
      let same = true;
      for (let k = 0; k < len; k++) {
        if (b[pos + k] !== key[k]) {
          same = false;
          break;
        }
      }
      // An empty value is no value (Java's decoder drops the entry).
      if (same && entryEnd > pos + len + 1) {
        valueFrom = pos + len + 1;
        valueTo = entryEnd;
      }
    }
    pos = entryEnd + 1;
  }
  return valueFrom < 0 ? undefined : decodeValue(b, valueFrom, valueTo);
}

/** A lookup over the record's properties; the region is located once, when first asked. */
export function recordPropertyLookup(record: Uint8Array): PropertyLookup {
  let region: [number, number] | undefined;
  return (name) => {
    region ??= propertiesRegion(record);
    return findPropertyInBytes(record, region[0], region[1], name);
  };
}
