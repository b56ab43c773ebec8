/**
 * A parked record turned back into a message to put: what the schedule service (spec broker §9.5
 * `messageTimeUp`) and the timer service (spec pop-timer-filter §B.5) deliver. Body, flag, sysFlag,
 * born timestamp and host, store host and reconsume times are the record's; the destination and
 * the property changes are the caller's; WAIT is false, as both services put without waiting.
 * Records are read field by field, without decoding what a delivery does not copy: at tens of
 * thousands of deliveries a second, a full decode was the largest cost of a timer round.
 */
import {
  editPropertiesString,
  type HostAddress,
  headLayout,
  MessageConst,
  PropertiesView,
  RECORD,
  readI64,
} from "../../src/protocol/message/index.ts";
import type { MessageToStore } from "../store/message-store.ts";
import { PutMessageStatus } from "../store/status.ts";

/** Put outcomes after which the message is stored, though a flush or a slave may lag (spec §1.3). */
export const STORED_STATUSES: ReadonlySet<string> = new Set([
  PutMessageStatus.PUT_OK,
  PutMessageStatus.FLUSH_DISK_TIMEOUT,
  PutMessageStatus.FLUSH_SLAVE_TIMEOUT,
  PutMessageStatus.SLAVE_NOT_AVAILABLE,
]);

/** Put outcomes no retry can change: a service drops the message (logged) instead of retrying forever. */
export const PERMANENT_FAILURES: ReadonlySet<string> = new Set([
  PutMessageStatus.MESSAGE_ILLEGAL,
  PutMessageStatus.PROPERTIES_SIZE_EXCEEDED,
]);

/** The fields of a parked record that a delivery copies or looks at. */
export interface ParkedRecord {
  readonly flag: number;
  readonly sysFlag: number;
  readonly bornTimestamp: number;
  readonly bornHost: HostAddress;
  readonly storeTimestamp: number;
  readonly storeHost: HostAddress;
  readonly reconsumeTimes: number;
  /** A view into the record's bytes. */
  readonly body: Uint8Array;
  readonly propertiesString: string;
  readonly properties: ReadonlyMap<string, string>;
}

const utf8 = new TextDecoder();

/** Reads a record the store checked (readRecords validates what it returns). */
export function readParked(src: Uint8Array): ParkedRecord {
  const dv = new DataView(src.buffer, src.byteOffset, src.byteLength);
  const sysFlag = dv.getInt32(RECORD.sysFlag[0]);
  const head = headLayout(sysFlag, dv.getInt32(RECORD.magicCode[0]));
  const bodyBytes = dv.getInt32(head.bodyLength);
  const topicLengthAt = head.body + bodyBytes;
  const topicBytes = head.topicLengthBytes === 2 ? dv.getInt16(topicLengthAt) : dv.getUint8(topicLengthAt);
  const propsLengthAt = topicLengthAt + head.topicLengthBytes + topicBytes;
  const propsBytes = dv.getInt16(propsLengthAt);
  const propertiesString = utf8.decode(src.subarray(propsLengthAt + 2, propsLengthAt + 2 + propsBytes));
  const host = (at: number, bytes: number): HostAddress => ({
    ip: src.subarray(at, at + bytes - 4),
    port: dv.getInt32(at + bytes - 4),
  });
  return {
    flag: dv.getInt32(RECORD.flag[0]),
    sysFlag,
    bornTimestamp: readI64(dv, RECORD.bornTimestamp[0]),
    bornHost: host(head.bornHost, head.bornHostBytes),
    storeTimestamp: readI64(dv, head.storeTimestamp),
    storeHost: host(head.storeHost, head.storeHostBytes),
    reconsumeTimes: dv.getInt32(head.reconsumeTimes),
    body: src.subarray(head.body, head.body + bodyBytes),
    propertiesString,
    properties: new PropertiesView(propertiesString),
  };
}

export interface Redirect {
  readonly topic: string;
  readonly queueId: number;
  readonly set?: Readonly<Record<string, string>>;
  readonly remove?: readonly string[];
}

export function messageFromRecord(rec: ParkedRecord, to: Redirect): MessageToStore {
  const props = editPropertiesString(
    rec.propertiesString,
    { ...to.set, [MessageConst.WAIT]: "false" },
    to.remove,
  );
  return {
    topic: to.topic,
    queueId: to.queueId,
    flag: rec.flag,
    body: rec.body,
    properties: new PropertiesView(props),
    propertiesString: props,
    bornTimestamp: rec.bornTimestamp,
    bornHost: rec.bornHost,
    storeHost: rec.storeHost,
    sysFlag: rec.sysFlag,
    reconsumeTimes: rec.reconsumeTimes,
    preparedTransactionOffset: 0,
  };
}

/** REAL_QID as Java's Integer.parseInt reads it; undefined when missing or not a queue id. */
export function realQueueIdOf(rec: ParkedRecord): number | undefined {
  const text = rec.properties.get(MessageConst.REAL_QID);
  const n = text === undefined ? Number.NaN : Number(text);
  return Number.isInteger(n) && n >= 0 ? n : undefined;
}
