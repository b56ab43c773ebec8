/**
 * ACL 1.0 request signatures, both sides (Java's AclClientRPCHook, AclUtils.combineRequestContent,
 * AclSigner; ali-ons' Channel.beforeRequest):
 *
 *   content   = UTF-8 of the ext field values concatenated in key order (Java's TreeMap order:
 *               UTF-16 code units, as Array.prototype.sort), `Signature` left out, then the body
 *   Signature = Base64(HmacSHA1(secretKey as UTF-8, content))
 *
 * The client adds `AccessKey` (and `SecurityToken` when it has one) before signing, so they are
 * signed too; ali-ons also adds and signs `OnsChannel`. The HMAC itself is `hmac-sha1.ts`.
 */

import type { ExtFields, RemotingCommand } from "../remoting/command.ts";
import { AclField, UNIQUE_MSG_QUERY_FLAG, V4_9_3 } from "./constants.ts";
import { HmacSha1 } from "./hmac-sha1.ts";

export interface SessionCredentials {
  readonly accessKey: string;
  readonly secretKey: string;
  /** Sent and signed when given (Java's optional SecurityToken); the broker does not check it. */
  readonly securityToken?: string;
}

/** A secret ready for HMAC; made once per account or client, not per request. */
export type HmacKey = HmacSha1;

export function hmacKey(secretKey: string): HmacKey {
  return new HmacSha1(secretKey);
}

/**
 * Sorted key lists by the order the keys arrived in. Requests of one kind from one client carry the
 * same keys in the same order, so the sort is done once per shape and the lookup is a key-by-key
 * comparison. Bounded: a peer sending ever new shapes only costs a sort each.
 */
export class SortedKeys {
  private readonly byFirstKey = new Map<string, { keys: string[]; sorted: string[] }>();
  private static readonly SHAPES_MAX = 256;
  /** Shapes with more, or longer, keys are sorted every time rather than kept. */
  private static readonly SHAPE_KEYS_MAX = 48;
  private static readonly SHAPE_CHARS_MAX = 1024;

  /** The shape seen last: a client's requests of one kind arrive in runs, so most lookups end here. */
  private last: { keys: string[]; sorted: string[] } | null = null;

  of(ext: ExtFields): string[] {
    const last = this.last;
    // Walked in place: the usual repeat costs no key array.
    if (last !== null && keysInOrder(ext, last.keys)) return last.sorted;
    const keys = Object.keys(ext);
    if (keys.length === 0) return keys;
    const cacheKey = `${keys.length}\u0000${keys[0]}\u0000${keys[keys.length - 1]}`;
    const hit = this.byFirstKey.get(cacheKey);
    if (hit && sameKeys(hit.keys, keys)) {
      this.last = hit;
      return hit.sorted;
    }
    const sorted = [...keys].sort();
    if (!SortedKeys.worthKeeping(keys)) return sorted;
    if (this.byFirstKey.size >= SortedKeys.SHAPES_MAX) this.byFirstKey.clear();
    const shape = { keys, sorted };
    this.byFirstKey.set(cacheKey, shape);
    this.last = shape;
    return sorted;
  }

  /** Real requests have a few short keys; a peer's odd shapes must not pin large strings here. */
  private static worthKeeping(keys: readonly string[]): boolean {
    if (keys.length > SortedKeys.SHAPE_KEYS_MAX) return false;
    let chars = 0;
    for (const k of keys) chars += k.length;
    return chars <= SortedKeys.SHAPE_CHARS_MAX;
  }
}

/** Whether `ext`'s enumerable keys are `keys`, in that order. */
function keysInOrder(ext: ExtFields, keys: readonly string[]): boolean {
  let i = 0;
  for (const k in ext) if (k !== keys[i++]) return false;
  return i === keys.length;
}

function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * The Base64 HMAC of a request's content. `version` is the sender's MQVersion ordinal: senders up
 * to V4_9_3 have `_UNIQUE_KEY_QUERY` left out (they add it after signing).
 */
export function computeSignature(
  key: HmacKey | string,
  ext: ExtFields | null,
  body: Uint8Array | null,
  sortedKeys: readonly string[] = ext ? Object.keys(ext).sort() : [],
  version = Number.MAX_SAFE_INTEGER,
): string {
  const parts: string[] = [];
  if (ext) {
    const skipUnique = version <= V4_9_3;
    for (const k of sortedKeys) {
      if (k === AclField.SIGNATURE || (skipUnique && k === UNIQUE_MSG_QUERY_FLAG)) continue;
      const value = ext[k];
      if (value !== undefined) parts.push(value);
    }
  }
  return (typeof key === "string" ? hmacKey(key) : key).signParts(parts, body);
}

/**
 * Compares two Base64 signatures without leaking, through timing, where they first differ: every
 * character is looked at whatever the earlier ones were (and nothing is allocated per request).
 */
export function signaturesEqual(expected: string, given: string | undefined): boolean {
  if (given === undefined || given.length !== expected.length) return false;
  let diff = 0;
  for (let i = 0; i < expected.length; i++) diff |= expected.charCodeAt(i) ^ given.charCodeAt(i);
  return diff === 0;
}

/**
 * The client's RPC hook: gives the request its own copy of the ext fields (callers share header
 * objects between requests) with AccessKey (and SecurityToken) added, then signs it. A request
 * sent again is signed again over its current fields.
 */
export function createRequestSigner(credentials: SessionCredentials): (request: RemotingCommand) => void {
  const key = hmacKey(credentials.secretKey);
  const sortedKeys = new SortedKeys();
  return (request) => {
    const ext: ExtFields = { ...request.extFields };
    ext[AclField.ACCESS_KEY] = credentials.accessKey;
    if (credentials.securityToken !== undefined) ext[AclField.SECURITY_TOKEN] = credentials.securityToken;
    ext[AclField.SIGNATURE] = computeSignature(key, ext, request.body, sortedKeys.of(ext));
    request.extFields = ext;
  };
}
