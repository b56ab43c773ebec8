/**
 * The ROCKETMQ binary header form (spec remoting §3), big-endian:
 *
 *   code:int16 | language:uint8 | version:int16 | opaque:int32 | flag:int32 |
 *   remarkLen:int32 | remark | extLen:int32 | ( keyLen:int16 key valLen:int32 value )*
 *
 * A zero-length string decodes to null (an empty ext value keeps its key with "" here, since our
 * extFields hold strings only). code and version must fit int16; callers fall back to JSON otherwise.
 */
import { type ExtFields, RemotingCommand, setExtField } from "./command.ts";
import { FrameError } from "./errors.ts";
import { languageFromByte, languageToByte } from "./language-code.ts";
import { SerializeType } from "./serialize-type.ts";

const utf8 = new TextEncoder();
// Not fatal, as the default is: Bun 1.4.5 decodes twice as slowly when given the options object.
const utf8Decoder = new TextDecoder();

/** Fixed part: code 2 + language 1 + version 2 + opaque 4 + flag 4 + remarkLen 4 + extLen 4. */
export const ROCKETMQ_HEADER_FIXED_BYTES = 21;

export function fitsRocketMqHeader(cmd: RemotingCommand): boolean {
  return isInt16(cmd.code) && isInt16(cmd.version);
}

function isInt16(n: number): boolean {
  return n >= -0x8000 && n <= 0x7fff;
}

export function encodeRocketMqHeader(cmd: RemotingCommand): Uint8Array {
  const remark = cmd.remark ? utf8.encode(cmd.remark) : null;
  const entries: [Uint8Array, Uint8Array][] = [];
  let extLen = 0;
  if (cmd.extFields) {
    for (const [key, value] of Object.entries(cmd.extFields)) {
      if (value === null || value === undefined) continue;
      const k = utf8.encode(key);
      const v = utf8.encode(value);
      entries.push([k, v]);
      extLen += 2 + k.length + 4 + v.length;
    }
  }
  const bytes = new ArrayBuffer(ROCKETMQ_HEADER_FIXED_BYTES + (remark?.length ?? 0) + extLen);
  const out = new Uint8Array(bytes);
  const view = new DataView(bytes);
  view.setInt16(0, cmd.code);
  view.setUint8(2, languageToByte(cmd.language));
  view.setInt16(3, cmd.version);
  view.setInt32(5, cmd.opaque);
  view.setInt32(9, cmd.flag);
  let pos = 13;
  view.setInt32(pos, remark?.length ?? 0);
  pos += 4;
  if (remark) {
    out.set(remark, pos);
    pos += remark.length;
  }
  view.setInt32(pos, extLen);
  pos += 4;
  for (const [k, v] of entries) {
    view.setInt16(pos, k.length);
    out.set(k, pos + 2);
    pos += 2 + k.length;
    view.setInt32(pos, v.length);
    out.set(v, pos + 4);
    pos += 4 + v.length;
  }
  return out;
}

export function decodeRocketMqHeader(bytes: Uint8Array): RemotingCommand {
  const len = bytes.length;
  if (len < ROCKETMQ_HEADER_FIXED_BYTES) throw new FrameError(`ROCKETMQ header too short: ${len} bytes`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, len);
  const code = view.getInt16(0);
  const language = languageFromByte(view.getUint8(2));
  const version = view.getInt16(3);
  const opaque = view.getInt32(5);
  const flag = view.getInt32(9);
  const remarkLen = view.getInt32(13);
  if (remarkLen < 0 || 17 + remarkLen + 4 > len)
    throw new FrameError(`ROCKETMQ header: bad remark length ${remarkLen}`);
  const remark = remarkLen > 0 ? utf8Decoder.decode(bytes.subarray(17, 17 + remarkLen)) : null;
  let pos = 17 + remarkLen;
  const extLen = view.getInt32(pos);
  pos += 4;
  if (extLen < 0 || pos + extLen !== len) throw new FrameError(`ROCKETMQ header: bad ext length ${extLen}`);
  let extFields: ExtFields | null = null;
  if (extLen > 0) {
    extFields = {};
    const end = pos + extLen;
    while (pos < end) {
      if (pos + 2 > end) throw new FrameError("ROCKETMQ header: truncated ext key length");
      const keyLen = view.getInt16(pos);
      pos += 2;
      if (keyLen < 0 || pos + keyLen + 4 > end)
        throw new FrameError("ROCKETMQ header: string length exceed limit");
      const key = utf8Decoder.decode(bytes.subarray(pos, pos + keyLen));
      pos += keyLen;
      const valLen = view.getInt32(pos);
      pos += 4;
      if (valLen < 0 || pos + valLen > end)
        throw new FrameError("ROCKETMQ header: string length exceed limit");
      setExtField(extFields, key, utf8Decoder.decode(bytes.subarray(pos, pos + valLen)));
      pos += valLen;
    }
  }
  return new RemotingCommand({
    code,
    language,
    version,
    opaque,
    flag,
    remark,
    extFields,
    serializeType: SerializeType.ROCKETMQ,
  });
}
