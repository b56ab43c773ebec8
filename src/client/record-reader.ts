/**
 * The consumer's decoder of pull and query bodies: stored records (spec §4.1) straight into
 * MessageExt, with the same values decodeRecord + toMessageExt give, but without their
 * intermediate objects: one DataView per body, positions from `recordLayout` cached per record
 * shape, properties parsed straight into an object, message bodies as views of the pulled bytes,
 * and topic, host and msgId-prefix strings decoded once per body (they repeat across its records).
 */
import {
  formatHostAddress,
  headLayout,
  MagicCode,
  MessageSysFlag,
  RECORD,
  readI64,
} from "../protocol/message/index.ts";
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

/** What `readRecords` made of a body. */
export interface ReadResult {
  readonly messages: MessageExt[];
  /** Bytes of the body the messages came from; fewer than its length if a record did not decode. */
  readonly decodedBytes: number;
}

/**
 * Every record of a pull/query body as a MessageExt, up to the first that is short, empty or
 * malformed (a field running out of its record, an unknown magic code): as Java's client decodes
 * (MessageDecoder.decodes stops at the first record it cannot read), so a corrupt body never
 * throws into the pull loop. Message bodies are views of `body`, not copies: a response body is
 * never written after it is decoded (the frame decoder keeps socket chunks across callbacks, so
 * they are never reused).
 */
export function readRecords(body: Uint8Array, brokerName: string): ReadResult {
  const messages: MessageExt[] = [];
  const dv = new DataView(body.buffer, body.byteOffset, body.byteLength);
  const strings = new BodyStrings(body);
  let pos = 0;
  try {
    while (pos + 4 <= body.length) {
      const size = dv.getInt32(pos);
      if (size <= 0 || pos + size > body.length) break;
      messages.push(readMessage(body, dv, pos, size, brokerName, strings));
      pos += size;
    }
  } catch (err) {
    // A malformed record (our checks and DataView both throw RangeError): keep the ones before
    // it, as Java's client does. Anything else is a bug and goes on up.
    if (!(err instanceof RangeError)) throw err;
  }
  return { messages, decodedBytes: pos };
}

export function readMessages(body: Uint8Array, brokerName: string): MessageExt[] {
  return readRecords(body, brokerName).messages;
}

function malformed(pos: number, what: string): RangeError {
  return new RangeError(`record at ${pos}: ${what}`);
}

function readMessage(
  src: Uint8Array,
  dv: DataView,
  pos: number,
  size: number,
  brokerName: string,
  strings: BodyStrings,
): MessageExt {
  const end = pos + size;
  const magicCode = dv.getInt32(pos + RECORD.magicCode[0]);
  if (magicCode !== MagicCode.MESSAGE && magicCode !== MagicCode.MESSAGE_V2)
    throw malformed(pos, `magic code ${magicCode}`);
  let sysFlag = dv.getInt32(pos + RECORD.sysFlag[0]);
  const L = headLayout(sysFlag, magicCode);
  if (L.body > size) throw malformed(pos, "head runs out of the record");
  const bodyBytes = dv.getInt32(pos + L.bodyLength);
  if (bodyBytes < 0 || L.body + bodyBytes > size) throw malformed(pos, "body runs out of the record");
  // After the body every position shifts by the lengths before it.
  const topicLenPos = pos + L.topicLength + bodyBytes;
  const topicBytes = L.topicLengthBytes === 2 ? dv.getInt16(topicLenPos) : dv.getUint8(topicLenPos);
  const propsLenPos = pos + L.propertiesLength + bodyBytes + topicBytes;
  if (topicBytes < 0 || propsLenPos + 2 > end) throw malformed(pos, "topic runs out of the record");
  const propsBytes = dv.getInt16(propsLenPos);
  const propsPos = propsLenPos + 2;
  if (propsBytes < 0 || propsPos + propsBytes > end) throw malformed(pos, "properties run out of the record");
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
