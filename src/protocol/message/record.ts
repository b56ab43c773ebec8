/**
 * Encoder, decoder and validity check of the stored message record (spec §4). The positions
 * come from `recordLayout` in record-layout.ts; nothing here hard-codes a variable offset.
 */
import { bodyCrc } from "./crc32.ts";
import type { HostAddress } from "./host-address.ts";
import { encodeOffsetMessageId } from "./message-id.ts";
import { decodeProperties, PROPERTIES_BYTES_MAX } from "./properties.ts";
import {
  BLANK,
  BLANK_RECORD_BYTES,
  headLayout,
  RECORD,
  type RecordLayout,
  readI64,
  recordLayout,
  writeI64,
} from "./record-layout.ts";
import { MagicCode, MessageSysFlag, TOPIC_V1_BYTES_MAX } from "./sys-flag.ts";

const utf8 = new TextEncoder();
const utf8Decoder = new TextDecoder();

/** UTF-8 of recent topics. The arrays are shared: writers copy them and never change them. */
const topicBytesCache = new Map<string, Uint8Array>();
const TOPIC_BYTES_CACHE_MAX = 4096;

/** The last topic asked for: puts mostly repeat a topic, and comparing it beats a map lookup. */
let lastTopic = "";
let lastTopicBytes: Uint8Array = new Uint8Array(0);

function topicBytesOf(topic: string): Uint8Array {
  if (topic === lastTopic) return lastTopicBytes;
  let bytes = topicBytesCache.get(topic);
  if (bytes === undefined) {
    if (topicBytesCache.size >= TOPIC_BYTES_CACHE_MAX) topicBytesCache.clear();
    bytes = utf8.encode(topic);
    topicBytesCache.set(topic, bytes);
  }
  lastTopic = topic;
  lastTopicBytes = bytes;
  return bytes;
}

/** Largest topic in a v2 record: its length field is an i16. */
export const TOPIC_V2_BYTES_MAX = 32767;

/** Everything a record holds except what the store assigns on its append path. */
export interface RecordInput {
  readonly topic: string;
  readonly queueId: number;
  readonly flag: number;
  readonly sysFlag: number;
  readonly bornTimestamp: number;
  readonly bornHost: HostAddress;
  readonly storeHost: HostAddress;
  readonly reconsumeTimes: number;
  readonly preparedTransactionOffset: number;
  readonly body: Uint8Array;
  /** The encoded properties string (spec §2.1). */
  readonly properties: string;
}

/** A record's fields but its properties, which `prepareRecord` takes as their encoded string. */
export type RecordFields = Omit<RecordInput, "properties">;

/** Assigned by the store when the record is appended. */
export interface RecordPlacement {
  readonly queueOffset: number;
  readonly physicalOffset: number;
  readonly storeTimestamp: number;
}

/** A record ready to be written: sizes known, strings encoded, CRC computed, host flags set. */
export interface PreparedRecord {
  /** The caller's fields, not copied: a put passes its message object as it is. */
  readonly input: RecordFields;
  /** The encoded properties string (spec §2.1). */
  readonly properties: string;
  /** Positions before the body, topic and properties lengths shift them (see `headLayout`). */
  readonly head: RecordLayout;
  readonly totalSize: number;
  readonly magicCode: number;
  readonly sysFlag: number;
  readonly bodyCrc: number;
  readonly topicBytes: Uint8Array;
  /**
   * The properties' UTF-8, or undefined when the string is all ASCII: then its char codes are
   * its bytes and `writeRecord` copies them straight from the string, sparing an encode and an
   * allocation per put (property strings are nearly always ASCII).
   */
  readonly propertiesBytes: Uint8Array | undefined;
  readonly propertiesLength: number;
}

/**
 * The length of `s` if every char is ASCII (one UTF-8 byte each), else -1. Any other char takes
 * two bytes or more, so the UTF-8 length equals the char count only for ASCII; Buffer.byteLength
 * counts natively, about twice as fast as a charCodeAt loop on a 150-char properties string.
 */
function asciiLength(s: string): number {
  return Buffer.byteLength(s, "utf8") === s.length ? s.length : -1;
}

/** Copies small arrays by hand: below ~64 bytes a loop beats `set`'s per-call checks. */
function copySmall(dst: Uint8Array, pos: number, src: Uint8Array): void {
  if (src.length > 64) {
    dst.set(src, pos);
    return;
  }
  for (let i = 0; i < src.length; i++) dst[pos + i] = src[i]!;
}

export class RecordTooLargeError extends Error {
  constructor(
    readonly field: "topic" | "properties",
    readonly bytes: number,
  ) {
    super(`${field} is ${bytes} bytes, over the record's length field`);
  }
}

/**
 * Prepares a record. Host V6 flags follow the host byte lengths; v2 is used only for topics over
 * 127 bytes (spec §4.2). Throws RecordTooLargeError if a length field would overflow.
 */
export function prepareRecord(input: RecordFields, properties: string): PreparedRecord {
  const topicBytes = topicBytesOf(input.topic);
  const ascii = asciiLength(properties);
  const propertiesBytes = ascii < 0 ? utf8.encode(properties) : undefined;
  const propertiesLength = propertiesBytes ? propertiesBytes.length : ascii;
  if (propertiesLength > PROPERTIES_BYTES_MAX) {
    throw new RecordTooLargeError("properties", propertiesLength);
  }
  if (topicBytes.length > TOPIC_V2_BYTES_MAX) throw new RecordTooLargeError("topic", topicBytes.length);
  const magicCode = topicBytes.length > TOPIC_V1_BYTES_MAX ? MagicCode.MESSAGE_V2 : MagicCode.MESSAGE;
  let sysFlag = input.sysFlag & ~(MessageSysFlag.BORNHOST_V6_FLAG | MessageSysFlag.STOREHOSTADDRESS_V6_FLAG);
  if (input.bornHost.ip.length === 16) sysFlag |= MessageSysFlag.BORNHOST_V6_FLAG;
  if (input.storeHost.ip.length === 16) sysFlag |= MessageSysFlag.STOREHOSTADDRESS_V6_FLAG;
  const head = headLayout(sysFlag, magicCode);
  return {
    input,
    properties,
    head,
    totalSize: head.totalSize + input.body.length + topicBytes.length + propertiesLength,
    magicCode,
    sysFlag,
    bodyCrc: bodyCrc(input.body),
    topicBytes,
    propertiesBytes,
    propertiesLength,
  };
}

function writeHost(dst: Uint8Array, dv: DataView, pos: number, host: HostAddress): void {
  copySmall(dst, pos, host.ip);
  dv.setInt32(pos + host.ip.length, host.port);
}

/**
 * Writes a prepared record at `dst[pos]`; `dv` views the same bytes as `dst`. The placement comes
 * as numbers: this runs once per stored message.
 */
export function writeRecord(
  dst: Uint8Array,
  dv: DataView,
  pos: number,
  p: PreparedRecord,
  queueOffset: number,
  physicalOffset: number,
  storeTimestamp: number,
): void {
  const H = p.head;
  const m = p.input;
  const bodyLength = m.body.length;
  const topicLength = p.topicBytes.length;
  dv.setInt32(pos + RECORD.totalSize[0], p.totalSize);
  dv.setInt32(pos + RECORD.magicCode[0], p.magicCode);
  dv.setInt32(pos + RECORD.bodyCrc[0], p.bodyCrc);
  dv.setInt32(pos + RECORD.queueId[0], m.queueId);
  dv.setInt32(pos + RECORD.flag[0], m.flag);
  writeI64(dv, pos + RECORD.queueOffset[0], queueOffset);
  writeI64(dv, pos + RECORD.physicalOffset[0], physicalOffset);
  dv.setInt32(pos + RECORD.sysFlag[0], p.sysFlag);
  writeI64(dv, pos + RECORD.bornTimestamp[0], m.bornTimestamp);
  writeHost(dst, dv, pos + H.bornHost, m.bornHost);
  writeI64(dv, pos + H.storeTimestamp, storeTimestamp);
  writeHost(dst, dv, pos + H.storeHost, m.storeHost);
  dv.setInt32(pos + H.reconsumeTimes, m.reconsumeTimes);
  writeI64(dv, pos + H.preparedTransactionOffset, m.preparedTransactionOffset);
  dv.setInt32(pos + H.bodyLength, bodyLength);
  dst.set(m.body, pos + H.body);
  // After the body every position shifts by the lengths before it.
  const afterBody = pos + bodyLength;
  if (H.topicLengthBytes === 2) dv.setInt16(afterBody + H.topicLength, topicLength);
  else dv.setInt8(afterBody + H.topicLength, topicLength);
  copySmall(dst, afterBody + H.topic, p.topicBytes);
  const afterTopic = afterBody + topicLength;
  dv.setInt16(afterTopic + H.propertiesLength, p.propertiesLength);
  const at0 = afterTopic + H.properties;
  if (p.propertiesBytes) dst.set(p.propertiesBytes, at0);
  else for (let i = 0, s = p.properties; i < s.length; i++) dst[at0 + i] = s.charCodeAt(i);
}

/** Encodes one whole record into a fresh buffer. */
export function encodeRecord(input: RecordInput, at: RecordPlacement): Uint8Array {
  const p = prepareRecord(input, input.properties);
  const out = new Uint8Array(p.totalSize);
  writeRecord(out, new DataView(out.buffer), 0, p, at.queueOffset, at.physicalOffset, at.storeTimestamp);
  return out;
}

/** Writes the 8-byte BLANK header that fills the rest of a CommitLog file (spec §5.2). */
export function writeBlank(dv: DataView, pos: number, remaining: number): void {
  dv.setInt32(pos + BLANK.totalSize[0], remaining);
  dv.setInt32(pos + BLANK.magicCode[0], MagicCode.BLANK);
}

/** A decoded record (Java's MessageExt as read from the store). */
export interface DecodedRecord {
  readonly storeSize: number;
  readonly magicCode: number;
  readonly bodyCrc: number;
  readonly queueId: number;
  readonly flag: number;
  readonly queueOffset: number;
  readonly physicalOffset: number;
  readonly sysFlag: number;
  readonly bornTimestamp: number;
  readonly bornHost: HostAddress;
  readonly storeTimestamp: number;
  readonly storeHost: HostAddress;
  readonly reconsumeTimes: number;
  readonly preparedTransactionOffset: number;
  /** A view into the source bytes, not a copy. */
  readonly body: Uint8Array;
  readonly topic: string;
  readonly propertiesString: string;
  readonly properties: Map<string, string>;
  /** Offset message id (spec §3.1). */
  readonly msgId: string;
}

function readHost(src: Uint8Array, dv: DataView, pos: number, bytes: number): HostAddress {
  return { ip: src.slice(pos, pos + bytes - 4), port: dv.getInt32(pos + bytes - 4) };
}

/** Decodes the record at `src[pos]`. Assumes `checkRecord` accepted it, or throws RangeError. */
export function decodeRecord(src: Uint8Array, pos = 0): DecodedRecord {
  const dv = new DataView(src.buffer, src.byteOffset, src.byteLength);
  const magicCode = dv.getInt32(pos + RECORD.magicCode[0]);
  const sysFlag = dv.getInt32(pos + RECORD.sysFlag[0]);
  // Lengths are read in layout order: body length first, then topic length after the body.
  const head = recordLayout(sysFlag, magicCode, 0, 0, 0);
  const bodyBytes = dv.getInt32(pos + head.bodyLength);
  const topicLenPos = pos + head.topicLength + bodyBytes;
  const topicBytes = head.topicLengthBytes === 2 ? dv.getInt16(topicLenPos) : dv.getUint8(topicLenPos);
  const propsLenPos = topicLenPos + head.topicLengthBytes + topicBytes;
  const propertiesBytes = dv.getInt16(propsLenPos);
  const L = recordLayout(sysFlag, magicCode, bodyBytes, topicBytes, propertiesBytes);
  if (pos + L.totalSize > src.length) throw new RangeError("record runs past the end of the buffer");
  const storeHost = readHost(src, dv, pos + L.storeHost, L.storeHostBytes);
  const physicalOffset = readI64(dv, pos + RECORD.physicalOffset[0]);
  const propertiesString = utf8Decoder.decode(src.subarray(pos + L.properties, pos + L.totalSize));
  return {
    storeSize: dv.getInt32(pos + RECORD.totalSize[0]),
    magicCode,
    bodyCrc: dv.getInt32(pos + RECORD.bodyCrc[0]),
    queueId: dv.getInt32(pos + RECORD.queueId[0]),
    flag: dv.getInt32(pos + RECORD.flag[0]),
    queueOffset: readI64(dv, pos + RECORD.queueOffset[0]),
    physicalOffset,
    sysFlag,
    bornTimestamp: readI64(dv, pos + RECORD.bornTimestamp[0]),
    bornHost: readHost(src, dv, pos + L.bornHost, L.bornHostBytes),
    storeTimestamp: readI64(dv, pos + L.storeTimestamp),
    storeHost,
    reconsumeTimes: dv.getInt32(pos + L.reconsumeTimes),
    preparedTransactionOffset: readI64(dv, pos + L.preparedTransactionOffset),
    body: src.subarray(pos + L.body, pos + L.body + bodyBytes),
    topic: utf8Decoder.decode(src.subarray(pos + L.topic, pos + L.topic + topicBytes)),
    propertiesString,
    properties: decodeProperties(propertiesString),
    msgId: encodeOffsetMessageId(storeHost, physicalOffset),
  };
}

/** Outcome of checking the bytes at one position of a CommitLog file. */
export type RecordCheck =
  | { readonly kind: "message"; readonly size: number }
  | { readonly kind: "blank"; readonly size: number }
  | { readonly kind: "invalid"; readonly reason: string };

export interface RecordCheckOptions {
  /** Verify BODYCRC (recovery does; spec §4.4 `checkCRCOnRecover`). */
  readonly checkCrc: boolean;
  /** If given, PHYSICALOFFSET must equal it: a record found elsewhere is stale. */
  readonly physicalOffset?: number;
}

/**
 * Validates the record at `src[pos]` whose bytes end at `src[end]` (Java's
 * `checkMessageAndReturnSize`): known magic, TOTALSIZE equal to the recomputed length and within
 * the bytes available, and optionally the body CRC.
 */
export function checkRecord(
  src: Uint8Array,
  pos: number,
  end: number,
  opts: RecordCheckOptions,
): RecordCheck {
  if (end - pos < BLANK_RECORD_BYTES) return { kind: "invalid", reason: "fewer than 8 bytes left" };
  const dv = new DataView(src.buffer, src.byteOffset, src.byteLength);
  const totalSize = dv.getInt32(pos + RECORD.totalSize[0]);
  const magicCode = dv.getInt32(pos + RECORD.magicCode[0]);
  if (magicCode === MagicCode.BLANK) {
    return totalSize >= BLANK_RECORD_BYTES ? { kind: "blank", size: totalSize } : invalid("bad blank size");
  }
  if (magicCode !== MagicCode.MESSAGE && magicCode !== MagicCode.MESSAGE_V2) return invalid("bad magic code");
  if (totalSize <= 0 || totalSize > end - pos) return invalid("total size exceeds the bytes available");
  const sysFlag = dv.getInt32(pos + RECORD.sysFlag[0]);
  const head = recordLayout(sysFlag, magicCode, 0, 0, 0);
  if (head.totalSize > totalSize) return invalid("total size below the fixed part");
  const bodyBytes = dv.getInt32(pos + head.bodyLength);
  if (bodyBytes < 0 || head.totalSize + bodyBytes > totalSize) return invalid("bad body length");
  const topicLenPos = pos + head.topicLength + bodyBytes;
  const topicBytes = head.topicLengthBytes === 2 ? dv.getInt16(topicLenPos) : dv.getUint8(topicLenPos);
  if (topicBytes < 0 || topicLenPos + head.topicLengthBytes + topicBytes + 2 > pos + totalSize) {
    return invalid("bad topic length");
  }
  const propertiesBytes = dv.getInt16(topicLenPos + head.topicLengthBytes + topicBytes);
  const L = recordLayout(sysFlag, magicCode, bodyBytes, topicBytes, propertiesBytes);
  if (propertiesBytes < 0 || L.totalSize !== totalSize) return invalid("total size differs from the fields");
  if (
    opts.physicalOffset !== undefined &&
    readI64(dv, pos + RECORD.physicalOffset[0]) !== opts.physicalOffset
  ) {
    return invalid("physical offset differs from the record's position");
  }
  if (opts.checkCrc) {
    const crc = dv.getInt32(pos + RECORD.bodyCrc[0]);
    if (crc !== bodyCrc(src.subarray(pos + L.body, pos + L.body + bodyBytes)))
      return invalid("body CRC mismatch");
  }
  return { kind: "message", size: totalSize };
}

function invalid(reason: string): RecordCheck {
  return { kind: "invalid", reason };
}
