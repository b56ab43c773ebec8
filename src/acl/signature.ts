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
 * The keys whose values a signature covers, in signing order: the ext field keys sorted (Java's
 * TreeMap order: UTF-16 code units, as Array.prototype.sort), `Signature` left out, and
 * `_UNIQUE_KEY_QUERY` too for senders up to V4_9_3 (`version` is the sender's MQVersion ordinal;
 * those add it after signing).
 */
export function signedKeysOf(ext: ExtFields, version = Number.MAX_SAFE_INTEGER): string[] {
  return signedOfSorted(Object.keys(ext).sort(), version <= V4_9_3);
}

function signedOfSorted(sorted: readonly string[], skipUnique: boolean): string[] {
  return sorted.filter((k) => k !== AclField.SIGNATURE && !(skipUnique && k === UNIQUE_MSG_QUERY_FLAG));
}

/** One request shape: its keys in arrival order and the keys its signature covers, both ways. */
interface Shape {
  readonly keys: readonly string[];
  readonly signed: readonly string[];
  readonly signedUpToV4_9_3: readonly string[];
}

function shapeOf(keys: readonly string[]): Shape {
  const sorted = [...keys].sort();
  return { keys, signed: signedOfSorted(sorted, false), signedUpToV4_9_3: signedOfSorted(sorted, true) };
}

const NO_KEYS: Shape = Object.freeze({ keys: [], signed: [], signedUpToV4_9_3: [] });

/**
 * `signedKeysOf` by the order the keys arrived in. Requests of one kind from one client carry the
 * same keys in the same order, so the sort and the filtering are done once per shape and the
 * lookup is a key-by-key comparison. Bounded: a peer sending ever new shapes only costs a sort each.
 */
export class SignedKeys {
  private readonly byFirstKey = new Map<string, Shape>();
  private static readonly SHAPES_MAX = 256;
  /** Shapes with more, or longer, keys are sorted every time rather than kept. */
  private static readonly SHAPE_KEYS_MAX = 48;
  private static readonly SHAPE_CHARS_MAX = 1024;

  /** The shape seen last: a client's requests of one kind arrive in runs, so most lookups end here. */
  private last: Shape | null = null;

  of(ext: ExtFields, version = Number.MAX_SAFE_INTEGER): readonly string[] {
    const shape = this.shape(ext);
    return version <= V4_9_3 ? shape.signedUpToV4_9_3 : shape.signed;
  }

  private shape(ext: ExtFields): Shape {
    const last = this.last;
    // Walked in place: the usual repeat costs no key array.
    if (last !== null && keysInOrder(ext, last.keys)) return last;
    const keys = Object.keys(ext);
    if (keys.length === 0) return NO_KEYS;
    const cacheKey = `${keys.length}\u0000${keys[0]}\u0000${keys[keys.length - 1]}`;
    const hit = this.byFirstKey.get(cacheKey);
    if (hit && sameKeys(hit.keys, keys)) {
      this.last = hit;
      return hit;
    }
    const shape = shapeOf(keys);
    if (!SignedKeys.worthKeeping(keys)) return shape;
    if (this.byFirstKey.size >= SignedKeys.SHAPES_MAX) this.byFirstKey.clear();
    this.byFirstKey.set(cacheKey, shape);
    this.last = shape;
    return shape;
  }

  /** Real requests have a few short keys; a peer's odd shapes must not pin large strings here. */
  private static worthKeeping(keys: readonly string[]): boolean {
    if (keys.length > SignedKeys.SHAPE_KEYS_MAX) return false;
    let chars = 0;
    for (const k of keys) chars += k.length;
    return chars <= SignedKeys.SHAPE_CHARS_MAX;
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
 * The Base64 HMAC of a request's content, by the definition (the keys sorted on each call). The
 * broker and the client sign through a SignedKeys cache and `HmacKey.signFields` instead.
 */
export function computeSignature(
  key: HmacKey | string,
  ext: ExtFields | null,
  body: Uint8Array | null,
  version = Number.MAX_SAFE_INTEGER,
): string {
  const hmac = typeof key === "string" ? hmacKey(key) : key;
  return ext ? hmac.signFields(ext, signedKeysOf(ext, version), body) : hmac.signFields({}, [], body);
}

/**
 * The client's RPC hook: gives the request its own copy of the ext fields (callers share header
 * objects between requests) with AccessKey (and SecurityToken) added, then signs it. A request
 * sent again is signed again over its current fields.
 */
export function createRequestSigner(credentials: SessionCredentials): (request: RemotingCommand) => void {
  const key = hmacKey(credentials.secretKey);
  const signedKeys = new SignedKeys();
  return (request) => {
    const ext: ExtFields = { ...request.extFields };
    ext[AclField.ACCESS_KEY] = credentials.accessKey;
    if (credentials.securityToken !== undefined) ext[AclField.SECURITY_TOKEN] = credentials.securityToken;
    ext[AclField.SIGNATURE] = key.signFields(ext, signedKeys.of(ext), request.body);
    request.extFields = ext;
  };
}
