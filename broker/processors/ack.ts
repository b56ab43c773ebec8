/**
 * ACK_MESSAGE (200051), BATCH_ACK_MESSAGE (200151) and CHANGE_MESSAGE_INVISIBLETIME (200053)
 * (spec pop-timer-filter §A.7–A.9) against the POP lease table. An ACK whose handle matches no
 * lease (acked, revived, or superseded by a CHANGE) is answered SUCCESS and changes nothing.
 * Handles with reviveQid 999 are ordered (§A.15): they ack or re-time the queue's batch.
 */
import {
  AckMessageRequestHeader,
  ChangeInvisibleTimeRequestHeader,
  ChangeInvisibleTimeResponseHeader,
  decodeReceiptHandle,
  invisibleTimeRemark,
  POP_INVISIBLE_TIME_MAX_MS,
  POP_ORDER_REVIVE_QUEUE,
  type ReceiptHandle,
  ReceiptHandleError,
  realTopicOf,
} from "../../src/protocol/headers/pop.ts";
import { RemotingCommand } from "../../src/remoting/command.ts";
import { RemotingError } from "../../src/remoting/errors.ts";
import type { ProcessorTableEntry, RequestContext } from "../../src/remoting/processor-registry.ts";
import { RequestCode } from "../../src/remoting/request-code.ts";
import { ResponseCode } from "../../src/remoting/response-code.ts";
import type { BrokerContext } from "../context.ts";
import { popServiceOf } from "../services/pop-leases.ts";

/** Topic, queue and offset checks shared by ACK and CHANGE (§A.7 steps 1–2, §A.9 step 1). */
function checkTarget(
  ctx: BrokerContext,
  rc: RequestContext,
  topic: string,
  queueId: number,
  offset: number,
  maxIsExclusive: boolean,
): RemotingCommand | null {
  const config = ctx.topics.get(topic);
  if (!config) {
    return RemotingCommand.response(
      ResponseCode.TOPIC_NOT_EXIST,
      `topic[${topic}] not exist, apply first please!`,
    );
  }
  if (queueId < 0 || queueId >= config.readQueueNums) {
    return RemotingCommand.response(
      ResponseCode.MESSAGE_ILLEGAL,
      `queueId[${queueId}] is illegal, topic:[${topic}] topicConfig.readQueueNums:[${config.readQueueNums}] consumer:[${rc.connection.remoteAddress}]`,
    );
  }
  const min = ctx.store.getMinOffsetInQueue(topic, queueId);
  const max = ctx.store.getMaxOffsetInQueue(topic, queueId);
  if (offset < min || offset > max || (maxIsExclusive && offset === max)) {
    return RemotingCommand.response(
      ResponseCode.NO_MESSAGE,
      `offset is illegal, key:${topic}@${queueId}, commit:${offset}, store:${min}~${max}`,
    );
  }
  return null;
}

/** Java's getters throw on a short or non-numeric handle; its remoting layer answers SYSTEM_ERROR. */
function handleOf(extraInfo: string): ReceiptHandle {
  try {
    return decodeReceiptHandle(extraInfo);
  } catch (err) {
    if (err instanceof ReceiptHandleError) throw new RemotingError(ResponseCode.SYSTEM_ERROR, err.message);
    throw err;
  }
}

/**
 * An ordered ack (§A.15): null when done (or nothing to do), else the MESSAGE_ILLEGAL reply for an
 * offset that is not part of the queue's current batch.
 */
function orderedAck(
  ctx: BrokerContext,
  rc: RequestContext,
  group: string,
  topic: string,
  queueId: number,
  offset: number,
  popTime: number,
): RemotingCommand | null {
  const pop = popServiceOf(ctx);
  const old = ctx.offsets.query(group, topic, queueId);
  if (pop.ordered.ack(pop.queueOf(group, topic, queueId), offset, popTime) === "done") return null;
  return RemotingCommand.response(
    ResponseCode.MESSAGE_ILLEGAL,
    `offset is illegal, key:${topic}@${group}@${queueId}, old:${old}, commit:${offset}, next:-1, ${rc.connection.remoteAddress}`,
  );
}

interface BatchAck {
  c?: string;
  consumerGroup?: string;
  t?: string;
  topic?: string;
  r?: string;
  retry?: string;
  so?: number;
  startOffset?: number;
  q?: number;
  queueId?: number;
  pt?: number;
  popTime?: number;
  rq?: number;
  reviveQueueId?: number;
  b?: string;
  bitSet?: string;
}

/**
 * Set bits one BATCH_ACK entry may name. An entry covers one pop's messages of one queue (at most
 * 32, §A.8): a bigger bit set is hostile and is not expanded past this.
 */
const BATCH_ACK_BITS_MAX = 1024;

/** Offsets of the set bits of a little-endian, base64 bit set (§A.8), the first BATCH_ACK_BITS_MAX. */
export function bitSetOffsets(base64: string, startOffset: number): number[] {
  const bytes = Buffer.from(base64, "base64");
  const out: number[] = [];
  for (let i = 0; i < bytes.length && out.length < BATCH_ACK_BITS_MAX; i++) {
    const byte = bytes[i]!;
    if (byte === 0) continue;
    for (let bit = 0; bit < 8; bit++) if ((byte >> bit) & 1) out.push(startOffset + i * 8 + bit);
  }
  return out.slice(0, BATCH_ACK_BITS_MAX);
}

export function ackProcessors(ctx: BrokerContext): ProcessorTableEntry[] {
  const pop = popServiceOf(ctx);
  return [
    [
      RequestCode.ACK_MESSAGE,
      async (req, rc) => {
        const h = AckMessageRequestHeader.decode(req.extFields);
        const refused = checkTarget(ctx, rc, h.topic, h.queueId, h.offset, false);
        if (refused) return refused;
        const handle = handleOf(h.extraInfo);
        if (handle.reviveQid === POP_ORDER_REVIVE_QUEUE) {
          const illegal = orderedAck(ctx, rc, h.consumerGroup, h.topic, h.queueId, h.offset, handle.popTime);
          await pop.durable();
          return illegal ?? RemotingCommand.response(ResponseCode.SUCCESS, null);
        }
        pop.ack(h.consumerGroup, h.topic, h.queueId, h.offset, handle.popTime, handle.ckQueueOffset);
        await pop.durable();
        return RemotingCommand.response(ResponseCode.SUCCESS, null);
      },
    ],
    [
      RequestCode.BATCH_ACK_MESSAGE,
      async (req, rc) => {
        let acks: BatchAck[] | undefined;
        try {
          const parsed = req.body ? JSON.parse(new TextDecoder().decode(req.body)) : null;
          acks = Array.isArray(parsed?.acks) ? parsed.acks : undefined;
        } catch {
          acks = undefined;
        }
        if (!acks || acks.length === 0) return RemotingCommand.response(ResponseCode.NO_MESSAGE, null);
        let illegal: RemotingCommand | null = null;
        for (const a of acks) {
          const group = String(a.c ?? a.consumerGroup ?? "");
          const topic = realTopicOf(String(a.r ?? a.retry ?? "0"), String(a.t ?? a.topic ?? ""), group);
          const queueId = Number(a.q ?? a.queueId);
          const min = ctx.store.getMinOffsetInQueue(topic, queueId);
          const max = ctx.store.getMaxOffsetInQueue(topic, queueId);
          if (min < 0 || max < 0) continue;
          const so = Number(a.so ?? a.startOffset);
          const popTime = Number(a.pt ?? a.popTime);
          const ordered = Number(a.rq ?? a.reviveQueueId) === POP_ORDER_REVIVE_QUEUE;
          const offsets = bitSetOffsets(String(a.b ?? a.bitSet ?? ""), so).filter(
            (o) => o >= min && o <= max,
          );
          if (!ordered) pop.ackMany(group, topic, queueId, offsets, popTime, so);
          else
            for (const o of offsets)
              illegal = orderedAck(ctx, rc, group, topic, queueId, o, popTime) ?? illegal;
        }
        await pop.durable();
        return illegal ?? RemotingCommand.response(ResponseCode.SUCCESS, null);
      },
    ],
    [
      RequestCode.CHANGE_MESSAGE_INVISIBLETIME,
      async (req, rc) => {
        const zeros = ChangeInvisibleTimeResponseHeader.encode({
          popTime: 0,
          invisibleTime: 0,
          reviveQid: 0,
        });
        const h = ChangeInvisibleTimeRequestHeader.decode(req.extFields);
        const refused = checkTarget(ctx, rc, h.topic, h.queueId, h.offset, true);
        if (refused) {
          refused.extFields = zeros;
          return refused;
        }
        if (h.invisibleTime < 0 || h.invisibleTime > POP_INVISIBLE_TIME_MAX_MS) {
          const bad = RemotingCommand.response(
            ResponseCode.INVALID_PARAMETER,
            invisibleTimeRemark(h.invisibleTime),
          );
          bad.extFields = zeros;
          return bad;
        }
        const handle = handleOf(h.extraInfo);
        const now = Date.now();
        if (handle.reviveQid === POP_ORDER_REVIVE_QUEUE) {
          const q = pop.queueOf(h.consumerGroup, h.topic, h.queueId);
          const r = pop.ordered.change(q, h.offset, handle.popTime, h.invisibleTime, now);
          await pop.durable();
          const ext = r
            ? ChangeInvisibleTimeResponseHeader.encode({ ...r, reviveQid: POP_ORDER_REVIVE_QUEUE })
            : zeros;
          return RemotingCommand.response(ResponseCode.SUCCESS, null, ext);
        }
        const l = pop.change(
          h.consumerGroup,
          h.topic,
          h.queueId,
          h.offset,
          h.invisibleTime,
          handle.reviveQid,
          now,
        );
        await pop.durable();
        const ext = ChangeInvisibleTimeResponseHeader.encode({
          popTime: l.popTime,
          invisibleTime: l.invisibleTime,
          reviveQid: l.reviveQid,
        });
        return RemotingCommand.response(ResponseCode.SUCCESS, null, ext);
      },
    ],
  ];
}
