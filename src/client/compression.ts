/**
 * Body compression as RocketMQ producers do it (spec broker §4.6): zlib (RFC 1950) above a size
 * threshold, flagged COMPRESSED_FLAG | ZLIB type. Consumers inflate zlib (type 0 or 3) and zstd
 * when the runtime offers it; anything else is handed over still compressed.
 */
import { deflateSync, inflateSync } from "node:zlib";
import { MessageSysFlag } from "../protocol/message/index.ts";

/** Java's compressMsgBodyOverHowmuch and rocketmq.message.compressLevel defaults. */
export const DEFAULT_COMPRESS_BODY_OVER_BYTES = 4096;
export const DEFAULT_COMPRESS_LEVEL = 5;

export const CompressionType = { LZ4: 1, ZSTD: 2, ZLIB: 3 } as const;

const TYPE_SHIFT = 8;

/** The sysFlag bits of a zlib-compressed body. */
export const ZLIB_SYS_FLAG = MessageSysFlag.COMPRESSED_FLAG | (CompressionType.ZLIB << TYPE_SHIFT);

export function compressZlib(body: Uint8Array, level = DEFAULT_COMPRESS_LEVEL): Uint8Array {
  return new Uint8Array(deflateSync(body, { level }));
}

/**
 * A received body as the application sees it: inflated when `sysFlag` says it is compressed, with
 * the compression bits cleared; null when it is compressed in a way we cannot read.
 */
export function receivedBody(
  body: Uint8Array,
  sysFlag: number,
): { body: Uint8Array; sysFlag: number } | null {
  if ((sysFlag & MessageSysFlag.COMPRESSED_FLAG) === 0) return { body, sysFlag };
  const inflated = decompressBody(body, sysFlag);
  if (!inflated) return null;
  return {
    body: inflated,
    sysFlag: sysFlag & ~(MessageSysFlag.COMPRESSED_FLAG | MessageSysFlag.COMPRESSION_TYPE_MASK),
  };
}

/** The inflated body, or null when the compression type is not one we can read. */
export function decompressBody(body: Uint8Array, sysFlag: number): Uint8Array | null {
  const type = (sysFlag & MessageSysFlag.COMPRESSION_TYPE_MASK) >> TYPE_SHIFT;
  try {
    if (type === 0 || type === CompressionType.ZLIB) return new Uint8Array(inflateSync(body));
    if (type === CompressionType.ZSTD && typeof Bun.zstdDecompressSync === "function") {
      return new Uint8Array(Bun.zstdDecompressSync(body));
    }
  } catch {
    return null;
  }
  return null;
}
