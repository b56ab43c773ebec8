/**
 * ACL keys: the plain_acl.yml keys the broker and the NameServer share, the NameServer's own
 * (Apache RocketMQ's NameServer checks nothing, so these are RocketBun's), and the broker's
 * credentials for its own requests to NameServers (Java's AuthConfig key). Under `start` one file
 * feeds both roles, so a single `aclEnable=true` protects the NameServer and the broker alike.
 */
import { checkNonEmpty } from "./checks.ts";
import { type ConfigOf, defineSection } from "./schema.ts";

/** Java's `rocketmq.acl.plain.file` default, relative to the home. */
export const DEFAULT_ACL_PLAIN_FILE = "conf/plain_acl.yml";
/** Java's AclFileWatchService.WATCH_INTERVAL. */
export const DEFAULT_ACL_WATCH_INTERVAL_MS = 5000;

/** The accounts file and its polling; the broker's section and the NameServer's both declare them. */
export const ACL_FILE_FIELDS = {
  aclPlainFile: {
    type: "string",
    default: DEFAULT_ACL_PLAIN_FILE,
    check: checkNonEmpty,
    doc: "ACL 1.0 accounts file read when aclEnable=true (Java's rocketmq.acl.plain.file); relative to rocketbunHome",
  },
  aclWatchIntervalMs: {
    type: "long",
    default: DEFAULT_ACL_WATCH_INTERVAL_MS,
    min: 10,
    doc: "how often the ACL file is checked for changes",
  },
} as const;

export const namesrvAclConfig = defineSection("namesrvAclConfig", {
  aclEnable: {
    type: "bool",
    default: false,
    important: true,
    doc: "state-changing requests (register/unregister broker, KV, topics, write permission, config) need an admin account of the ACL file",
  },
  ...ACL_FILE_FIELDS,
  aclReadNeedSignature: {
    type: "bool",
    default: false,
    doc: "with aclEnable, reads (routes, cluster and topic lists, KV, config) also need a valid signature or a white-listed address",
  },
});

export type NamesrvAclConfig = ConfigOf<typeof namesrvAclConfig>;

/** Java's SessionCredentials as AuthConfig's JSON spells it. */
export interface InnerCredentials {
  readonly accessKey: string;
  readonly secretKey: string;
  readonly securityToken?: string;
}

const CREDENTIAL_KEYS = new Set(["accessKey", "secretKey", "securityToken", "signature"]);
const CREDENTIALS_SHAPE = 'expected {"accessKey":"...","secretKey":"..."}';

/**
 * The credentials a non-empty value names, or the reason it cannot be used. Messages never repeat
 * the value: it holds a secret, and config problems are printed and logged.
 */
export function readInnerCredentials(text: string): InnerCredentials | string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return `is not JSON; ${CREDENTIALS_SHAPE}`;
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    return `is not a JSON object; ${CREDENTIALS_SHAPE}`;
  }
  const fields = parsed as Record<string, unknown>;
  for (const key of Object.keys(fields)) {
    if (!CREDENTIAL_KEYS.has(key)) return `has an unknown field '${key}'; ${CREDENTIALS_SHAPE}`;
  }
  const { accessKey, secretKey, securityToken } = fields;
  if (typeof accessKey !== "string" || accessKey.trim() === "") return `needs a non-empty accessKey`;
  if (typeof secretKey !== "string" || secretKey.trim() === "") return `needs a non-empty secretKey`;
  if (securityToken !== undefined && typeof securityToken !== "string")
    return "has a securityToken that is not text";
  return securityToken === undefined ? { accessKey, secretKey } : { accessKey, secretKey, securityToken };
}

/** Java's AuthConfig, as far as RocketBun reads it: ACL 2.0's other keys are unknown keys here. */
export const authConfig = defineSection("authConfig", {
  innerClientAuthenticationCredentials: {
    type: "string",
    default: "",
    // It holds a secret key: -p says it is set without printing it (Java prints it).
    secret: true,
    check: (value) => {
      if (value === "") return undefined;
      const read = readInnerCredentials(value);
      return typeof read === "string" ? read : undefined;
    },
    doc: 'the account the broker signs its NameServer requests with, {"accessKey":"...","secretKey":"..."}; must be an admin account when the NameServer has aclEnable=true',
  },
});

export type AuthConfig = ConfigOf<typeof authConfig>;

/** The broker's credentials, or null when none are configured (the value was checked at load). */
export function innerCredentialsOf(config: AuthConfig): InnerCredentials | null {
  const text = config.innerClientAuthenticationCredentials;
  if (text === "") return null;
  const read = readInnerCredentials(text);
  return typeof read === "string" ? null : read;
}
