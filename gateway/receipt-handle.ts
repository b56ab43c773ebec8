/**
 * The gateway's receipt handles: self-contained and signed, so any gateway holding the same secret
 * acks any handle and a restart loses nothing (design: consumption at the edge is stateless).
 *
 *   v1.<payload>.<signature>        base64url, no padding
 *   payload   = group "\n" topic "\n" brokerHandle
 *   signature = HMAC-SHA256(secret, "v1." + payload)
 *
 * The broker handle (spec pop-timer-filter §A.6) names the broker, queue, offset, retry flag, pop
 * time and invisible time; the group and original topic are the rest of what ACK_MESSAGE needs.
 * A handle whose signature does not verify (forged, altered, another secret) is refused before any
 * broker request is made. Handles signed lately are remembered (receipt-handle-cache.ts), so
 * verifying one of them is a lookup of its exact text.
 */
import { createHmac, createSecretKey, type KeyObject, randomBytes, timingSafeEqual } from "node:crypto";
import { HandleCache } from "./receipt-handle-cache.ts";

const VERSION = "v1";
/** What the MAC covers before the payload. */
const SIGNED_PREFIX = `${VERSION}.`;
/** Longer than any handle this gateway signs (names ≤ 255, broker handle < 200 characters). */
export const HANDLE_CHARS_MAX = 2048;
/** HMAC-SHA256 is 32 bytes; Bun's hasher writes a digest only into 64 bytes or more. */
const MAC_BYTES = 32;
const DIGEST_SCRATCH_BYTES = 64;
/** UTF-8 takes at most 3 bytes per UTF-16 code unit. */
const UTF8_BYTES_PER_UNIT_MAX = 3;
/** Payloads up to this many bytes are encoded through the signer's scratch buffer. */
const PAYLOAD_SCRATCH_BYTES = 4096;

export interface LeaseHandle {
  group: string;
  topic: string;
  /** The broker's receipt handle (9 fields, the proxy's form). */
  brokerHandle: string;
}

export class HandleSigner {
  /** HMAC-SHA256 keyed once; each MAC starts from a copy of it (half the cost of keying anew). */
  private readonly keyed: Bun.CryptoHasher;
  /** The same key for node:crypto, should the Bun hasher throw (see mac). */
  private readonly key: KeyObject;
  private readonly recent: HandleCache;
  /**
   * Scratch for sign, which every leased message passes: the payload's bytes and the MAC are
   * written here and read out as base64url, rather than each in a Buffer of its own per handle.
   */
  private readonly payloadBytes = Buffer.allocUnsafe(PAYLOAD_SCRATCH_BYTES);
  private readonly digestBytes = Buffer.allocUnsafe(DIGEST_SCRATCH_BYTES);

  /** `secret` empty: a random key, good for this process only. */
  constructor(secret: string, cache = new HandleCache()) {
    const key = secret === "" ? randomBytes(32) : Buffer.from(secret, "utf8");
    this.keyed = new Bun.CryptoHasher("sha256", key);
    this.key = createSecretKey(key);
    this.recent = cache;
  }

  sign(h: LeaseHandle): string {
    const payload = this.base64url(`${h.group}\n${h.topic}\n${h.brokerHandle}`);
    const handle = `${VERSION}.${payload}.${this.macText(payload)}`;
    this.recent.add(handle, h);
    return handle;
  }

  private base64url(text: string): string {
    if (text.length * UTF8_BYTES_PER_UNIT_MAX > PAYLOAD_SCRATCH_BYTES)
      return Buffer.from(text, "utf8").toString("base64url");
    const n = this.payloadBytes.write(text, 0, "utf8");
    return this.payloadBytes.toString("base64url", 0, n);
  }

  /** mac(payload) as base64url, through the digest scratch; the same fallback as mac. */
  private macText(payload: string): string {
    try {
      // "v1." then the payload: the MAC of their concatenation, without building it.
      this.keyed.copy().update(SIGNED_PREFIX).update(payload).digest(this.digestBytes);
      return this.digestBytes.toString("base64url", 0, MAC_BYTES);
    } catch {
      return createHmac("sha256", this.key).update(`${SIGNED_PREFIX}${payload}`).digest("base64url");
    }
  }

  /** The handle's content, or a reason it is refused. */
  verify(handle: string): LeaseHandle | string {
    const issued = this.recent.take(handle);
    if (issued) return { group: issued.group, topic: issued.topic, brokerHandle: issued.brokerHandle };
    if (handle.length > HANDLE_CHARS_MAX) return "the receipt handle is too long";
    const parts = handle.split(".");
    if (parts.length !== 3 || parts[0] !== VERSION) return "not a receipt handle of this gateway";
    const [, payload, signature] = parts as [string, string, string];
    const given = Buffer.from(signature, "base64url");
    const expected = this.mac(payload);
    if (given.length !== expected.length || !timingSafeEqual(given, expected))
      return "the receipt handle's signature does not verify (altered, or signed with another secret)";
    const fields = Buffer.from(payload, "base64url").toString("utf8").split("\n");
    if (fields.length !== 3) return "the receipt handle's content is malformed";
    // Signed by a gateway that built it from a broker's answer: the signature vouches for the content.
    const [group, topic, brokerHandle] = fields as [string, string, string];
    return { group, topic, brokerHandle };
  }

  /**
   * Bun 1.4.5's CryptoHasher was seen to throw a stale BoringSSL error left by a TLS connection's
   * shutdown (see src/acl/hmac-sha1.ts); the same MAC is then computed with createHmac, so such an
   * error costs time, never a refused handle or a failed receive.
   */
  private mac(payload: string): Buffer {
    const text = `${VERSION}.${payload}`;
    try {
      return this.keyed.copy().update(text).digest() as Buffer;
    } catch {
      return createHmac("sha256", this.key).update(text).digest();
    }
  }
}

/**
 * When the lease a broker handle names runs out: its popTime + invisibleTime (fields 1 and 2,
 * spec pop §A.6; broker clock). Read on every message sent and settled, so without a full decode,
 * and the digits are summed in place: slicing them out and calling Number made two short strings
 * per call, and every pushed message's handle is read here twice.
 */
export function leaseDeadline(brokerHandle: string): number {
  const a = brokerHandle.indexOf(" ");
  const b = brokerHandle.indexOf(" ", a + 1);
  const c = brokerHandle.indexOf(" ", b + 1);
  const popTime = digitsValue(brokerHandle, a + 1, b);
  const invisibleTime = digitsValue(brokerHandle, b + 1, c);
  if (popTime >= 0 && invisibleTime >= 0) return popTime + invisibleTime;
  // Not plain digits (a sign, a fraction, a missing field): Number's reading, as before.
  return Number(brokerHandle.slice(a + 1, b)) + Number(brokerHandle.slice(b + 1, c));
}

const ZERO = 0x30;
const NINE = 0x39;
/** Digits beyond this many could pass 2^53 and lose exactness; Number reads those. */
const EXACT_DIGITS_MAX = 15;

/** The value of text[from, to) when it is 1 to 15 decimal digits, else -1. */
function digitsValue(text: string, from: number, to: number): number {
  if (to <= from || to - from > EXACT_DIGITS_MAX) return -1;
  let v = 0;
  for (let i = from; i < to; i++) {
    const d = text.charCodeAt(i);
    if (d < ZERO || d > NINE) return -1;
    v = v * 10 + (d - ZERO);
  }
  return v;
}
