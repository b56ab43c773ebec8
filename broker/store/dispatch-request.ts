/**
 * What dispatch needs from one stored record (RocketMQ's DispatchRequest), parsed without
 * copying the body. Live dispatch and recovery both build it here (spec §6.3).
 */
import {
  decodeProperties,
  MessageConst,
  RECORD,
  readI64,
  recordLayout,
  tagsCodeOf,
} from "../../src/protocol/message/index.ts";

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
  readonly properties: Map<string, string>;
}

/** Topic whose ConsumeQueue tags slot holds the delivery time (spec §9.5). */
export const SCHEDULE_TOPIC = "SCHEDULE_TOPIC_XXXX";

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
  const storeTimestamp = readI64(dv, pos + head.storeTimestamp);
  let tagsCode = tagsCodeOf(properties.get(MessageConst.TAGS));
  const delay = properties.get(MessageConst.DELAY);
  if (topic === SCHEDULE_TOPIC && delay !== undefined) {
    const level = Number(delay);
    tagsCode = storeTimestamp + (delayLevelsMs[level - 1] ?? 1000);
  }
  return {
    topic,
    queueId: dv.getInt32(pos + RECORD.queueId[0]),
    commitLogOffset: readI64(dv, pos + RECORD.physicalOffset[0]),
    msgSize: dv.getInt32(pos + RECORD.totalSize[0]),
    tagsCode,
    storeTimestamp,
    consumeQueueOffset: readI64(dv, pos + RECORD.queueOffset[0]),
    keys: properties.get(MessageConst.KEYS),
    uniqKey: properties.get(MessageConst.UNIQ_KEY),
    sysFlag,
    preparedTransactionOffset: readI64(dv, pos + head.preparedTransactionOffset),
    properties,
  };
}
