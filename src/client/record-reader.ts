/**
 * The consumer's decoder of pull and query bodies: stored records (spec §4.1) straight into
 * MessageExt, with the same values decodeRecord + toMessageExt give, but without their
 * intermediate objects: one DataView per body, positions from `recordLayout` cached per record
 * shape, properties parsed straight into an object, message bodies as views of the pulled bytes,
 * and topic, host and msgId-prefix strings decoded once per body (they repeat across its records).
 */
import { formatHostAddress, headLayout, MessageSysFlag, RECORD, readI64 } from "../protocol/message/index.ts";
import { decompressBody } from "./compression.ts";
import type { MessageExt } from "./message.ts";
import { type KnownHost, PulledMessage } from "./pulled-message.ts";

const utf8Decoder = new TextDecoder();

/**
 * The strings that repeat across the records of one body (topic, store and born hosts), decoded
 * once per body. Lives for one body only, so it is bounded by the body's record count.
 */
class BodyStrings {
  private topicBytes = new Uint8Array(0);
  private topic = "";
  private readonly v4 = new Map<number, KnownHost>();

  constructor(private readonly src: Uint8Array) {}

  host(dv: DataView, pos: number, bytes: number): KnownHost {
    const port = dv.getInt32(pos + bytes - 4);
    if (bytes !== 8 || port < 0 || port > 0xffff) return known(this.src.slice(pos, pos + bytes - 4), port);
    const key = dv.getUint32(pos) * 0x1_0000 + port;
    let k = this.v4.get(key);
    if (k === undefined) {
      k = known(this.src.slice(pos, pos + 4), port);
      this.v4.set(key, k);
    }
    return k;
  }

  topicAt(pos: number, bytes: number): string {
    const src = this.src;
    const last = this.topicBytes;
    if (bytes === last.length) {
      let i = 0;
      while (i < bytes && src[pos + i] === last[i]) i++;
      if (i === bytes) return this.topic;
    }
    this.topicBytes = src.slice(pos, pos + bytes);
    this.topic = utf8Decoder.decode(this.topicBytes);
    return this.topic;
  }
}

function known(ip: Uint8Array, port: number): KnownHost {
  const host = { ip, port };
  return { host, text: formatHostAddress(host) };
}

/**
 * Every whole record of a pull/query body as a MessageExt; stops at the first short or empty one.
 * Message bodies are views of `body`, not copies: a response body is never written after it is
 * decoded (the frame decoder keeps socket chunks across callbacks, so they are never reused).
 */
export function readMessages(body: Uint8Array, brokerName: string): MessageExt[] {
  const out: MessageExt[] = [];
  const dv = new DataView(body.buffer, body.byteOffset, body.byteLength);
  const strings = new BodyStrings(body);
  let pos = 0;
  while (pos + 4 <= body.length) {
    const size = dv.getInt32(pos);
    if (size <= 0 || pos + size > body.length) break;
    out.push(readMessage(body, dv, pos, brokerName, strings));
    pos += size;
  }
  return out;
}

function readMessage(
  src: Uint8Array,
  dv: DataView,
  pos: number,
  brokerName: string,
  strings: BodyStrings,
): MessageExt {
  const magicCode = dv.getInt32(pos + RECORD.magicCode[0]);
  let sysFlag = dv.getInt32(pos + RECORD.sysFlag[0]);
  const L = headLayout(sysFlag, magicCode);
  const bodyBytes = dv.getInt32(pos + L.bodyLength);
  // After the body every position shifts by the lengths before it.
  const topicLenPos = pos + L.topicLength + bodyBytes;
  const topicBytes = L.topicLengthBytes === 2 ? dv.getInt16(topicLenPos) : dv.getUint8(topicLenPos);
  const propsLenPos = pos + L.propertiesLength + bodyBytes + topicBytes;
  const propsBytes = dv.getInt16(propsLenPos);
  const propsPos = propsLenPos + 2;
  if (propsPos + propsBytes > src.length) throw new RangeError("record runs past the end of the buffer");
  let body = src.subarray(pos + L.body, pos + L.body + bodyBytes);
  if ((sysFlag & MessageSysFlag.COMPRESSED_FLAG) !== 0) {
    const inflated = decompressBody(body, sysFlag);
    if (inflated) {
      body = inflated;
      sysFlag &= ~(MessageSysFlag.COMPRESSED_FLAG | MessageSysFlag.COMPRESSION_TYPE_MASK);
    }
  }
  return new PulledMessage(
    strings.topicAt(topicLenPos + L.topicLengthBytes, topicBytes),
    body,
    dv.getInt32(pos + RECORD.queueId[0]),
    readI64(dv, pos + RECORD.queueOffset[0]),
    readI64(dv, pos + RECORD.physicalOffset[0]),
    brokerName,
    readI64(dv, pos + RECORD.bornTimestamp[0]),
    readI64(dv, pos + L.storeTimestamp),
    dv.getInt32(pos + L.reconsumeTimes),
    dv.getInt32(pos + RECORD.flag[0]),
    sysFlag,
    dv.getInt32(pos + RECORD.bodyCrc[0]),
    dv.getInt32(pos + RECORD.totalSize[0]),
    src,
    propsPos,
    propsBytes,
    strings.host(dv, pos + L.storeHost, L.storeHostBytes),
    strings.host(dv, pos + L.bornHost, L.bornHostBytes),
  );
}
