/**
 * SubscriptionData (spec broker §7.7): a consumer's filter for one topic. Built from a tag
 * expression as Java's FilterAPI does: "*" or empty matches all, otherwise tags split on "||",
 * each with its Java String.hashCode in codeSet. At most SUBSCRIPTION_TAGS_MAX tags.
 */
import { RemotingError } from "../../remoting/errors.ts";
import { ResponseCode } from "../../remoting/response-code.ts";
import { javaStringHash } from "../message/java-hash.ts";

export const ExpressionType = { TAG: "TAG", SQL92: "SQL92" } as const;
export type ExpressionType = (typeof ExpressionType)[keyof typeof ExpressionType];

export const SUB_ALL = "*";

export interface SubscriptionData {
  topic: string;
  subString: string;
  tagsSet: string[];
  codeSet: number[];
  subVersion: number;
  expressionType: string;
  classFilterMode: boolean;
}

/**
 * Most tags one expression may name. Real subscriptions name a handful; parsing costs about a
 * microsecond a tag, so this keeps one request's parse to a fraction of a second (a 16 MiB frame
 * could otherwise carry about 2 million tags and stall the process for seconds).
 */
export const SUBSCRIPTION_TAGS_MAX = 100_000;

const TAG_SEPARATOR = "||";

/** Counts separators without splitting, and stops as soon as the count is too high. */
function exceedsTagsMax(expression: string): boolean {
  let parts = 1;
  for (let at = expression.indexOf(TAG_SEPARATOR); at >= 0; at = expression.indexOf(TAG_SEPARATOR, at + 2)) {
    if (++parts > SUBSCRIPTION_TAGS_MAX) return true;
  }
  return false;
}

export function buildSubscription(
  topic: string,
  expression: string | null | undefined,
  subVersion = Date.now(),
): SubscriptionData {
  const sub: SubscriptionData = {
    topic,
    subString: SUB_ALL,
    tagsSet: [],
    codeSet: [],
    subVersion,
    expressionType: ExpressionType.TAG,
    classFilterMode: false,
  };
  if (!expression || expression.trim() === "" || expression.trim() === SUB_ALL) return sub;
  sub.subString = expression;
  if (exceedsTagsMax(expression)) {
    throw new RemotingError(
      ResponseCode.SUBSCRIPTION_PARSE_FAILED,
      `parse the consumer's subscription failed: more than ${SUBSCRIPTION_TAGS_MAX} tags`,
    );
  }
  // The expression comes from the client and may hold 100k tags: dedupe through a Set, so the
  // cost stays linear in its length. tagsSet keeps the first-seen order.
  const seen = new Set<string>();
  for (const part of expression.split(TAG_SEPARATOR)) {
    const tag = part.trim();
    if (tag === "" || seen.has(tag)) continue;
    seen.add(tag);
    sub.tagsSet.push(tag);
    sub.codeSet.push(javaStringHash(tag));
  }
  return sub;
}

/** From this many codes on, the per-message filter check uses a Set instead of scanning the array. */
const CODE_LOOKUP_SET_MIN = 16;

/**
 * Sets of large codeSets, built on first use and keyed by the array itself, so that
 * SubscriptionData stays plain JSON. A codeSet is not mutated once buildSubscription returns it.
 */
const codeLookup = new WeakMap<readonly number[], ReadonlySet<number>>();

function hasCode(codeSet: readonly number[], code: number): boolean {
  if (codeSet.length < CODE_LOOKUP_SET_MIN) return codeSet.includes(code);
  let set = codeLookup.get(codeSet);
  if (!set) {
    set = new Set(codeSet);
    codeLookup.set(codeSet, set);
  }
  return set.has(code);
}

/** True when a consume-queue tags code passes the subscription (broker-side hash filter). */
export function matchesTagsCode(sub: SubscriptionData | null | undefined, tagsCode: number): boolean {
  if (!sub || sub.classFilterMode) return true;
  if (sub.expressionType !== ExpressionType.TAG) return true;
  if (sub.subString === SUB_ALL) return true;
  // The CQ stores a long; compare its low 32 bits as Java does with (int) tagsCode.
  return hasCode(sub.codeSet, tagsCode | 0);
}

/** Normalises a subscription received from a client (C++ omits arrays and sends subVersion as text). */
export function subscriptionFromJson(raw: Record<string, unknown>): SubscriptionData {
  const topic = String(raw.topic ?? "");
  const expressionType = typeof raw.expressionType === "string" ? raw.expressionType : ExpressionType.TAG;
  const subString = typeof raw.subString === "string" ? raw.subString : SUB_ALL;
  const subVersion = Number(raw.subVersion ?? 0) || 0;
  if (expressionType !== ExpressionType.TAG) {
    return { topic, subString, tagsSet: [], codeSet: [], subVersion, expressionType, classFilterMode: false };
  }
  // Recomputing the codes from the expression is safe and fixes clients that omit codeSet (spec §7.7).
  const sub = buildSubscription(topic, subString, subVersion);
  sub.classFilterMode = raw.classFilterMode === true;
  return sub;
}
