/**
 * A message's properties straight from its stored record (spec broker §4.1): only the
 * properties region is decoded, on the first lookup, and each name is then found by scanning
 * that string, as `decodeProperties(..).get(name)` would answer (the last non-empty value).
 */
import type { PropertyLookup } from "../../src/protocol/filter/index.ts";
import { findProperty, headLayout, RECORD } from "../../src/protocol/message/index.ts";

const utf8 = new TextDecoder();

/** The encoded properties string of a record the store returned (it validated the record). */
export function recordPropertiesString(record: Uint8Array): string {
  const dv = new DataView(record.buffer, record.byteOffset, record.byteLength);
  const head = headLayout(dv.getInt32(RECORD.sysFlag[0]), dv.getInt32(RECORD.magicCode[0]));
  const topicLengthAt = head.topicLength + dv.getInt32(head.bodyLength);
  const topicBytes = head.topicLengthBytes === 2 ? dv.getInt16(topicLengthAt) : dv.getUint8(topicLengthAt);
  const propsLengthAt = topicLengthAt + head.topicLengthBytes + topicBytes;
  const propsBytes = dv.getInt16(propsLengthAt);
  if (propsBytes <= 0) return "";
  return utf8.decode(record.subarray(propsLengthAt + 2, propsLengthAt + 2 + propsBytes));
}

/** A lookup over the record's properties; the region is decoded once, when first asked. */
export function recordPropertyLookup(record: Uint8Array): PropertyLookup {
  let props: string | undefined;
  return (name) => {
    props ??= recordPropertiesString(record);
    return findProperty(props, name);
  };
}
