/**
 * A parked record turned back into a message to put: what the schedule service (spec broker §9.5
 * `messageTimeUp`) and the timer service (spec pop-timer-filter §B.5) deliver. Body, flag, sysFlag,
 * born timestamp and host, store host and reconsume times are the record's; the destination and
 * the property changes are the caller's; WAIT is false, as both services put without waiting.
 */
import {
  type DecodedRecord,
  editProperties,
  encodeProperties,
  MessageConst,
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

export interface Redirect {
  readonly topic: string;
  readonly queueId: number;
  readonly set?: Readonly<Record<string, string>>;
  readonly remove?: readonly string[];
}

export function messageFromRecord(rec: DecodedRecord, to: Redirect): MessageToStore {
  const props = editProperties(rec.properties, { ...to.set, [MessageConst.WAIT]: "false" }, to.remove);
  return {
    topic: to.topic,
    queueId: to.queueId,
    flag: rec.flag,
    body: rec.body,
    properties: props,
    propertiesString: encodeProperties(props),
    bornTimestamp: rec.bornTimestamp,
    bornHost: rec.bornHost,
    storeHost: rec.storeHost,
    sysFlag: rec.sysFlag,
    reconsumeTimes: rec.reconsumeTimes,
    preparedTransactionOffset: 0,
  };
}

/** REAL_QID as Java's Integer.parseInt reads it; undefined when missing or not a queue id. */
export function realQueueIdOf(rec: DecodedRecord): number | undefined {
  const text = rec.properties.get(MessageConst.REAL_QID);
  const n = text === undefined ? Number.NaN : Number(text);
  return Number.isInteger(n) && n >= 0 ? n : undefined;
}
