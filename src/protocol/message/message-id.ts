/**
 * Message ids (spec §3): the broker's offset id (store host + physical offset, §3.1) and the
 * client unique id carried in `UNIQ_KEY` (§3.2). Both are upper-case hex.
 */
import { formatHostAddress, type HostAddress } from "./host-address.ts";

/** Upper-case hex of each byte value. */
const HEX_BYTE: readonly string[] = Array.from({ length: 256 }, (_, i) =>
  i.toString(16).toUpperCase().padStart(2, "0"),
);

/** Upper-case hex of `bytes`. */
export function toHex(bytes: Uint8Array): string {
  let s = "";
  for (let i = 0; i < bytes.length; i++) s += HEX_BYTE[bytes[i]!]!;
  return s;
}

/** 8 upper-case hex digits of a 32-bit value (its two's complement if negative). */
function hex32(n: number): string {
  return (
    HEX_BYTE[(n >>> 24) & 0xff]! +
    HEX_BYTE[(n >>> 16) & 0xff]! +
    HEX_BYTE[(n >>> 8) & 0xff]! +
    HEX_BYTE[n & 0xff]!
  );
}

/** Char codes of the upper-case hex digits. */
const HEX_DIGIT: readonly number[] = Array.from("0123456789ABCDEF", (c) => c.charCodeAt(0));

/**
 * `hex32` for the offset id's hot path: one flat string from one native call, where `hex32`
 * concatenates four table strings into a rope that is flattened later.
 */
function hex32Flat(n: number): string {
  const d = HEX_DIGIT;
  return String.fromCharCode(
    d[(n >>> 28) & 15]!,
    d[(n >>> 24) & 15]!,
    d[(n >>> 20) & 15]!,
    d[(n >>> 16) & 15]!,
    d[(n >>> 12) & 15]!,
    d[(n >>> 8) & 15]!,
    d[(n >>> 4) & 15]!,
    d[n & 15]!,
  );
}

/** `ip · port` of a store host in hex, per host object (hosts are few and long-lived). */
const hostHex = new WeakMap<HostAddress, string>();

export function fromHex(hex: string): Uint8Array {
  if (hex.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(hex)) throw new Error(`invalid hex: ${hex}`);
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

/**
 * Offset message id (spec §3.1): `ip(4|16) · port(i32) · physicalOffset(i64)`, 32 or 56 hex chars.
 */
export function encodeOffsetMessageId(storeHost: HostAddress, physicalOffset: number): string {
  let prefix = hostHex.get(storeHost);
  if (prefix === undefined) {
    prefix = toHex(storeHost.ip) + hex32(storeHost.port);
    hostHex.set(storeHost, prefix);
  }
  // The i64 as two 32-bit halves; Math.floor keeps the sign in the high half (|n| < 2^53).
  const hi = Math.floor(physicalOffset / 0x1_0000_0000);
  return prefix + (hi === 0 ? "00000000" : hex32Flat(hi)) + hex32Flat(physicalOffset - hi * 0x1_0000_0000);
}

export interface DecodedOffsetMessageId {
  readonly storeHost: HostAddress;
  /** `"ip:port"` of the broker that stored the message. */
  readonly address: string;
  readonly physicalOffset: number;
}

/** Decodes a 32- or 56-char offset message id; throws on any other shape. */
export function decodeOffsetMessageId(id: string): DecodedOffsetMessageId {
  if (id.length !== 32 && id.length !== 56) throw new Error(`not an offset message id: ${id}`);
  const buf = fromHex(id);
  const n = id.length === 32 ? 4 : 16;
  const dv = new DataView(buf.buffer);
  const storeHost = { ip: buf.slice(0, n), port: dv.getInt32(n) };
  return {
    storeHost,
    address: formatHostAddress(storeHost),
    physicalOffset: Number(dv.getBigInt64(n + 4)),
  };
}

export interface UniqueIdOptions {
  /** 4 or 16 bytes identifying this host. */
  readonly ip: Uint8Array;
  readonly pid: number;
  /** Stands in for Java's class-loader hash: any per-process constant. */
  readonly instanceHash: number;
  readonly now?: () => number;
}

/** A generator of client unique ids. */
export interface UniqueIdGenerator {
  /** The next id. */
  (): string;
  /**
   * Writes the next id as ASCII at `dst[at]` (`idLength` bytes) from bytes the generator keeps,
   * making no string: a batch writes its ids without building and flattening one per message.
   */
  into(dst: Uint8Array, at: number): void;
  /** Chars in every id: 32 for an IPv4 host, 56 for IPv6. */
  readonly idLength: number;
}

/**
 * Generator of client unique ids (spec §3.2): `ip · pid(u16) · instanceHash(i32) · ms since the
 * start of the local month (i32) · counter(u16)`.
 */
export function createUniqueIdGenerator(opts: UniqueIdOptions): UniqueIdGenerator {
  const now = opts.now ?? Date.now;
  const n = opts.ip.length;
  const fixed = new Uint8Array(n + 6);
  fixed.set(opts.ip, 0);
  const fdv = new DataView(fixed.buffer);
  fdv.setUint16(n, opts.pid & 0xffff);
  fdv.setInt32(n + 2, opts.instanceHash | 0);
  const prefix = toHex(fixed);
  let counter = 0;
  // The local month [monthStart, nextMonthStart) the last id fell in: recomputed only when the
  // clock leaves it (a month boundary, a DST-shifted zone or a clock set back), not per id.
  let monthStart = 0;
  let nextMonthStart = -1;
  // Ids made in one millisecond share everything but the counter: the head is built once per ms,
  // as a string and (for `into`) as its ASCII bytes.
  let lastTime = Number.NaN;
  let head = "";
  const headBytes = new Uint8Array(prefix.length + 8);
  /** Brings the head (string and bytes) to the current millisecond. */
  const advance = (): void => {
    const t = now();
    if (t === lastTime) return;
    if (t < monthStart || t >= nextMonthStart) {
      const d = new Date(t);
      monthStart = new Date(d.getFullYear(), d.getMonth(), 1).getTime();
      nextMonthStart = new Date(d.getFullYear(), d.getMonth() + 1, 1).getTime();
    }
    head = prefix + hex32((t - monthStart) | 0);
    for (let i = 0; i < head.length; i++) headBytes[i] = head.charCodeAt(i);
    lastTime = t;
  };
  const next = (): string => {
    advance();
    const id = head + HEX_BYTE[counter >>> 8]! + HEX_BYTE[counter & 0xff]!;
    counter = (counter + 1) & 0xffff;
    return id;
  };
  const into = (dst: Uint8Array, at: number): void => {
    advance();
    const h = headBytes.length;
    for (let i = 0; i < h; i++) dst[at + i] = headBytes[i]!;
    const d = HEX_DIGIT;
    dst[at + h] = d[(counter >>> 12) & 15]!;
    dst[at + h + 1] = d[(counter >>> 8) & 15]!;
    dst[at + h + 2] = d[(counter >>> 4) & 15]!;
    dst[at + h + 3] = d[counter & 15]!;
    counter = (counter + 1) & 0xffff;
  };
  return Object.assign(next, { into, idLength: prefix.length + 12 });
}
