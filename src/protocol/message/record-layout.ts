/**
 * The stored message record layout (spec §4.1), written down once. The encoder, the decoder,
 * the length check and the recovery scan all take positions from `recordLayout`.
 *
 *  off  size   field
 *    0  i32    TOTALSIZE                 whole record, this field included
 *    4  i32    MAGICCODE                 DAA320A7 (v1) | DAA320AB (v2)
 *    8  i32    BODYCRC                   crc32(body) & 0x7FFFFFFF
 *   12  i32    QUEUEID
 *   16  i32    FLAG
 *   20  i64    QUEUEOFFSET
 *   28  i64    PHYSICALOFFSET
 *   36  i32    SYSFLAG
 *   40  i64    BORNTIMESTAMP
 *   48  8|20   BORNHOST                  ip(4|16) + port i32; 20 iff BORNHOST_V6_FLAG
 *    .  i64    STORETIMESTAMP
 *    .  8|20   STOREHOSTADDRESS          20 iff STOREHOSTADDRESS_V6_FLAG
 *    .  i32    RECONSUMETIMES
 *    .  i64    PREPAREDTRANSACTIONOFFSET
 *    .  i32+n  BODY                      length, bytes
 *    .  i8|i16+t TOPIC                   length i8 (v1) | i16 (v2), UTF-8 bytes
 *    .  i16+p  PROPERTIES                length, UTF-8 bytes
 */
import { MagicCode, MessageSysFlag } from "./sys-flag.ts";

/** Fixed-position fields: everything before BORNHOST sits at the same offset in every record. */
export const RECORD = {
  totalSize: [0, 4],
  magicCode: [4, 4],
  bodyCrc: [8, 4],
  queueId: [12, 4],
  flag: [16, 4],
  queueOffset: [20, 8],
  physicalOffset: [28, 8],
  sysFlag: [36, 4],
  bornTimestamp: [40, 8],
  bornHost: [48, 0],
} as const;

/** The BLANK record that closes a full CommitLog file (spec §5.2): i32 size, i32 magic. */
export const BLANK = { totalSize: [0, 4], magicCode: [4, 4] } as const;
export const BLANK_RECORD_BYTES = 8;

/** Positions of the variable-position fields of one record. */
export interface RecordLayout {
  readonly bornHost: number;
  readonly bornHostBytes: number;
  readonly storeTimestamp: number;
  readonly storeHost: number;
  readonly storeHostBytes: number;
  readonly reconsumeTimes: number;
  readonly preparedTransactionOffset: number;
  readonly bodyLength: number;
  readonly body: number;
  readonly topicLength: number;
  /** 1 (v1) or 2 (v2) bytes. */
  readonly topicLengthBytes: number;
  readonly topic: number;
  readonly propertiesLength: number;
  readonly properties: number;
  readonly totalSize: number;
}

export function hostBytes(v6: boolean): number {
  return v6 ? 20 : 8;
}

/** Computes every position from the few values that shape a record (Java's `calMsgLength`). */
export function recordLayout(
  sysFlag: number,
  magicCode: number,
  bodyBytes: number,
  topicBytes: number,
  propertiesBytes: number,
): RecordLayout {
  const bornHostBytes = hostBytes((sysFlag & MessageSysFlag.BORNHOST_V6_FLAG) !== 0);
  const storeHostBytes = hostBytes((sysFlag & MessageSysFlag.STOREHOSTADDRESS_V6_FLAG) !== 0);
  const topicLengthBytes = magicCode === MagicCode.MESSAGE_V2 ? 2 : 1;
  const bornHost = RECORD.bornHost[0];
  const storeTimestamp = bornHost + bornHostBytes;
  const storeHost = storeTimestamp + 8;
  const reconsumeTimes = storeHost + storeHostBytes;
  const preparedTransactionOffset = reconsumeTimes + 4;
  const bodyLength = preparedTransactionOffset + 8;
  const body = bodyLength + 4;
  const topicLength = body + bodyBytes;
  const topic = topicLength + topicLengthBytes;
  const propertiesLength = topic + topicBytes;
  const properties = propertiesLength + 2;
  return {
    bornHost,
    bornHostBytes,
    storeTimestamp,
    storeHost,
    storeHostBytes,
    reconsumeTimes,
    preparedTransactionOffset,
    bodyLength,
    body,
    topicLength,
    topicLengthBytes,
    topic,
    propertiesLength,
    properties,
    totalSize: properties + propertiesBytes,
  };
}

/** `recordLayout` with empty body, topic and properties, for each of the eight record shapes. */
const HEADS: readonly RecordLayout[] = Array.from({ length: 8 }, (_, shape) =>
  recordLayout(
    (shape & 1 ? MessageSysFlag.BORNHOST_V6_FLAG : 0) |
      (shape & 2 ? MessageSysFlag.STOREHOSTADDRESS_V6_FLAG : 0),
    shape & 4 ? MagicCode.MESSAGE_V2 : MagicCode.MESSAGE,
    0,
    0,
    0,
  ),
);

/**
 * The positions of a record with empty body, topic and properties (shared, not copied): the
 * fixed part, and the variable positions before the lengths shift them. Hot paths add the
 * lengths themselves instead of building a layout per record.
 */
export function headLayout(sysFlag: number, magicCode: number): RecordLayout {
  const shape =
    ((sysFlag & MessageSysFlag.BORNHOST_V6_FLAG) !== 0 ? 1 : 0) |
    ((sysFlag & MessageSysFlag.STOREHOSTADDRESS_V6_FLAG) !== 0 ? 2 : 0) |
    (magicCode === MagicCode.MESSAGE_V2 ? 4 : 0);
  return HEADS[shape]!;
}

/** Where STORETIMESTAMP sits, given only SYSFLAG (spec §4.1: @56, or @68 with an IPv6 born host). */
export function storeTimestampPosition(sysFlag: number): number {
  return RECORD.bornHost[0] + hostBytes((sysFlag & MessageSysFlag.BORNHOST_V6_FLAG) !== 0);
}

/** Reads a signed i64 that is known to fit a JS number exactly (offsets, timestamps). */
export function readI64(dv: DataView, pos: number): number {
  return dv.getInt32(pos) * 0x1_0000_0000 + dv.getUint32(pos + 4);
}

/** Writes a JS integer (|n| < 2^53) as a big-endian i64, sign-extended. */
export function writeI64(dv: DataView, pos: number, n: number): void {
  const hi = Math.floor(n / 0x1_0000_0000);
  dv.setInt32(pos, hi);
  dv.setUint32(pos + 4, n - hi * 0x1_0000_0000);
}
