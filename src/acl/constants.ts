/**
 * ACL 1.0's wire names and numbers, written once: the ext fields a signed request carries (Java's
 * SessionCredentials), the answers of the ACL admin requests, and the limits on keys (AclConstants).
 */

/** Ext fields added by the client's AclClientRPCHook; Java's SessionCredentials names them. */
export const AclField = {
  ACCESS_KEY: "AccessKey",
  SIGNATURE: "Signature",
  SECURITY_TOKEN: "SecurityToken",
} as const;

/**
 * Java's ResponseCode 209-211 as ACL 1.0 defines them. 5.x reuses these numbers for POP
 * (POLLING_FULL, POLLING_TIMEOUT, BROKER_NOT_EXIST), so they stay out of the shared ResponseCode
 * table and are only ever sent in answer to codes 50, 51 and 53.
 */
export const AclResponseCode = {
  UPDATE_AND_CREATE_ACL_CONFIG_FAILED: 209,
  DELETE_ACL_CONFIG_FAILED: 210,
  UPDATE_GLOBAL_WHITE_ADDRS_CONFIG_FAILED: 211,
} as const;

/** Keys must be longer than this (AclConstants: a length of 6 or less is refused). */
export const ACCESS_KEY_MIN_LENGTH = 6;
export const SECRET_KEY_MIN_LENGTH = 6;

/**
 * MixAll.UNIQUE_MSG_QUERY_FLAG: clients up to V4_9_3 add it after signing, so the broker leaves it
 * out of the signed content for them (PlainAccessResource.parse, 5.x).
 */
export const UNIQUE_MSG_QUERY_FLAG = "_UNIQUE_KEY_QUERY";
/** MQVersion.V4_9_3's ordinal. */
export const V4_9_3 = 399;

/** TopicValidator.RMQ_SYS_TRACE_TOPIC: a PUB to it skips the permission check (message trace). */
export const TRACE_TOPIC = "RMQ_SYS_TRACE_TOPIC";
