/**
 * PermName and TopicSysFlag bits (spec remoting §8): a queue's read/write/inherit permission, and a
 * topic's unit flags.
 */

export const PermName = {
  PERM_PRIORITY: 8,
  PERM_READ: 4,
  PERM_WRITE: 2,
  PERM_INHERIT: 1,
} as const;

/** READ | WRITE, the default topic permission. */
export const DEFAULT_PERM = PermName.PERM_READ | PermName.PERM_WRITE;

export const isReadable = (perm: number): boolean => (perm & PermName.PERM_READ) !== 0;
export const isWriteable = (perm: number): boolean => (perm & PermName.PERM_WRITE) !== 0;
export const isInherited = (perm: number): boolean => (perm & PermName.PERM_INHERIT) !== 0;
/** Java's PermName.isValid: the priority bit is not a valid topic permission. */
export const isValidPerm = (perm: number): boolean => perm >= 0 && perm < PermName.PERM_PRIORITY;

/** Three characters, e.g. 6 → "RW-", 7 → "RWX" (X = inherit). */
export function permToString(perm: number): string {
  return (isReadable(perm) ? "R" : "-") + (isWriteable(perm) ? "W" : "-") + (isInherited(perm) ? "X" : "-");
}

export const TopicSysFlag = {
  FLAG_UNIT: 1,
  FLAG_UNIT_SUB: 2,
} as const;

export function buildTopicSysFlag(unit: boolean, hasUnitSub: boolean): number {
  return (unit ? TopicSysFlag.FLAG_UNIT : 0) | (hasUnitSub ? TopicSysFlag.FLAG_UNIT_SUB : 0);
}

export const hasUnitFlag = (sysFlag: number): boolean => (sysFlag & TopicSysFlag.FLAG_UNIT) !== 0;
export const hasUnitSubFlag = (sysFlag: number): boolean => (sysFlag & TopicSysFlag.FLAG_UNIT_SUB) !== 0;
