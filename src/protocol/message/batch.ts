/**
 * The batch send body (spec §1.9): concatenated items, each
 *
 *  off      size  field
 *    0      i32   TOTALSIZE = 20 + bodyLen + 2 + propsLen
 *    4      i32   MAGICCODE (0, ignored)
 *    8      i32   BODYCRC (0, ignored; the broker computes it)
 *   12      i32   FLAG
 *   16      i32   BODY length, then the body
 *   20+n    i16   PROPERTIES length, then the UTF-8 properties string
 */
import { decodeProperties, encodeProperties, MessageConst, PROPERTY_SEPARATOR } from "./properties.ts";

export const BATCH_ITEM = {
  totalSize: [0, 4],
  magicCode: [4, 4],
  bodyCrc: [8, 4],
  flag: [12, 4],
  bodyLength: [16, 4],
} as const;
const BATCH_ITEM_FIXED_BYTES = 22;

export interface BatchItem {
  readonly flag: number;
  readonly body: Uint8Array;
  readonly properties: string;
}

const utf8Decoder = new TextDecoder();

/** Decodes a batch body; throws RangeError on a length that does not fit. */
export function decodeBatch(body: Uint8Array, itemsMax = 100_000): BatchItem[] {
  const dv = new DataView(body.buffer, body.byteOffset, body.byteLength);
  const items: BatchItem[] = [];
  let pos = 0;
  while (pos < body.length) {
    if (items.length >= itemsMax) throw new RangeError(`batch has more than ${itemsMax} items`);
    if (body.length - pos < BATCH_ITEM_FIXED_BYTES) throw new RangeError("truncated batch item");
    const totalSize = dv.getInt32(pos + BATCH_ITEM.totalSize[0]);
    const bodyLen = dv.getInt32(pos + BATCH_ITEM.bodyLength[0]);
    if (bodyLen < 0 || pos + 20 + bodyLen + 2 > body.length) throw new RangeError("bad batch body length");
    const propsLen = dv.getInt16(pos + 20 + bodyLen);
    const end = pos + 22 + bodyLen + propsLen;
    if (propsLen < 0 || end > body.length || totalSize !== end - pos)
      throw new RangeError("bad batch item size");
    items.push({
      flag: dv.getInt32(pos + BATCH_ITEM.flag[0]),
      body: body.subarray(pos + 20, pos + 20 + bodyLen),
      properties: utf8Decoder.decode(body.subarray(pos + 22 + bodyLen, end)),
    });
    pos = end;
  }
  return items;
}

/** Encodes items as a client does (MessageDecoder.encodeMessages). */
export function encodeBatch(items: readonly BatchItem[]): Uint8Array {
  // Properties are written straight into the output: one byte-length pass, no per-item arrays.
  const propBytes = items.map((i) => Buffer.byteLength(i.properties, "utf8"));
  let size = 0;
  for (let k = 0; k < items.length; k++)
    size += BATCH_ITEM_FIXED_BYTES + items[k]!.body.length + propBytes[k]!;
  const bytes = new ArrayBuffer(size);
  const out = Buffer.from(bytes);
  const dv = new DataView(bytes);
  let pos = 0;
  for (let k = 0; k < items.length; k++) {
    const it = items[k]!;
    const p = propBytes[k]!;
    const total = BATCH_ITEM_FIXED_BYTES + it.body.length + p;
    dv.setInt32(pos + BATCH_ITEM.totalSize[0], total);
    dv.setInt32(pos + BATCH_ITEM.flag[0], it.flag);
    dv.setInt32(pos + BATCH_ITEM.bodyLength[0], it.body.length);
    out.set(it.body, pos + 20);
    dv.setInt16(pos + 20 + it.body.length, p);
    if (p > 0) out.write(it.properties, pos + 22 + it.body.length, p, "utf8");
    pos += total;
  }
  return out;
}

/**
 * Stored properties of one inner message (spec §1.9 step 4, recommendation): the inner string,
 * plus container keys the inner one lacks, never the container's UNIQ_KEY.
 */
export function mergeBatchProperties(inner: string, container: string): string {
  const add = decodeProperties(container);
  add.delete(MessageConst.UNIQ_KEY);
  const have = decodeProperties(inner);
  for (const k of have.keys()) add.delete(k);
  if (add.size === 0) return inner;
  const sep = inner.length === 0 || inner.endsWith(PROPERTY_SEPARATOR) ? "" : PROPERTY_SEPARATOR;
  return inner + sep + encodeProperties(add);
}
