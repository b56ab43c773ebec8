/**
 * Frame codec (spec remoting §1):
 *
 *   totalLength:int32 (= 4 + headerLength + bodyLength; excludes itself)
 *   headerMark:int32  (serializeType << 24 | headerLength)
 *   header | body
 *
 * FrameDecoder is incremental: push() returns every whole frame and keeps a partial one for later.
 */
import type { RemotingCommand } from "./command.ts";
import { FrameError } from "./errors.ts";
import { decodeJsonHeader, jsonHeaderText } from "./json-header.ts";
import { decodeRocketMqHeader, encodeRocketMqHeader, fitsRocketMqHeader } from "./rocketmq-header.ts";
import { SerializeType } from "./serialize-type.ts";

/** Java's FRAME_MAX_LENGTH: length prefix included, so totalLength may be at most 16777212. */
export const DEFAULT_FRAME_BYTES_MAX = 16_777_216;
export const FRAME_LENGTH_BYTES = 4;
export const HEADER_MARK_BYTES = 4;
const HEADER_LENGTH_MASK = 0x00ffffff;
/**
 * The largest header a peer may send, checked before the header is parsed so that parsing stays
 * short: JSON.parse of a 12 MB header with 900k keys blocks the event loop for over a second.
 * Java has no limit below the frame's, but the largest header its broker stores is a SEND whose
 * properties reach Short.MAX_VALUE (32767) chars, each at most 6 bytes once JSON-escaped
 * ("\u0001" separators): 196,602 bytes plus a few short fields. 256 KiB refuses nothing Java keeps.
 */
export const HEADER_BYTES_MAX = 256 * 1024;

/** A command whose header is already serialized, ready to be written at any position. */
export interface PreparedFrame {
  readonly cmd: RemotingCommand;
  readonly rocketmq: boolean;
  /** The JSON header text (JSON form) or the binary header (ROCKETMQ form). */
  readonly header: string | Uint8Array;
  readonly headerLength: number;
  /** Bytes of the whole frame, length prefix included. */
  readonly size: number;
}

export function prepareFrame(cmd: RemotingCommand): PreparedFrame {
  // ROCKETMQ writes code and version as int16; anything wider must travel as JSON (spec §3.3).
  const rocketmq = cmd.serializeType === SerializeType.ROCKETMQ && fitsRocketMqHeader(cmd);
  const header = rocketmq ? encodeRocketMqHeader(cmd) : jsonHeaderText(cmd);
  const headerLength = typeof header === "string" ? Buffer.byteLength(header, "utf8") : header.length;
  if (headerLength > HEADER_LENGTH_MASK)
    throw new FrameError(`header of ${headerLength} bytes exceeds 24 bits`);
  const size = FRAME_LENGTH_BYTES + HEADER_MARK_BYTES + headerLength + (cmd.body?.length ?? 0);
  return { cmd, rocketmq, header, headerLength, size };
}

/** Writes a prepared frame into `out` at `pos` (the caller made room for `frame.size` bytes). */
export function writeFrame(frame: PreparedFrame, out: Buffer, pos: number): void {
  const headBytes = writeFrameHead(frame, out, pos);
  const body = frame.cmd.body;
  if (body && body.length > 0) out.set(body, pos + headBytes);
}

/**
 * Writes all of a prepared frame but its body (length prefix, header mark, header) into `out` at
 * `pos`; returns the bytes written. The body, if any, must follow on the wire.
 */
export function writeFrameHead(frame: PreparedFrame, out: Buffer, pos: number): number {
  const { headerLength } = frame;
  writeInt32(out, pos, frame.size - FRAME_LENGTH_BYTES);
  writeInt32(
    out,
    pos + 4,
    ((frame.rocketmq ? SerializeType.ROCKETMQ : SerializeType.JSON) << 24) | headerLength,
  );
  // The JSON text is written straight into the frame: no intermediate byte array.
  if (typeof frame.header === "string") out.write(frame.header, pos + 8, headerLength, "utf8");
  else out.set(frame.header, pos + 8);
  return FRAME_LENGTH_BYTES + HEADER_MARK_BYTES + headerLength;
}

/** Encodes a command into one frame: length prefix, header mark, header, body. */
export function encodeFrame(cmd: RemotingCommand): Uint8Array {
  const frame = prepareFrame(cmd);
  const out = Buffer.allocUnsafe(frame.size);
  writeFrame(frame, out, 0);
  return out;
}

/**
 * Decodes one frame without its length prefix (headerMark, header, body).
 * The body is a view into `frame`, not a copy.
 */
export function decodeFrame(frame: Uint8Array): RemotingCommand {
  if (frame.length < HEADER_MARK_BYTES)
    throw new FrameError(`frame of ${frame.length} bytes has no header mark`);
  const mark = readInt32(frame, 0) >>> 0;
  const type = mark >>> 24;
  const headerLength = mark & HEADER_LENGTH_MASK;
  if (headerLength > frame.length - HEADER_MARK_BYTES)
    throw new FrameError(`decode error, bad header length: ${headerLength}`);
  if (headerLength > HEADER_BYTES_MAX)
    throw new FrameError(`header of ${headerLength} bytes exceeds the ${HEADER_BYTES_MAX}-byte limit`);
  const headerBytes = frame.subarray(HEADER_MARK_BYTES, HEADER_MARK_BYTES + headerLength);
  let cmd: RemotingCommand;
  if (type === SerializeType.JSON) cmd = decodeJsonHeader(headerBytes);
  else if (type === SerializeType.ROCKETMQ) cmd = decodeRocketMqHeader(headerBytes);
  else throw new FrameError(`unknown serialize type ${type}`);
  const bodyStart = HEADER_MARK_BYTES + headerLength;
  cmd.body = bodyStart < frame.length ? frame.subarray(bodyStart) : null;
  return cmd;
}

export class FrameDecoder {
  /** Bytes of an unfinished frame, in arrival order. */
  private pending: Uint8Array[] = [];
  private pendingBytes = 0;
  private failed: FrameError | null = null;

  constructor(private readonly frameBytesMax = DEFAULT_FRAME_BYTES_MAX) {}

  /** Bytes held for a frame not yet complete. */
  get buffered(): number {
    return this.pendingBytes;
  }

  /**
   * Bytes the frame being received will occupy once whole: its declared length (prefix included)
   * as soon as the prefix is in, else what is buffered. This is what a partial frame will cost,
   * so it is what a server charges for it.
   */
  get pendingFrameBytes(): number {
    const declared = this.declaredBytes();
    return declared === undefined ? this.pendingBytes : Math.max(this.pendingBytes, declared);
  }

  /**
   * Why the stream cannot be decoded further (a negative or oversized length), or null. Once set,
   * push() takes nothing more; the caller handles the frames it got, then closes the connection.
   */
  get failure(): FrameError | null {
    return this.failed;
  }

  /**
   * Returns the whole frames in `chunk` (plus what was held), each without its length prefix.
   * A bad length does not throw: the frames before it are returned, as Netty's decoder passes
   * them on before it fails, and `failure` says what was wrong.
   */
  push(chunk: Uint8Array): Uint8Array[] {
    if (this.failed) return [];
    let data = chunk;
    if (this.pendingBytes > 0) {
      this.pending.push(chunk);
      this.pendingBytes += chunk.length;
      // Wait for the whole frame before joining, so a large frame is copied once, not per chunk.
      const need = this.neededBytes();
      if (need === undefined || this.pendingBytes < need) return [];
      data = concat(this.pending, this.pendingBytes);
      this.pending = [];
      this.pendingBytes = 0;
    }
    const frames: Uint8Array[] = [];
    let pos = 0;
    while (data.length - pos >= FRAME_LENGTH_BYTES) {
      const total = readInt32(data, pos);
      if (!this.checkLength(total)) return frames;
      if (data.length - pos - FRAME_LENGTH_BYTES < total) break;
      frames.push(data.subarray(pos + FRAME_LENGTH_BYTES, pos + FRAME_LENGTH_BYTES + total));
      pos += FRAME_LENGTH_BYTES + total;
    }
    if (pos < data.length) {
      this.pending.push(data.subarray(pos));
      this.pendingBytes = data.length - pos;
    }
    return frames;
  }

  /** Length of the first held frame including its prefix, once the prefix is complete and good. */
  private neededBytes(): number | undefined {
    const declared = this.declaredBytes();
    if (declared === undefined || !this.checkLength(declared - FRAME_LENGTH_BYTES)) return undefined;
    return declared;
  }

  /** The first held frame's length prefix plus 4, unchecked; undefined until the prefix is in. */
  private declaredBytes(): number | undefined {
    if (this.pendingBytes < FRAME_LENGTH_BYTES) return undefined;
    const head = this.pending[0]!.length >= 4 ? this.pending[0]! : concat(this.pending, this.pendingBytes);
    return FRAME_LENGTH_BYTES + readInt32(head, 0);
  }

  /** False (and the decoder failed, holding nothing) for a length no frame may have. */
  private checkLength(total: number): boolean {
    let problem: string | undefined;
    if (total < HEADER_MARK_BYTES) problem = `bad frame length ${total}`;
    else if (total + FRAME_LENGTH_BYTES > this.frameBytesMax)
      problem = `frame of ${total + FRAME_LENGTH_BYTES} bytes exceeds the ${this.frameBytesMax}-byte limit`;
    if (problem === undefined) return true;
    this.failed = new FrameError(problem);
    this.pending = [];
    this.pendingBytes = 0;
    return false;
  }
}

/** Big-endian int32 read without a DataView (touching `.buffer` of a socket chunk is costly in JSC). */
function readInt32(bytes: Uint8Array, pos: number): number {
  return (bytes[pos]! << 24) | (bytes[pos + 1]! << 16) | (bytes[pos + 2]! << 8) | bytes[pos + 3]!;
}

function writeInt32(bytes: Uint8Array, pos: number, n: number): void {
  bytes[pos] = n >>> 24;
  bytes[pos + 1] = n >>> 16;
  bytes[pos + 2] = n >>> 8;
  bytes[pos + 3] = n;
}

function concat(parts: Uint8Array[], total: number): Uint8Array {
  const out = new Uint8Array(total);
  let pos = 0;
  for (const part of parts) {
    out.set(part, pos);
    pos += part.length;
  }
  return out;
}
