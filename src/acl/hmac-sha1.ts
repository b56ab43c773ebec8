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

export class HmacSha1 {
  private readonly key: KeyObject;
  private readonly innerPad = new Uint8Array(BLOCK);
  /** opad key then the inner digest: the outer hash's whole input. */
  private readonly outer = new Uint8Array(BLOCK + DIGEST);
  /** Where the inner hash writes its digest; a view made once (a view per call costs more than the copy). */
  private readonly innerDigest = this.outer.subarray(BLOCK);
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
      const s = this.scratch;
      // Room for the body is kept from the start, so a value that fits is never moved.
      const room = s.length - bodyLength;
      if (room < BLOCK) return this.sign(joinValues(values, keys), body);
      let at = BLOCK;
      for (let k = 0; k < keys.length; k++) {
        const value = values[keys[k]!];
        if (value === undefined) continue;
        if (at + value.length > room) return this.sign(joinValues(values, keys), body);
        for (let i = 0; i < value.length; i++) {
          const c = value.charCodeAt(i);
          if (c > 0x7f) return this.sign(joinValues(values, keys), body);
          s[at++] = c;
        }
      }
      return this.finish(at, body, bodyLength);
    } catch {
      return this.stream(joinValues(values, keys), body);
    }
  }

  private oneShot(text: string, body: Uint8Array | null, bodyLength: number, most: number): string {
    this.ensureScratch(most);
    const { written } = utf8.encodeInto(text, this.scratchText);
    return this.finish(BLOCK + written, body, bodyLength);
  }

  private ensureScratch(most: number): void {
    if (this.scratch.length >= most) return;
    this.scratch = new Uint8Array(Math.min(SCRATCH_MAX, most * 2));
    this.scratch.set(this.innerPad, 0);
    this.scratchText = this.scratch.subarray(BLOCK);
    this.hashed = this.scratch.subarray(0, 0);
  }

  /** The inner hash over ipad ‖ scratch[BLOCK, textEnd) ‖ body, then the outer hash, as Base64. */
  private finish(textEnd: number, body: Uint8Array | null, bodyLength: number): string {
    const s = this.scratch;
    if (body !== null && bodyLength > 0) s.set(body, textEnd);
    const length = textEnd + bodyLength;
    if (this.hashed.length !== length) this.hashed = s.subarray(0, length);
    Bun.SHA1.hash(this.hashed, this.innerDigest);
    return Bun.SHA1.hash(this.outer, "base64");
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
