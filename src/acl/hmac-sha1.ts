/**
 * HMAC-SHA1 (RFC 2104) for ACL signatures, made from two one-shot SHA-1 hashes over a scratch
 * buffer: H((K ^ opad) ‖ H((K ^ ipad) ‖ text ‖ body)). The padded keys are computed once per
 * secret, so a request costs the two hashes and one copy of its content, with nothing allocated
 * but the Base64 string. On a 1 KiB send this is about 40% cheaper than node:crypto's createHmac,
 * which builds an HMAC context per call; the signature is on every request of both the client and
 * the broker, so that difference is most of what ACL costs a sender (bench/security).
 *
 * Bun.SHA1 rather than Bun.CryptoHasher: the latter (Bun 1.4.5) was seen to throw a stale
 * BoringSSL error left by a TLS connection's shutdown. Should the one-shot hash ever throw, the
 * signature is computed again with createHmac, so an error there costs time, never a refusal.
 */
import { createHmac, createSecretKey, type KeyObject } from "node:crypto";

const BLOCK = 64;
const DIGEST = 20;
/** Content larger than this is streamed into createHmac instead of copied into the scratch buffer. */
const SCRATCH_MAX = 64 * 1024;
const IPAD = 0x36;
const OPAD = 0x5c;
const utf8 = new TextEncoder();
/** Base64 of a 20-byte digest: 27 characters and one `=`. */
const BASE64_DIGEST_CHARS = 28;
const BASE64_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const BASE64_CODES = Uint8Array.from(BASE64_ALPHABET, (ch) => ch.charCodeAt(0));
const PAD = 0x3d;

export class HmacSha1 {
  private readonly key: KeyObject;
  private readonly innerPad = new Uint8Array(BLOCK);
  /** opad key then the inner digest: the outer hash's whole input. */
  private readonly outer = new Uint8Array(BLOCK + DIGEST);
  /** Where the inner hash writes its digest; a view made once (a view per call costs more than the copy). */
  private readonly innerDigest = this.outer.subarray(BLOCK);
  /** The outer digest, when it is compared rather than encoded. */
  private readonly mac = new Uint8Array(DIGEST);
  /** The ipad key, then the text and body of the request being signed. */
  private scratch = new Uint8Array(4096);
  /** `scratch` after the ipad block, where UTF-8 text is encoded. */
  private scratchText = this.scratch.subarray(BLOCK);
  /**
   * The inner hash's input as last hashed, kept while the next one has the same length (a sender's
   * requests mostly do): a view made per request costs about as much as writing its text.
   */
  private hashed = this.scratch.subarray(0, 0);

  constructor(secret: string) {
    const bytes = Buffer.from(secret, "utf8");
    this.key = createSecretKey(bytes);
    const k = bytes.length > BLOCK ? new Uint8Array(Bun.SHA1.hash(bytes).buffer) : bytes;
    for (let i = 0; i < BLOCK; i++) {
      const b = k[i] ?? 0;
      this.innerPad[i] = b ^ IPAD;
      this.outer[i] = b ^ OPAD;
    }
    this.scratch.set(this.innerPad, 0);
  }

  /** Base64 of HMAC-SHA1(secret, UTF-8(text) ‖ body). */
  sign(text: string, body: Uint8Array | null): string {
    const bodyLength = body?.length ?? 0;
    // UTF-8 takes at most 3 bytes per UTF-16 code unit.
    const most = BLOCK + text.length * 3 + bodyLength;
    if (most > SCRATCH_MAX) return this.stream(text, body);
    try {
      return this.oneShot(text, body, bodyLength, most);
    } catch {
      return this.stream(text, body);
    }
  }

  /**
   * Base64 of HMAC-SHA1(secret, UTF-8(the values of `keys` joined, in that order) ‖ body); a key
   * with no value adds nothing. What `sign` gives for the joined text, but ASCII values are written
   * straight from the record into the scratch buffer by a plain loop: no array of parts and no
   * joined string is built per request. Text with any other char is joined and encoded whole, as
   * is text that does not fit the scratch buffer yet: a surrogate pair split between two values
   * must encode as the pair.
   */
  signFields(
    values: Readonly<Record<string, string>>,
    keys: readonly string[],
    body: Uint8Array | null,
  ): string {
    const bodyLength = body?.length ?? 0;
    try {
      const textEnd = this.writeFields(values, keys, bodyLength);
      if (textEnd < 0) return this.sign(joinValues(values, keys), body);
      this.digest(textEnd, body, bodyLength);
      return Bun.SHA1.hash(this.outer, "base64");
    } catch {
      return this.stream(joinValues(values, keys), body);
    }
  }

  /**
   * Whether `given` is what `signFields` computes for the same content: the broker's check. The
   * digest is compared with `given`'s Base64 text character by character, every one looked at
   * whatever the earlier ones were (no timing tells where they first differ), and no string is
   * made for the expected signature.
   */
  verifyFields(
    values: Readonly<Record<string, string>>,
    keys: readonly string[],
    body: Uint8Array | null,
    given: string | undefined,
  ): boolean {
    if (given === undefined || given.length !== BASE64_DIGEST_CHARS) return false;
    const bodyLength = body?.length ?? 0;
    let textEnd: number;
    try {
      textEnd = this.writeFields(values, keys, bodyLength);
      if (textEnd >= 0) this.digest(textEnd, body, bodyLength, this.mac);
    } catch {
      textEnd = -1;
    }
    if (textEnd < 0) return base64TextEqual(this.signFields(values, keys, body), given);
    return base64DigestEqual(this.mac, given);
  }

  /**
   * Writes the values of `keys` as ASCII after the ipad block, leaving room for `bodyLength` body
   * bytes; the end of the text, or -1 when a value has another char or the text does not fit.
   */
  private writeFields(
    values: Readonly<Record<string, string>>,
    keys: readonly string[],
    bodyLength: number,
  ): number {
    const s = this.scratch;
    // Room for the body is kept from the start, so a value that fits is never moved.
    const room = s.length - bodyLength;
    if (room < BLOCK) return -1;
    let at = BLOCK;
    for (let k = 0; k < keys.length; k++) {
      const value = values[keys[k]!];
      if (value === undefined) continue;
      if (at + value.length > room) return -1;
      for (let i = 0; i < value.length; i++) {
        const c = value.charCodeAt(i);
        if (c > 0x7f) return -1;
        s[at++] = c;
      }
    }
    return at;
  }

  private oneShot(text: string, body: Uint8Array | null, bodyLength: number, most: number): string {
    this.ensureScratch(most);
    const { written } = utf8.encodeInto(text, this.scratchText);
    this.digest(BLOCK + written, body, bodyLength);
    return Bun.SHA1.hash(this.outer, "base64");
  }

  private ensureScratch(most: number): void {
    if (this.scratch.length >= most) return;
    this.scratch = new Uint8Array(Math.min(SCRATCH_MAX, most * 2));
    this.scratch.set(this.innerPad, 0);
    this.scratchText = this.scratch.subarray(BLOCK);
    this.hashed = this.scratch.subarray(0, 0);
  }

  /**
   * The inner hash over ipad ‖ scratch[BLOCK, textEnd) ‖ body, its digest put after the opad key;
   * with `out`, the outer hash too, into `out` (else the caller hashes `outer` as it needs).
   */
  private digest(textEnd: number, body: Uint8Array | null, bodyLength: number, out?: Uint8Array): void {
    const s = this.scratch;
    if (body !== null && bodyLength > 0) s.set(body, textEnd);
    const length = textEnd + bodyLength;
    if (this.hashed.length !== length) this.hashed = s.subarray(0, length);
    Bun.SHA1.hash(this.hashed, this.innerDigest);
    if (out !== undefined) Bun.SHA1.hash(this.outer, out);
  }

  private stream(text: string, body: Uint8Array | null): string {
    const hmac = createHmac("sha1", this.key).update(text, "utf8");
    if (body !== null && body.length > 0) hmac.update(body);
    return hmac.digest("base64");
  }
}

function joinValues(values: Readonly<Record<string, string>>, keys: readonly string[]): string {
  let text = "";
  for (const key of keys) text += values[key] ?? "";
  return text;
}

/** Both strings the same, every character looked at (a length differs: false at once, as it is public). */
function base64TextEqual(expected: string, given: string): boolean {
  if (expected.length !== given.length) return false;
  let diff = 0;
  for (let i = 0; i < expected.length; i++) diff |= expected.charCodeAt(i) ^ given.charCodeAt(i);
  return diff === 0;
}

/** Whether `given` (28 chars) is the standard padded Base64 of the 20-byte `digest`; every char looked at. */
function base64DigestEqual(digest: Uint8Array, given: string): boolean {
  let diff = 0;
  let at = 0;
  // Six groups of three bytes make 24 chars; the last two bytes make three chars and the pad.
  for (let i = 0; i < 18; i += 3) {
    const n = (digest[i]! << 16) | (digest[i + 1]! << 8) | digest[i + 2]!;
    diff |= BASE64_CODES[n >>> 18]! ^ given.charCodeAt(at++);
    diff |= BASE64_CODES[(n >>> 12) & 63]! ^ given.charCodeAt(at++);
    diff |= BASE64_CODES[(n >>> 6) & 63]! ^ given.charCodeAt(at++);
    diff |= BASE64_CODES[n & 63]! ^ given.charCodeAt(at++);
  }
  const n = (digest[18]! << 8) | digest[19]!;
  diff |= BASE64_CODES[n >>> 10]! ^ given.charCodeAt(at++);
  diff |= BASE64_CODES[(n >>> 4) & 63]! ^ given.charCodeAt(at++);
  diff |= BASE64_CODES[(n << 2) & 63]! ^ given.charCodeAt(at++);
  diff |= PAD ^ given.charCodeAt(at);
  return diff === 0;
}
