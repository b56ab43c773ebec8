/**
 * What dispatch needs from one stored record (RocketMQ's DispatchRequest). Recovery parses it
 * from the record bytes; the live put path builds it from the message it just wrote. Both go
 * through `dispatchRequestOf`, so tags code, keys and delay rules are written once (spec §6.3).
 */
import {
  decodeProperties,
  MessageConst,
  RECORD,
  readI64,
  recordLayout,
  tagsCodeOf,
} from "../../src/protocol/message/index.ts";
import { SCHEDULE_TOPIC, TIMER_TOPIC } from "../../src/protocol/topic-names.ts";

export interface DispatchRequest {
  readonly topic: string;
  readonly queueId: number;
  readonly commitLogOffset: number;
  readonly msgSize: number;
  readonly tagsCode: number;
  readonly storeTimestamp: number;
  readonly consumeQueueOffset: number;
  readonly keys: string | undefined;
  readonly uniqKey: string | undefined;
  readonly sysFlag: number;
  readonly preparedTransactionOffset: number;
  readonly properties: ReadonlyMap<string, string>;
}

/** Topics whose ConsumeQueue tags slot holds a time rather than a tag hash (spec §9.5). */
export { SCHEDULE_TOPIC, TIMER_TOPIC };

const utf8 = new TextDecoder();

/**
 * Parses the (already validated) record at `src[pos]`. `delayLevelsMs[level-1]` gives the delay
 * of a level, for the SCHEDULE_TOPIC_XXXX tags code.
 */
export function parseDispatchRequest(
  src: Uint8Array,
  pos: number,
  delayLevelsMs: readonly number[],
): DispatchRequest {
  const dv = new DataView(src.buffer, src.byteOffset, src.byteLength);
  const magic = dv.getInt32(pos + RECORD.magicCode[0]);
  const sysFlag = dv.getInt32(pos + RECORD.sysFlag[0]);
  const head = recordLayout(sysFlag, magic, 0, 0, 0);
  const bodyBytes = dv.getInt32(pos + head.bodyLength);
  const topicLenPos = pos + head.topicLength + bodyBytes;
  const topicBytes = head.topicLengthBytes === 2 ? dv.getInt16(topicLenPos) : dv.getUint8(topicLenPos);
  const topicPos = topicLenPos + head.topicLengthBytes;
  const propsPos = topicPos + topicBytes;
  const propsBytes = dv.getInt16(propsPos);
  const topic = utf8.decode(src.subarray(topicPos, topicPos + topicBytes));
  const properties = decodeProperties(utf8.decode(src.subarray(propsPos + 2, propsPos + 2 + propsBytes)));
  return dispatchRequestOf(
    topic,
    dv.getInt32(pos + RECORD.queueId[0]),
    readI64(dv, pos + RECORD.physicalOffset[0]),
    dv.getInt32(pos + RECORD.totalSize[0]),
    readI64(dv, pos + head.storeTimestamp),
    readI64(dv, pos + RECORD.queueOffset[0]),
    sysFlag,
    readI64(dv, pos + head.preparedTransactionOffset),
    properties,
    delayLevelsMs,
  );
}

/** A property as a decoded record would have it: an empty value is no value (spec §2.1). */
function prop(properties: ReadonlyMap<string, string>, key: string): string | undefined {
  const v = properties.get(key);
  return v === "" ? undefined : v;
}

/**
 * The request for one record from its fields and properties. `properties` must be what the
 * record's properties string decodes to (the put path passes the map it encoded).
 */
export function dispatchRequestOf(
  topic: string,
  queueId: number,
  commitLogOffset: number,
  msgSize: number,
  storeTimestamp: number,
  consumeQueueOffset: number,
  sysFlag: number,
  preparedTransactionOffset: number,
  properties: ReadonlyMap<string, string>,
  delayLevelsMs: readonly number[],
): DispatchRequest {
  const tagsCode = tagsCodeFor(topic, properties, storeTimestamp, delayLevelsMs);
  return {
    topic,
    queueId,
    commitLogOffset,
    msgSize,
    tagsCode,
    storeTimestamp,
    consumeQueueOffset,
    keys: prop(properties, MessageConst.KEYS),
    uniqKey: prop(properties, MessageConst.UNIQ_KEY),
    sysFlag,
    preparedTransactionOffset,
    properties,
  };
}

/**
 * The ConsumeQueue tags slot of a record. SCHEDULE_TOPIC_XXXX: the delivery time, store time plus
 * the level's delay (unknown level: one second, as Java's computeDeliverTimestamp). The timer
 * topic: its slot time `TIMER_OUT_MS`, negated for a delete entry (`TIMER_DEL_UNIQKEY`), 0 when
 * missing, so the timer service rebuilds its index from the queue alone and reads only delete
 * entries' records. Anything else: the hash of `TAGS` (spec §6.2).
 */
export function tagsCodeFor(
  topic: string,
  properties: ReadonlyMap<string, string>,
  storeTimestamp: number,
  delayLevelsMs: readonly number[],
): number {
  if (topic === SCHEDULE_TOPIC) {
    const delay = prop(properties, MessageConst.DELAY);
    if (delay !== undefined) return storeTimestamp + (delayLevelsMs[Number(delay) - 1] ?? 1000);
  } else if (topic === TIMER_TOPIC) {
    const slot = Number(prop(properties, MessageConst.TIMER_OUT_MS));
    if (!Number.isSafeInteger(slot) || slot <= 0) return 0;
    return prop(properties, MessageConst.TIMER_DEL_UNIQKEY) === undefined ? slot : -slot;
  }
  return tagsCodeOf(prop(properties, MessageConst.TAGS));
}
