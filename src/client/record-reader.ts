/**
 * The consumer's decoder of pull and query bodies: stored records (spec §4.1) straight into
 * MessageExt, with the same values decodeRecord + toMessageExt give, but without their
 * intermediate objects: one DataView per body, positions from `recordLayout` cached per record
 * shape, properties parsed straight into an object, message bodies as views of the pulled bytes,
 * and topic, host and msgId-prefix strings decoded once per body (they repeat across its records).
 */
import {
  encodeOffsetMessageId,
  formatHostAddress,
  type HostAddress,
  KEY_SEPARATOR,
  MagicCode,
  MessageConst,
  MessageSysFlag,
  NAME_VALUE_SEPARATOR,
  PROPERTY_SEPARATOR,
  RECORD,
  type RecordLayout,
  readI64,
  recordLayout,
} from "../protocol/message/index.ts";
import { decompressBody } from "./compression.ts";
import type { MessageExt } from "./message.ts";

const utf8Decoder = new TextDecoder();

/** Positions with zero-length body, topic and properties, for each of the eight record shapes. */
const HEADS: readonly RecordLayout[] = Array.from({ length: 8 }, (_, shape) =>
  recordLayout(
    (shape & 1 ? MessageSysFlag.BORNHOST_V6_FLAG : 0) |
      (shape & 2 ? MessageSysFlag.STOREHOSTADDRESS_V6_FLAG : 0),
    shape & 4 ? MagicCode.MESSAGE_V2 : MagicCode.MESSAGE,
    0,
    0,
    0,
  ),
);

function headOf(sysFlag: number, magicCode: number): RecordLayout {
  const shape =
    ((sysFlag & MessageSysFlag.BORNHOST_V6_FLAG) !== 0 ? 1 : 0) |
    ((sysFlag & MessageSysFlag.STOREHOSTADDRESS_V6_FLAG) !== 0 ? 2 : 0) |
    (magicCode === MagicCode.MESSAGE_V2 ? 4 : 0);
  return HEADS[shape]!;
}

/** A host as MessageExt shows it, and its object (whose offset-id prefix message-id.ts caches). */
interface KnownHost {
  readonly host: HostAddress;
  readonly text: string;
}

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
 * The well-known property names by length and first character: reusing the constant spares
 * hashing a fresh key string when it is set on the object.
 */
const KNOWN_NAMES = new Map<number, readonly string[]>();
for (const name of Object.values(MessageConst)) {
  const key = name.length * 0x1_0000 + name.charCodeAt(0);
  KNOWN_NAMES.set(key, [...(KNOWN_NAMES.get(key) ?? []), name]);
}

function propertyName(s: string, start: number, end: number): string {
  const known = KNOWN_NAMES.get((end - start) * 0x1_0000 + s.charCodeAt(start));
  if (known !== undefined) for (const name of known) if (s.startsWith(name, start)) return name;
  return s.slice(start, end);
}

/**
 * Properties straight into an object, by Java's `string2messageProperties` rules (the same as
 * decodeProperties): an entry needs a non-empty name and value; a later duplicate wins.
 */
export function propertiesObject(s: string): Record<string, string> {
  const out: Record<string, string> = {};
  let start = 0;
  while (start < s.length) {
    let end = s.indexOf(PROPERTY_SEPARATOR, start);
    if (end < 0) end = s.length;
    const sep = s.indexOf(NAME_VALUE_SEPARATOR, start);
    if (end - start >= 3 && sep > start && sep < end - 1) {
      const name = propertyName(s, start, sep);
      // Assignment would set the prototype; Object.fromEntries defines an own property.
      if (name === "__proto__")
        Object.defineProperty(out, name, {
          value: s.slice(sep + 1, end),
          writable: true,
          enumerable: true,
          configurable: true,
        });
      else out[name] = s.slice(sep + 1, end);
    }
    start = end + 1;
  }
  return out;
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
  const L = headOf(sysFlag, magicCode);
  const bodyBytes = dv.getInt32(pos + L.bodyLength);
  // After the body every position shifts by the lengths before it.
  const topicLenPos = pos + L.topicLength + bodyBytes;
  const topicBytes = L.topicLengthBytes === 2 ? dv.getInt16(topicLenPos) : dv.getUint8(topicLenPos);
  const propsLenPos = pos + L.propertiesLength + bodyBytes + topicBytes;
  const propsBytes = dv.getInt16(propsLenPos);
  const propsPos = propsLenPos + 2;
  if (propsPos + propsBytes > src.length) throw new RangeError("record runs past the end of the buffer");
  const physicalOffset = readI64(dv, pos + RECORD.physicalOffset[0]);
  const storeHost = strings.host(dv, pos + L.storeHost, L.storeHostBytes);
  const properties = propertiesObject(utf8Decoder.decode(src.subarray(propsPos, propsPos + propsBytes)));
  let body = src.subarray(pos + L.body, pos + L.body + bodyBytes);
  if ((sysFlag & MessageSysFlag.COMPRESSED_FLAG) !== 0) {
    const inflated = decompressBody(body, sysFlag);
    if (inflated) {
      body = inflated;
      sysFlag &= ~(MessageSysFlag.COMPRESSED_FLAG | MessageSysFlag.COMPRESSION_TYPE_MASK);
    }
  }
  const offsetMsgId = encodeOffsetMessageId(storeHost.host, physicalOffset);
  const keys = properties[MessageConst.KEYS];
  return {
    topic: strings.topicAt(topicLenPos + L.topicLengthBytes, topicBytes),
    body,
    tags: properties[MessageConst.TAGS],
    keys: keys === undefined ? [] : keys.split(KEY_SEPARATOR).filter((k) => k.length > 0),
    msgId: properties[MessageConst.UNIQ_KEY] ?? offsetMsgId,
    offsetMsgId,
    properties,
    queueId: dv.getInt32(pos + RECORD.queueId[0]),
    queueOffset: readI64(dv, pos + RECORD.queueOffset[0]),
    commitLogOffset: physicalOffset,
    brokerName,
    bornTimestamp: readI64(dv, pos + RECORD.bornTimestamp[0]),
    bornHost: strings.host(dv, pos + L.bornHost, L.bornHostBytes).text,
    storeTimestamp: readI64(dv, pos + L.storeTimestamp),
    storeHost: storeHost.text,
    reconsumeTimes: dv.getInt32(pos + L.reconsumeTimes),
    flag: dv.getInt32(pos + RECORD.flag[0]),
    sysFlag,
    bodyCrc: dv.getInt32(pos + RECORD.bodyCrc[0]),
    storeSize: dv.getInt32(pos + RECORD.totalSize[0]),
  };
}
