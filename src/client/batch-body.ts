/**
 * The producer's SEND_BATCH_MESSAGE body: the same bytes as encodeBatch (layout in
 * src/protocol/message/batch.ts), written in one pass with no byte-length pass over the
 * properties strings, and with the properties most messages share copied as bytes.
 */
import { BATCH_ITEM, PROPERTY_SEPARATOR, type UniqueIdGenerator } from "../protocol/message/index.ts";
import { UNIQ_KEY_ENTRY } from "./message.ts";

/** TOTALSIZE, MAGICCODE, BODYCRC, FLAG, BODY length: the i32 fields before an item's body. */
const ITEM_HEAD_BYTES = 20;
/** The i16 PROPERTIES length after the body. */
const PROPS_LENGTH_BYTES = 2;
/** A UTF-16 code unit never takes more than 3 UTF-8 bytes (a surrogate pair: 4 bytes for 2 units). */
const UTF8_BYTES_PER_UNIT_MAX = 3;

/** Batch buffers kept for reuse per producer, and the largest one kept (style: a limit on everything). */
export const BATCH_BUFFERS_KEPT_MAX = 16;
export const BATCH_BUFFER_KEPT_BYTES_MAX = 1024 * 1024;
const BATCH_BUFFER_MIN_BYTES = 64 * 1024;

/**
 * Batch bodies for reuse: writing each batch into fresh memory cost ~0.4 µs per message more CPU
 * than into a recycled buffer (bench/client, sendBatch of 32 × 1 KiB). A buffer is given back
 * only once nothing can still send it (see Producer.sendBatch).
 */
export class BatchBuffers {
  private readonly free: Buffer[] = [];

  take(bytes: number): Buffer {
    const b = this.free.pop();
    if (b !== undefined && b.length >= bytes) return b;
    return Buffer.allocUnsafe(Math.max(bytes, BATCH_BUFFER_MIN_BYTES));
  }

  give(body: Uint8Array): void {
    const b = Buffer.from(body.buffer, 0, body.buffer.byteLength);
    if (b.length > BATCH_BUFFER_KEPT_BYTES_MAX || this.free.length >= BATCH_BUFFERS_KEPT_MAX) return;
    this.free.push(b);
  }
}

/**
 * Writes `s` as UTF-8 at `out[at]` and returns the byte count. Properties are nearly always ASCII:
 * copying char codes costs a fraction of Buffer#write, which flattens and transcodes the string;
 * from the first non-ASCII char on, Buffer#write does the rest.
 */
function writeUtf8(out: Buffer, bytes: Uint8Array, s: string, at: number): number {
  const n = s.length;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x80) return i + out.write(s.slice(i), at + i, "utf8");
    bytes[at + i] = c;
  }
  return n;
}

/** Copies `src` to `dst[at]`; for the few dozen bytes of a properties head a loop beats `set`'s call. */
function copyBytes(dst: Uint8Array, src: Uint8Array, at: number): number {
  const n = src.length;
  if (n > 64) dst.set(src, at);
  else for (let i = 0; i < n; i++) dst[at + i] = src[i]!;
  return n;
}

const UNIQ_KEY_ENTRY_BYTES = new TextEncoder().encode(UNIQ_KEY_ENTRY);
const SEPARATOR_BYTE = PROPERTY_SEPARATOR.charCodeAt(0);
const COMMA = ",".charCodeAt(0);

/**
 * Item `k` is `bodies[k]` and `flags[k]`; its properties are `heads[k]` (UTF-8 bytes) or, when
 * that is undefined, the concatenation of `pieces[ends[k-1] .. ends[k])` (ends[-1] = 0), followed
 * by its UNIQ_KEY entry for `ids[k]` unless that is empty (the entry comes last, as
 * messagePropertyPieces orders them); with `idWriter`, `ids` is not read and each item gets the
 * writer's next id, written in place. The buffer is sized for the worst case and each part is
 * written where it goes; an item's properties length is what was written. `msgIds` is the items'
 * ids joined by commas, as a batch's SendResult shows them.
 */
export function encodeBatchBody(
  bodies: readonly Uint8Array[],
  flags: readonly number[],
  heads: readonly (Uint8Array | undefined)[],
  pieces: readonly string[],
  ends: readonly number[],
  ids: readonly string[],
  buffers?: BatchBuffers,
  idWriter?: UniqueIdGenerator,
): { body: Uint8Array; msgIds: string } {
  // The written ids and their commas, turned into one string at the end (see `msgIds`).
  const idText = idWriter ? Buffer.allocUnsafe(bodies.length * (idWriter.idLength + 1)) : undefined;
  let bound = 0;
  for (let k = 0; k < bodies.length; k++) {
    bound += ITEM_HEAD_BYTES + bodies[k]!.length + PROPS_LENGTH_BYTES + (heads[k]?.length ?? 0);
    const idBytes = idWriter ? idWriter.idLength : UTF8_BYTES_PER_UNIT_MAX * ids[k]!.length;
    bound += UNIQ_KEY_ENTRY_BYTES.length + idBytes + 1;
  }
  for (const piece of pieces) bound += UTF8_BYTES_PER_UNIT_MAX * piece.length;
  // Every byte up to `pos` is written below (MAGICCODE and BODYCRC as zeros).
  const out = buffers ? buffers.take(bound) : Buffer.allocUnsafe(bound);
  const dv = new DataView(out.buffer, out.byteOffset, out.byteLength);
  // Indexed stores into a plain Uint8Array view run faster than into the Buffer subclass.
  const bytes = new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
  let pos = 0;
  let piece = 0;
  for (let k = 0; k < bodies.length; k++) {
    const body = bodies[k]!;
    const n = body.length;
    out.set(body, pos + ITEM_HEAD_BYTES);
    const propsAt = pos + ITEM_HEAD_BYTES + n + PROPS_LENGTH_BYTES;
    let p = 0;
    const head = heads[k];
    if (head !== undefined) p += copyBytes(bytes, head, propsAt);
    for (const end = ends[k]!; piece < end; piece++) p += writeUtf8(out, bytes, pieces[piece]!, propsAt + p);
    if (idWriter !== undefined) {
      p += copyBytes(bytes, UNIQ_KEY_ENTRY_BYTES, propsAt + p);
      const idAt = propsAt + p;
      idWriter.into(bytes, idAt);
      const len = idWriter.idLength;
      const textAt = k * (len + 1);
      for (let i = 0; i < len; i++) idText![textAt + i] = bytes[idAt + i]!;
      idText![textAt + len] = COMMA;
      p += len;
      bytes[propsAt + p++] = SEPARATOR_BYTE;
    } else if (ids[k]!.length > 0) {
      p += copyBytes(bytes, UNIQ_KEY_ENTRY_BYTES, propsAt + p);
      // Ids are often concatenations (ropes): Buffer#write flattens and copies one natively for
      // less than charCodeAt costs on it.
      p += out.write(ids[k]!, propsAt + p);
      bytes[propsAt + p++] = SEPARATOR_BYTE;
    }
    const total = ITEM_HEAD_BYTES + n + PROPS_LENGTH_BYTES + p;
    // DataView, as encodeBatch: out-of-range values wrap instead of throwing.
    dv.setInt32(pos + BATCH_ITEM.totalSize[0], total);
    dv.setInt32(pos + BATCH_ITEM.magicCode[0], 0);
    dv.setInt32(pos + BATCH_ITEM.bodyCrc[0], 0);
    dv.setInt32(pos + BATCH_ITEM.flag[0], flags[k]!);
    dv.setInt32(pos + BATCH_ITEM.bodyLength[0], n);
    dv.setInt16(pos + ITEM_HEAD_BYTES + n, p);
    pos += total;
  }
  // One latin1 decode of all the ids (ASCII hex) instead of a join that flattens each id string.
  const msgIds = idText ? idText.toString("latin1", 0, Math.max(0, idText.length - 1)) : ids.join(",");
  return { body: out.subarray(0, pos), msgIds };
}
