/**
 * The byte layout of the POP lease log (broker/services/pop-lease-log.ts): one framed record per
 * change of the in-flight table, written once here and read back by recovery.
 *
 * Frame (big-endian):
 *
 *   +--------+--------+------+-----------------+
 *   | len u32| crc u32| type | payload ...     |      len = 1 + payload bytes,
 *   +--------+--------+------+-----------------+      crc = crc32(type + payload)
 *
 * Payloads (str = u16 byte length + UTF-8; offsets and times are f64, exact below 2^53):
 *
 *   QUEUE   qid u32, queueId i32, group str, topic str, realTopic str   declares a queue id
 *   POP     qid u32, popTime f64, invisibleTime f64, reviveQid i32,     one pop of one queue:
 *           ckOffset f64, nextBegin f64, n u16, offset f64 × n           n leases + the next offset
 *   DEL     qid u32, popTime f64, ckOffset f64, n u16, offset f64 × n   acked or revived leases
 *   CHANGE  qid u32, offset f64, popTime f64, invisibleTime f64,        a lease re-armed by
 *           reviveQid i32                                                CHANGE_MESSAGE_INVISIBLETIME
 *   ORDER   qid u32, json str (u32 length)                              a queue's ordered-POP state
 *   SNAPSHOT_END  (empty)                                               the file's snapshot is whole
 */
import { crc32 } from "../../src/protocol/message/index.ts";

export const LeaseRecordType = {
  QUEUE: 1,
  POP: 2,
  DEL: 3,
  CHANGE: 4,
  ORDER: 5,
  SNAPSHOT_END: 6,
} as const;
export type LeaseRecordType = (typeof LeaseRecordType)[keyof typeof LeaseRecordType];

/** len + crc. */
export const FRAME_HEADER_BYTES = 8;
/** A record larger than this is damage, not data (the biggest is an ORDER of a 32-message batch). */
export const RECORD_BYTES_MAX = 1 << 20;

export type LeaseRecord =
  | { type: 1; qid: number; queueId: number; group: string; topic: string; realTopic: string }
  | {
      type: 2;
      qid: number;
      popTime: number;
      invisibleTime: number;
      reviveQid: number;
      ckOffset: number;
      nextBegin: number;
      offsets: readonly number[];
    }
  | { type: 3; qid: number; popTime: number; ckOffset: number; offsets: readonly number[] }
  | { type: 4; qid: number; offset: number; popTime: number; invisibleTime: number; reviveQid: number }
  | { type: 5; qid: number; json: string }
  | { type: 6 };

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();

function payloadBytes(r: LeaseRecord, strings: Uint8Array[]): number {
  switch (r.type) {
    case LeaseRecordType.QUEUE:
      return 8 + strings.reduce((n, s) => n + 2 + s.length, 0);
    case LeaseRecordType.POP:
      return 4 + 8 + 8 + 4 + 8 + 8 + 2 + 8 * r.offsets.length;
    case LeaseRecordType.DEL:
      return 4 + 8 + 8 + 2 + 8 * r.offsets.length;
    case LeaseRecordType.CHANGE:
      return 4 + 8 + 8 + 8 + 4;
    case LeaseRecordType.ORDER:
      return 4 + 4 + strings[0]!.length;
    case LeaseRecordType.SNAPSHOT_END:
      return 0;
  }
}

/** One framed record. */
export function encodeLeaseRecord(r: LeaseRecord): Uint8Array {
  const strings =
    r.type === LeaseRecordType.QUEUE
      ? [utf8.encode(r.group), utf8.encode(r.topic), utf8.encode(r.realTopic)]
      : r.type === LeaseRecordType.ORDER
        ? [utf8.encode(r.json)]
        : [];
  const len = 1 + payloadBytes(r, strings);
  const out = new Uint8Array(FRAME_HEADER_BYTES + len);
  const v = new DataView(out.buffer);
  v.setUint32(0, len);
  v.setUint8(8, r.type);
  let p = 9;
  const str16 = (s: Uint8Array) => {
    v.setUint16(p, s.length);
    out.set(s, p + 2);
    p += 2 + s.length;
  };
  const offsets = (list: readonly number[]) => {
    v.setUint16(p, list.length);
    p += 2;
    for (const o of list) {
      v.setFloat64(p, o);
      p += 8;
    }
  };
  switch (r.type) {
    case LeaseRecordType.QUEUE:
      v.setUint32(p, r.qid);
      v.setInt32(p + 4, r.queueId);
      p += 8;
      for (const s of strings) str16(s);
      break;
    case LeaseRecordType.POP:
      v.setUint32(p, r.qid);
      v.setFloat64(p + 4, r.popTime);
      v.setFloat64(p + 12, r.invisibleTime);
      v.setInt32(p + 20, r.reviveQid);
      v.setFloat64(p + 24, r.ckOffset);
      v.setFloat64(p + 32, r.nextBegin);
      p += 40;
      offsets(r.offsets);
      break;
    case LeaseRecordType.DEL:
      v.setUint32(p, r.qid);
      v.setFloat64(p + 4, r.popTime);
      v.setFloat64(p + 12, r.ckOffset);
      p += 20;
      offsets(r.offsets);
      break;
    case LeaseRecordType.CHANGE:
      v.setUint32(p, r.qid);
      v.setFloat64(p + 4, r.offset);
      v.setFloat64(p + 12, r.popTime);
      v.setFloat64(p + 20, r.invisibleTime);
      v.setInt32(p + 28, r.reviveQid);
      break;
    case LeaseRecordType.ORDER:
      v.setUint32(p, r.qid);
      v.setUint32(p + 4, strings[0]!.length);
      out.set(strings[0]!, p + 8);
      break;
    case LeaseRecordType.SNAPSHOT_END:
      break;
  }
  v.setUint32(4, crc32(out.subarray(FRAME_HEADER_BYTES)));
  return out;
}

/** A record that does not parse: the tail a crash tore, or damage. Recovery stops before it. */
export class LeaseRecordError extends Error {}

function decodePayload(type: number, b: Uint8Array): LeaseRecord {
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  let p = 0;
  const need = (n: number) => {
    if (p + n > b.length) throw new LeaseRecordError(`record type ${type} is short`);
  };
  const str16 = (): string => {
    need(2);
    const n = v.getUint16(p);
    need(2 + n);
    const s = fromUtf8.decode(b.subarray(p + 2, p + 2 + n));
    p += 2 + n;
    return s;
  };
  const offsets = (): number[] => {
    need(2);
    const n = v.getUint16(p);
    p += 2;
    need(8 * n);
    const out = new Array<number>(n);
    for (let i = 0; i < n; i++) out[i] = v.getFloat64(p + 8 * i);
    p += 8 * n;
    return out;
  };
  switch (type) {
    case LeaseRecordType.QUEUE: {
      need(8);
      const qid = v.getUint32(0);
      const queueId = v.getInt32(4);
      p = 8;
      return { type, qid, queueId, group: str16(), topic: str16(), realTopic: str16() };
    }
    case LeaseRecordType.POP: {
      need(40);
      p = 40;
      return {
        type,
        qid: v.getUint32(0),
        popTime: v.getFloat64(4),
        invisibleTime: v.getFloat64(12),
        reviveQid: v.getInt32(20),
        ckOffset: v.getFloat64(24),
        nextBegin: v.getFloat64(32),
        offsets: offsets(),
      };
    }
    case LeaseRecordType.DEL: {
      need(20);
      p = 20;
      return {
        type,
        qid: v.getUint32(0),
        popTime: v.getFloat64(4),
        ckOffset: v.getFloat64(12),
        offsets: offsets(),
      };
    }
    case LeaseRecordType.CHANGE:
      need(32);
      return {
        type,
        qid: v.getUint32(0),
        offset: v.getFloat64(4),
        popTime: v.getFloat64(12),
        invisibleTime: v.getFloat64(20),
        reviveQid: v.getInt32(28),
      };
    case LeaseRecordType.ORDER: {
      need(8);
      const n = v.getUint32(4);
      p = 8;
      need(n);
      return { type, qid: v.getUint32(0), json: fromUtf8.decode(b.subarray(8, 8 + n)) };
    }
    case LeaseRecordType.SNAPSHOT_END:
      return { type };
    default:
      throw new LeaseRecordError(`unknown record type ${type}`);
  }
}

/**
 * Every whole, CRC-clean record of `bytes` from the start, and the byte length they cover; the
 * first torn or damaged frame ends the walk.
 */
export function decodeLeaseRecords(bytes: Uint8Array): { records: LeaseRecord[]; validBytes: number } {
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const records: LeaseRecord[] = [];
  let pos = 0;
  while (pos + FRAME_HEADER_BYTES < bytes.length) {
    const len = v.getUint32(pos);
    if (len < 1 || len > RECORD_BYTES_MAX || pos + FRAME_HEADER_BYTES + len > bytes.length) break;
    const body = bytes.subarray(pos + FRAME_HEADER_BYTES, pos + FRAME_HEADER_BYTES + len);
    if (crc32(body) !== v.getUint32(pos + 4)) break;
    try {
      records.push(decodePayload(body[0]!, body.subarray(1)));
    } catch (err) {
      if (err instanceof LeaseRecordError) break;
      throw err;
    }
    pos += FRAME_HEADER_BYTES + len;
  }
  return { records, validBytes: pos };
}
