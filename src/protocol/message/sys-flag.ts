/**
 * SYSFLAG bits of a stored record (spec §4.3) and the magic codes that open a record (§4.2).
 */

export const MessageSysFlag = {
  COMPRESSED_FLAG: 0x1,
  MULTI_TAGS_FLAG: 0x2,
  TRANSACTION_NOT_TYPE: 0x0,
  TRANSACTION_PREPARED_TYPE: 0x4,
  TRANSACTION_COMMIT_TYPE: 0x8,
  TRANSACTION_ROLLBACK_TYPE: 0xc,
  BORNHOST_V6_FLAG: 0x10,
  STOREHOSTADDRESS_V6_FLAG: 0x20,
  NEED_UNWRAP_FLAG: 0x40,
  INNER_BATCH_FLAG: 0x80,
  COMPRESSION_TYPE_MASK: 0x700,
} as const;

/** Transaction type bits (`flag & 0xC`). */
export function transactionType(sysFlag: number): number {
  return sysFlag & 0xc;
}

/** `sysFlag` with its transaction type bits replaced by `type` (Java's resetTransactionValue). */
export function resetTransactionValue(sysFlag: number, type: number): number {
  return (sysFlag & ~0xc) | type;
}

/** Only NOT_TYPE and COMMIT_TYPE records get a ConsumeQueue unit (spec §4.3, §6.3). */
export function isConsumeQueueDispatched(sysFlag: number): boolean {
  const t = transactionType(sysFlag);
  return t === MessageSysFlag.TRANSACTION_NOT_TYPE || t === MessageSysFlag.TRANSACTION_COMMIT_TYPE;
}

export const MagicCode = {
  /** v1: topic length is an i8. */
  MESSAGE: -626843481, // 0xDAA320A7
  /** v2 [5.x]: topic length is an i16, used only for topics over 127 bytes. */
  MESSAGE_V2: -626843477, // 0xDAA320AB
  /** End-of-file filler (spec §5.2). */
  BLANK: -875286124, // 0xCBD43194
} as const;

/** Topics longer than this many UTF-8 bytes need a v2 record (spec §4.2). */
export const TOPIC_V1_BYTES_MAX = 127;
