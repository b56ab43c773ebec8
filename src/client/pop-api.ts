/**
 * The POP requests a lease-based consumer makes (spec pop-timer-filter §A.4–A.9): POP_MESSAGE with
 * the receipt handles built from its answer as Java's MQClientAPIImpl#processPopResponse does
 * (§A.5.4), ACK_MESSAGE and CHANGE_MESSAGE_INVISIBLETIME by handle. Stateless: the SimpleConsumer
 * and the gateway both call these with the group and topic of each request.
 *
 * The handle given to callers is the proxy's 9-field form (§A.6): the broker's 8 fields, then the
 * message's commit-log offset. It names the broker, the queue, the offset and the retry flag, so
 * with the group and the original topic it is all an ack needs.
 */
import { ExpressionType } from "../protocol/body/subscription.ts";
import {
  AckMessageRequestHeader,
  ChangeInvisibleTimeRequestHeader,
  ChangeInvisibleTimeResponseHeader,
  ConsumeInitMode,
  decodeReceiptHandle,
  encodeReceiptHandle,
  PopMessageRequestHeader,
  PopMessageResponseHeader,
  parseMsgOffsetInfo,
  parseOrderCountInfo,
  parseStartOffsetInfo,
  type ReceiptHandle,
  ReceiptHandleError,
  realTopicOf,
  retryFlagOfTopic,
} from "../protocol/headers/pop.ts";
import { RequestCode, ResponseCode } from "../remoting/index.ts";
import type { ClientInstance } from "./client-instance.ts";
import { clientError, decodeAnswer, MQClientError } from "./errors.ts";
import { decodeMessages, type MessageExt } from "./message.ts";
import { call } from "./rpc.ts";

/** Java's MessageConst.PROPERTY_POP_CK and PROPERTY_FIRST_POP_TIME. */
export const POP_CK_PROPERTY = "POP_CK";
export const FIRST_POP_TIME_PROPERTY = "1ST_POP_TIME";

/** A popped message: the message and the receipt handle that acks it. */
export interface PoppedMessage extends MessageExt {
  /** Opaque to callers: hand it back to ack or changeInvisibleDuration. */
  receiptHandle: string;
}

export interface PopRequest {
  group: string;
  /** The original topic (never a retry topic). */
  topic: string;
  brokerName: string;
  /** -1: every readable queue of the broker. */
  queueId?: number;
  maxMessages: number;
  invisibleMs: number;
  /** Long-poll budget; 0 answers at once. */
  awaitMs: number;
  /** Tag expression ("*", "a||b") or SQL92 text, by `expressionType`. */
  expression?: string;
  expressionType?: ExpressionType;
  order?: boolean;
  /** Where a group without an offset starts; default: the newest message (as the proxy pops). */
  initMode?: (typeof ConsumeInitMode)[keyof typeof ConsumeInitMode];
}

export interface PopResult {
  /** FOUND, or NO_MESSAGE when the broker answered POLLING_TIMEOUT / POLLING_FULL. */
  status: "FOUND" | "NO_MESSAGE" | "POLLING_FULL";
  messages: PoppedMessage[];
}

/** The parts of a handle an ack or change needs beside the group and topic. */
export function parseHandle(handle: string): ReceiptHandle {
  try {
    return decodeReceiptHandle(handle);
  } catch (err) {
    if (err instanceof ReceiptHandleError) throw clientError(`bad receipt handle: ${err.message}`);
    throw err;
  }
}

export class PopApi {
  constructor(private readonly client: ClientInstance) {}

  /** One POP_MESSAGE to one broker. The socket timeout leaves the broker its whole long poll. */
  async pop(r: PopRequest): Promise<PopResult> {
    const addr = await this.client.masterAddr(r.brokerName, r.topic);
    const code = RequestCode.POP_MESSAGE;
    const expression = r.expression ?? "*";
    const header = PopMessageRequestHeader.encode({
      consumerGroup: r.group,
      topic: r.topic,
      queueId: r.queueId ?? -1,
      maxMsgNums: r.maxMessages,
      invisibleTime: r.invisibleMs,
      pollTime: r.awaitMs,
      // 0: the broker's clock stands in (§A.4.1), so a skewed client clock cannot time the poll out.
      bornTime: 0,
      initMode: r.initMode ?? ConsumeInitMode.MAX,
      expType: r.expressionType ?? ExpressionType.TAG,
      exp: expression,
      ...(r.order ? { order: true } : {}),
    });
    const timeoutMs = r.awaitMs + this.client.options.mqClientApiTimeoutMs;
    const reply = await call(this.client.remoting, addr, code, header, null, timeoutMs, [
      ResponseCode.SUCCESS,
      ResponseCode.POLLING_TIMEOUT,
      ResponseCode.POLLING_FULL,
      ResponseCode.PULL_NOT_FOUND,
    ]);
    if (reply.code === ResponseCode.POLLING_FULL) return { status: "POLLING_FULL", messages: [] };
    if (reply.code !== ResponseCode.SUCCESS || !reply.body) return { status: "NO_MESSAGE", messages: [] };
    const body = reply.body;
    const messages = decodeAnswer(addr, code, () =>
      withHandles(PopMessageResponseHeader.decode(reply.extFields), decodeMessages(body, r.brokerName), r),
    );
    return { status: "FOUND", messages };
  }

  /**
   * ACK_MESSAGE. A stale handle (already acked, superseded, expired) is SUCCESS on the broker and
   * changes nothing (§A.7): the message comes back. A refusal throws MQClientError.
   */
  async ack(group: string, topic: string, handle: string): Promise<void> {
    const h = parseHandle(handle);
    const realTopic = realTopicOf(h.retryFlag, topic, group);
    const addr = await this.client.masterAddr(h.brokerName, topic);
    await call(
      this.client.remoting,
      addr,
      RequestCode.ACK_MESSAGE,
      AckMessageRequestHeader.encode({
        consumerGroup: group,
        topic: realTopic,
        queueId: h.queueId,
        extraInfo: handle,
        offset: h.queueOffset,
      }),
      null,
      this.client.options.mqClientApiTimeoutMs,
    );
  }

  /**
   * Acks several handles of one group and topic: one BATCH_ACK_MESSAGE per broker (§A.8), handles
   * sharing a lease batch (retry flag, queue, start offset, pop time) folded into one entry's bit
   * set, as Java's batchAckMessageAsync does. One handle goes as ACK_MESSAGE.
   */
  async ackMany(group: string, topic: string, handles: readonly string[]): Promise<void> {
    if (handles.length === 1) return this.ack(group, topic, handles[0]!);
    const byBroker = new Map<string, Map<string, { h: ReceiptHandle; offsets: number[] }>>();
    const singles: string[] = [];
    for (const text of handles) {
      const h = parseHandle(text);
      const bit = h.queueOffset - h.ckQueueOffset;
      if (bit < 0 || bit >= BATCH_ACK_BITS_MAX) {
        singles.push(text); // not from a lease batch: its bit set would be huge
        continue;
      }
      let entries = byBroker.get(h.brokerName);
      if (!entries) {
        entries = new Map();
        byBroker.set(h.brokerName, entries);
      }
      const key = `${h.retryFlag}@${h.queueId}@${h.ckQueueOffset}@${h.popTime}`;
      const entry = entries.get(key) ?? { h, offsets: [] };
      entry.offsets.push(h.queueOffset);
      entries.set(key, entry);
    }
    await Promise.all([
      ...singles.map((text) => this.ack(group, topic, text)),
      ...[...byBroker].map(async ([brokerName, entries]) => {
        const addr = await this.client.masterAddr(brokerName, topic);
        const acks = [...entries.values()].map(({ h, offsets }) => ({
          c: group,
          t: topic,
          r: h.retryFlag,
          so: h.ckQueueOffset,
          q: h.queueId,
          rq: h.reviveQid,
          pt: h.popTime,
          it: h.invisibleTime,
          b: bitSet(offsets.map((o) => o - h.ckQueueOffset)),
        }));
        const body = new TextEncoder().encode(JSON.stringify({ acks, brokerName }));
        await call(
          this.client.remoting,
          addr,
          RequestCode.BATCH_ACK_MESSAGE,
          null,
          body,
          this.client.options.mqClientApiTimeoutMs,
        );
      }),
    ]);
  }

  /**
   * CHANGE_MESSAGE_INVISIBLETIME: the message becomes visible `invisibleMs` from now unless acked
   * with the handle returned; the old handle no longer acks (§A.9).
   */
  async changeInvisible(group: string, topic: string, handle: string, invisibleMs: number): Promise<string> {
    const h = parseHandle(handle);
    const realTopic = realTopicOf(h.retryFlag, topic, group);
    const addr = await this.client.masterAddr(h.brokerName, topic);
    const code = RequestCode.CHANGE_MESSAGE_INVISIBLETIME;
    const reply = await call(
      this.client.remoting,
      addr,
      code,
      ChangeInvisibleTimeRequestHeader.encode({
        consumerGroup: group,
        topic: realTopic,
        queueId: h.queueId,
        extraInfo: handle,
        offset: h.queueOffset,
        invisibleTime: invisibleMs,
      }),
      null,
      this.client.options.mqClientApiTimeoutMs,
    );
    const r = decodeAnswer(addr, code, () => ChangeInvisibleTimeResponseHeader.decode(reply.extFields));
    return encodeReceiptHandle({
      ckQueueOffset: h.queueOffset,
      popTime: r.popTime,
      invisibleTime: r.invisibleTime,
      reviveQid: r.reviveQid,
      retryFlag: h.retryFlag,
      brokerName: h.brokerName,
      queueId: h.queueId,
      queueOffset: h.queueOffset,
      ...(h.commitLogOffset !== undefined ? { commitLogOffset: h.commitLogOffset } : {}),
    });
  }
}

/** Java's BitSet.toByteArray as base64: bit i is bit i % 8 of byte i / 8; no trailing zero bytes. */
export function bitSet(bits: readonly number[]): string {
  const bytes = new Uint8Array((Math.max(...bits) >> 3) + 1);
  for (const i of bits) bytes[i >> 3]! |= 1 << (i & 7);
  return Buffer.from(bytes).toString("base64");
}

/** A batch-ack entry covers offsets within this distance of its start (a POP hands out ≤ 32). */
const BATCH_ACK_BITS_MAX = 4096;

/**
 * Receipt handles in body order (§A.5.4): a retry copy carries its own in POP_CK; any other message
 * takes the start offset of its `<flag>@<queueId>` entry and the next offset of that entry's list.
 * Ordered pops report delivery counts in orderCountInfo, which become reconsumeTimes.
 */
function withHandles(h: PopMessageResponseHeader, msgs: MessageExt[], r: PopRequest): PoppedMessage[] {
  const starts = parseStartOffsetInfo(h.startOffsetInfo ?? "");
  const offsets = parseMsgOffsetInfo(h.msgOffsetInfo ?? "");
  const counts = h.orderCountInfo ? parseOrderCountInfo(h.orderCountInfo) : null;
  const used = new Map<string, number>();
  const out: PoppedMessage[] = [];
  for (const msg of msgs) {
    const flag = retryFlagOfTopic(msg.topic);
    const key = `${flag}@${msg.queueId}`;
    const ck = msg.properties[POP_CK_PROPERTY];
    let handle: string;
    if (ck !== undefined) {
      handle = `${ck} ${msg.commitLogOffset}`;
    } else {
      const start = starts.get(key);
      if (start === undefined) throw new MQClientError({ code: 1, remark: `no startOffsetInfo for ${key}` });
      const index = used.get(key) ?? 0;
      used.set(key, index + 1);
      handle = encodeReceiptHandle({
        ckQueueOffset: start,
        popTime: h.popTime,
        invisibleTime: h.invisibleTime,
        reviveQid: h.reviveQid,
        retryFlag: flag,
        brokerName: r.brokerName,
        queueId: msg.queueId,
        queueOffset: offsets.get(key)?.[index] ?? msg.queueOffset,
        commitLogOffset: msg.commitLogOffset,
      });
    }
    if (counts) {
      const n =
        counts.get(`${flag}@qo${msg.queueId}%${msg.queueOffset}`) ?? counts.get(`${flag}@${msg.queueId}`);
      if (n !== undefined && n > 0) msg.reconsumeTimes = n;
    }
    if (msg.properties[FIRST_POP_TIME_PROPERTY] === undefined)
      msg.properties[FIRST_POP_TIME_PROPERTY] = String(h.popTime);
    msg.topic = r.topic;
    const popped = msg as PoppedMessage;
    popped.receiptHandle = handle;
    out.push(popped);
  }
  return out;
}
