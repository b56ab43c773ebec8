/**
 * CRC32 as RocketMQ's `UtilAll.crc32` computes it (spec §4.4): CRC-32/ISO-HDLC (the zlib/PNG CRC,
 * reflected polynomial 0xEDB88320) over the bytes, then the sign bit cleared.
 */

let table: Uint32Array | undefined;

function crcTable(): Uint32Array {
  if (table) return table;
  table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
}

/** Portable CRC-32 (unsigned); used where Bun's native hash is unavailable and to cross-check it. */
export function crc32Portable(bytes: Uint8Array): number {
  const t = crcTable();
  let c = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) c = t[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

const nativeCrc32: ((b: Uint8Array) => number) | undefined =
  typeof Bun !== "undefined" ? (b) => Bun.hash.crc32(b) : undefined;

/** Unsigned CRC-32 of `bytes`. */
export function crc32(bytes: Uint8Array): number {
  return nativeCrc32 ? nativeCrc32(bytes) >>> 0 : crc32Portable(bytes);
}

/** BODYCRC as stored in a record: `crc32(body) & 0x7FFFFFFF`; an empty body gives 0 (spec §4.4). */
export function bodyCrc(body: Uint8Array): number {
  if (body.length === 0) return 0;
  return crc32(body) & 0x7fffffff;
}
