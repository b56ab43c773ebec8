/**
 * Store outcome enumerations, named as RocketMQ names them (spec §1.8 PutMessageStatus,
 * §7.5 GetMessageStatus).
 */

export const PutMessageStatus = {
  PUT_OK: "PUT_OK",
  FLUSH_DISK_TIMEOUT: "FLUSH_DISK_TIMEOUT",
  FLUSH_SLAVE_TIMEOUT: "FLUSH_SLAVE_TIMEOUT",
  SLAVE_NOT_AVAILABLE: "SLAVE_NOT_AVAILABLE",
  SERVICE_NOT_AVAILABLE: "SERVICE_NOT_AVAILABLE",
  CREATE_MAPPED_FILE_FAILED: "CREATE_MAPPED_FILE_FAILED",
  MESSAGE_ILLEGAL: "MESSAGE_ILLEGAL",
  PROPERTIES_SIZE_EXCEEDED: "PROPERTIES_SIZE_EXCEEDED",
  OS_PAGE_CACHE_BUSY: "OS_PAGE_CACHE_BUSY",
  UNKNOWN_ERROR: "UNKNOWN_ERROR",
} as const;
export type PutMessageStatus = (typeof PutMessageStatus)[keyof typeof PutMessageStatus];

export const GetMessageStatus = {
  FOUND: "FOUND",
  NO_MATCHED_MESSAGE: "NO_MATCHED_MESSAGE",
  MESSAGE_WAS_REMOVING: "MESSAGE_WAS_REMOVING",
  OFFSET_FOUND_NULL: "OFFSET_FOUND_NULL",
  OFFSET_OVERFLOW_BADLY: "OFFSET_OVERFLOW_BADLY",
  OFFSET_OVERFLOW_ONE: "OFFSET_OVERFLOW_ONE",
  OFFSET_TOO_SMALL: "OFFSET_TOO_SMALL",
  NO_MATCHED_LOGIC_QUEUE: "NO_MATCHED_LOGIC_QUEUE",
  NO_MESSAGE_IN_QUEUE: "NO_MESSAGE_IN_QUEUE",
  OFFSET_RESET: "OFFSET_RESET",
} as const;
export type GetMessageStatus = (typeof GetMessageStatus)[keyof typeof GetMessageStatus];

/** SEARCH_OFFSET_BY_TIMESTAMP boundary (spec §8.3). */
export const BoundaryType = { LOWER: "LOWER", UPPER: "UPPER" } as const;
export type BoundaryType = (typeof BoundaryType)[keyof typeof BoundaryType];
