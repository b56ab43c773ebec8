/**
 * A minimal DER encoder (ITU-T X.690), enough to write X.509 certificates: each value is
 * `[tag][length][content]`, with the length in short form below 128 bytes and otherwise as
 * 0x80 | n followed by n big-endian bytes.
 */

/** DER output: always a fresh, exclusively owned buffer (what WebCrypto accepts to sign). */
export type Der = Uint8Array<ArrayBuffer>;

/** Universal and context tags used by X.509. */
export const Tag = {
  BOOLEAN: 0x01,
  INTEGER: 0x02,
  BIT_STRING: 0x03,
  OCTET_STRING: 0x04,
  OID: 0x06,
  UTF8_STRING: 0x0c,
  UTC_TIME: 0x17,
  GENERALIZED_TIME: 0x18,
  SEQUENCE: 0x30,
  SET: 0x31,
} as const;

/** UTCTime holds years 1950-2049; later dates are GeneralizedTime (RFC 5280 §4.1.2.5). */
const UTC_TIME_YEAR_END = 2050;

function lengthBytes(n: number): number[] {
  if (n < 0x80) return [n];
  const out: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) out.unshift(v & 0xff);
  return [0x80 | out.length, ...out];
}

function join(parts: readonly Uint8Array[]): Der {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let pos = 0;
  for (const p of parts) {
    out.set(p, pos);
    pos += p.length;
  }
  return out;
}

/** One TLV with the given tag around `content`. */
export function tlv(tag: number, ...content: Uint8Array[]): Der {
  const body = join(content);
  return join([Uint8Array.of(tag, ...lengthBytes(body.length)), body]);
}

export const sequence = (...items: Uint8Array[]): Der => tlv(Tag.SEQUENCE, ...items);
export const set = (...items: Uint8Array[]): Der => tlv(Tag.SET, ...items);
export const octetString = (bytes: Uint8Array): Der => tlv(Tag.OCTET_STRING, bytes);
export const utf8String = (text: string): Der => tlv(Tag.UTF8_STRING, new TextEncoder().encode(text));
export const boolean = (value: boolean): Der => tlv(Tag.BOOLEAN, Uint8Array.of(value ? 0xff : 0));

/** A BIT STRING of whole bytes, or of `bytes` whose last `unusedBits` bits do not count. */
export function bitString(bytes: Uint8Array, unusedBits = 0): Der {
  return tlv(Tag.BIT_STRING, Uint8Array.of(unusedBits), bytes);
}

/** An unsigned big-endian integer: leading zeros dropped, a 0 added when the top bit is set. */
export function unsignedInteger(bytes: Uint8Array): Der {
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start++;
  const trimmed = bytes.subarray(start);
  const pad = (trimmed[0] ?? 0) & 0x80 ? Uint8Array.of(0) : new Uint8Array(0);
  return tlv(Tag.INTEGER, pad, trimmed);
}

export const smallInteger = (n: number): Der => unsignedInteger(Uint8Array.of(n));

/** An OBJECT IDENTIFIER from dotted text: the first two arcs as 40·a + b, each arc base-128. */
export function oid(dotted: string): Der {
  const arcs = dotted.split(".").map(Number);
  const values = [40 * arcs[0]! + arcs[1]!, ...arcs.slice(2)];
  const out: number[] = [];
  for (const value of values) {
    const groups = [value & 0x7f];
    for (let v = Math.floor(value / 128); v > 0; v = Math.floor(v / 128)) groups.unshift((v & 0x7f) | 0x80);
    out.push(...groups);
  }
  return tlv(Tag.OID, Uint8Array.from(out));
}

/** UTCTime or GeneralizedTime, to the second, in UTC. */
export function time(date: Date): Der {
  const iso = date.toISOString(); // 2026-01-02T03:04:05.678Z
  const digits = iso.slice(0, 19).replace(/[-T:]/g, "");
  const text = date.getUTCFullYear() < UTC_TIME_YEAR_END ? `${digits.slice(2)}Z` : `${digits}Z`;
  const tag = text.length === 13 ? Tag.UTC_TIME : Tag.GENERALIZED_TIME;
  return tlv(tag, new TextEncoder().encode(text));
}

/** A context-specific tag: [n] EXPLICIT (constructed) or [n] IMPLICIT primitive. */
export const explicit = (n: number, ...content: Uint8Array[]): Der => tlv(0xa0 | n, ...content);
export const implicitPrimitive = (n: number, bytes: Uint8Array): Der => tlv(0x80 | n, bytes);

/** PEM armour: base64 in 64-character lines between BEGIN and END lines. */
export function pem(label: string, der: Uint8Array): string {
  const b64 = Buffer.from(der).toString("base64");
  const lines = b64.match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join("\n")}\n-----END ${label}-----\n`;
}
