/**
 * ACL 1.0 permissions (Java's acl.common.Permission): the four bits, how the file spells them,
 * how a needed permission is checked against an owned one, and the request codes only an admin
 * account may send.
 */
import { RETRY_GROUP_TOPIC_PREFIX } from "../protocol/topic-names.ts";
import { RequestCode } from "../remoting/request-code.ts";
import { AclConfigError } from "./errors.ts";

export const Permission = {
  DENY: 1,
  ANY: 1 << 1,
  PUB: 1 << 2,
  SUB: 1 << 3,
} as const;

/** How plain_acl.yml spells permissions (AclConstants). */
const PERMISSION_TEXT: ReadonlyMap<string, number> = new Map([
  ["PUB", Permission.PUB],
  ["SUB", Permission.SUB],
  ["PUB|SUB", Permission.PUB | Permission.SUB],
  ["SUB|PUB", Permission.PUB | Permission.SUB],
  ["DENY", Permission.DENY],
]);

/** Java's parsePermFromString: an absent or unknown spelling is DENY. */
export function parsePermission(text: string | null | undefined): number {
  if (text === null || text === undefined) return Permission.DENY;
  return PERMISSION_TEXT.get(text.trim()) ?? Permission.DENY;
}

/** Whether `text` is one of the spellings (an update must not smuggle a typo in as DENY). */
export function isPermissionText(text: string): boolean {
  return PERMISSION_TEXT.has(text.trim());
}

/** Java's checkPermission: DENY owned refuses all; ANY needed takes PUB or SUB; else a shared bit. */
export function permits(needed: number, owned: number): boolean {
  if ((owned & Permission.DENY) !== 0) return false;
  if ((needed & Permission.ANY) !== 0) return (owned & (Permission.PUB | Permission.SUB)) !== 0;
  return (needed & owned) !== 0;
}

/**
 * The codes Java's Permission.ADMIN_CODE lists. An account that is not admin is refused these
 * whatever its topic and group permissions.
 */
const JAVA_ADMIN_CODES = [
  RequestCode.UPDATE_AND_CREATE_TOPIC,
  RequestCode.UPDATE_BROKER_CONFIG,
  RequestCode.DELETE_TOPIC_IN_BROKER,
  RequestCode.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP,
  RequestCode.DELETE_SUBSCRIPTIONGROUP,
];

/**
 * Codes we also keep to admins though Java does not: the ACL updates themselves (in Java any
 * signed account may rewrite plain_acl.yml and make itself admin), the list forms of the
 * topic and group updates above, and the maintenance requests that delete files or rewrite
 * another group's offsets.
 */
const ROCKETBUN_ADMIN_CODES = [
  RequestCode.UPDATE_AND_CREATE_ACL_CONFIG,
  RequestCode.DELETE_ACL_CONFIG,
  RequestCode.UPDATE_GLOBAL_WHITE_ADDRS_CONFIG,
  RequestCode.GET_BROKER_CLUSTER_ACL_CONFIG,
  RequestCode.UPDATE_AND_CREATE_TOPIC_LIST,
  RequestCode.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP_LIST,
  RequestCode.CLEAN_EXPIRED_CONSUMEQUEUE,
  RequestCode.DELETE_EXPIRED_COMMITLOG,
  RequestCode.CLEAN_UNUSED_TOPIC,
  RequestCode.CLONE_GROUP_OFFSET,
];

export const ADMIN_ONLY_CODES: ReadonlySet<number> = new Set([...JAVA_ADMIN_CODES, ...ROCKETBUN_ADMIN_CODES]);

/** `%RETRY%<group>`: group permissions are kept, and checked, under the group's retry topic. */
export function retryTopicOf(group: string): string {
  return RETRY_GROUP_TOPIC_PREFIX + group;
}

export function isRetryTopic(resource: string): boolean {
  return resource.startsWith(RETRY_GROUP_TOPIC_PREFIX);
}

/** Java's StringUtils.split: separators in a row, or at either end, make no empty pieces. */
export function splitNonEmpty(text: string, separator: string): string[] {
  return text.split(separator).filter((piece) => piece !== "");
}

/**
 * `topicA=PUB|SUB` lines into resource → permission (Permission.parseResourcePerms), groups under
 * their retry topic. A line without exactly one `name=perm` pair is refused.
 */
export function parseResourcePerms(
  lines: readonly string[],
  kind: "topic" | "group",
  into: Map<string, number>,
) {
  for (const line of lines) {
    const items = splitNonEmpty(line, "=");
    if (items.length !== 2) {
      throw new AclConfigError(`Parse resource permission failed for ${kind}:${line}`);
    }
    const name = items[0]!.trim();
    into.set(kind === "topic" ? name : retryTopicOf(name), parsePermission(items[1]));
  }
}

/** What an update may carry (Permission.checkResourcePerms): every line `name=PERM`, PERM spelled right. */
export function checkResourcePerms(lines: readonly string[] | undefined): void {
  for (const line of lines ?? []) {
    const items = splitNonEmpty(line, "=");
    if (items.length !== 2) {
      throw new AclConfigError(
        `Parse Resource format error for ${line}.\nThe expected resource format is 'Res=Perm'. For example: topicA=SUB`,
      );
    }
    if (!isPermissionText(items[1]!)) {
      throw new AclConfigError(
        `Parse resource permission error for ${line}.\nThe expected permissions are 'SUB' or 'PUB' or 'SUB|PUB' or 'PUB|SUB'.`,
      );
    }
  }
}
