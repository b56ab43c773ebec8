/**
 * One POP read (spec pop-timer-filter §A.4.3): the retry topic and the topic's queues in Java's
 * order, each queue read from the later of its committed and popped offsets, each message leased;
 * an ordered pop (§A.15) reads only the topic, skips blocked queues and records the batch instead. Retry copies are re-encoded under the original topic with POP_CK (§A.5.3);
 * messages of the topic itself go out verbatim.
 */
import {
  encodeReceiptHandle,
  POP_ORDER_REVIVE_QUEUE,
  type PopMessageRequestHeader,
  PopRetryFlag,
  popRetryTopicV1,
  type QueueOffsets,
  type QueueOrderCounts,
} from "../../src/protocol/headers/pop.ts";
import {
  decodeRecord,
  encodeProperties,
  encodeRecord,
  RECORD,
  readI64,
} from "../../src/protocol/message/index.ts";
import type { BrokerContext } from "../context.ts";
import { POP_CK, type PopService } from "../services/pop-leases.ts";
import type { MessageFilter } from "../store/message-store.ts";
import { GetMessageStatus } from "../store/status.ts";
import type { ReadCharge } from "./pop-budget.ts";

/** Java's popFromRetryProbability (percent). */
const POP_FROM_RETRY_PROBABILITY = 20;

export interface PopBatch {
  readonly popTime: number;
  readonly reviveQid: number;
  readonly messages: Uint8Array[];
  readonly queues: QueueOffsets[];
  restNum: number;
  /** Lease records of this pop being written: the reply waits for them (pop-leases.ts). */
  readonly durable: Promise<void>[];
  /** Ordered pops: the orderCountInfo entry of each queue read (§A.15). */
  readonly orderCounts: QueueOrderCounts[];
}

/** Store statuses after which the read restarts from the store's nextBeginOffset (§A.4.3). */
const MOVED: ReadonlySet<string> = new Set([
  GetMessageStatus.OFFSET_TOO_SMALL,
  GetMessageStatus.OFFSET_OVERFLOW_BADLY,
  GetMessageStatus.OFFSET_FOUND_NULL,
]);

export async function popBatch(
  ctx: BrokerContext,
  pop: PopService,
  h: PopMessageRequestHeader,
  filter: MessageFilter | undefined,
  charge: ReadCharge,
): Promise<PopBatch> {
  const batch: PopBatch = {
    popTime: Date.now(),
    reviveQid: h.order === true ? POP_ORDER_REVIVE_QUEUE : pop.nextReviveQid(),
    messages: [],
    queues: [],
    restNum: 0,
    durable: [],
    orderCounts: [],
  };
  const retryTopic = popRetryTopicV1(h.topic, h.consumerGroup);
  // Ordered pops never read the retry topic: expired batches are read again in place (§A.15).
  const hasRetry = h.order !== true && ctx.topics.get(retryTopic) !== undefined;
  const randomQ = Math.floor(Math.random() * 100);
  const retryFirst = hasRetry && randomQ < POP_FROM_RETRY_PROBABILITY;
  const want = () => Math.max(0, h.maxMsgNums - batch.messages.length);
  if (retryFirst) await popQueue(ctx, pop, h, batch, charge, retryTopic, 0, want(), filter);
  const topic = ctx.topics.get(h.topic);
  if (topic) {
    if (h.queueId >= 0) {
      await popQueue(ctx, pop, h, batch, charge, h.topic, h.queueId, want(), filter);
    } else {
      for (let i = 0; i < topic.readQueueNums; i++) {
        await popQueue(
          ctx,
          pop,
          h,
          batch,
          charge,
          h.topic,
          (randomQ + i) % topic.readQueueNums,
          want(),
          filter,
        );
      }
    }
  }
  if (hasRetry && !retryFirst) await popQueue(ctx, pop, h, batch, charge, retryTopic, 0, want(), filter);
  return batch;
}

async function popQueue(
  ctx: BrokerContext,
  pop: PopService,
  h: PopMessageRequestHeader,
  batch: PopBatch,
  charge: ReadCharge,
  realTopic: string,
  queueId: number,
  want: number,
  filter: MessageFilter | undefined,
): Promise<void> {
  const q = pop.queue(h.consumerGroup, h.topic, realTopic, queueId);
  const maxOffset = ctx.store.getMaxOffsetInQueue(realTopic, queueId);
  if (q.busy) {
    batch.restNum += Math.max(0, maxOffset - Math.max(q.popped, 0));
    return;
  }
  if (want <= 0) {
    batch.restNum += Math.max(0, maxOffset - pop.popOffset(q, () => initOffset(ctx, h, realTopic, queueId)));
    return;
  }
  const order = h.order === true;
  // A blocked ordered queue is skipped without adding to restNum (Java's checkBlock).
  if (order && pop.ordered.blocked(q, h.attemptId ?? null, batch.popTime)) return;
  if (!charge.beforeRead()) return;
  q.busy = true;
  let readBytes = 0;
  try {
    let offset = pop.popOffset(q, () => initOffset(ctx, h, realTopic, queueId));
    let r = await read(ctx, h, realTopic, queueId, offset, want, filter);
    if (MOVED.has(r.status)) {
      offset = r.nextBeginOffset;
      ctx.offsets.commit(h.consumerGroup, realTopic, queueId, offset);
      r = await read(ctx, h, realTopic, queueId, offset, want, filter);
    }
    const offsets: number[] = [];
    if (r.status === GetMessageStatus.FOUND && r.messages.length > 0) {
      const flag = realTopic === h.topic ? PopRetryFlag.NORMAL : PopRetryFlag.RETRY_V1;
      for (const raw of r.messages) {
        readBytes += raw.byteLength;
        const qo = readI64(new DataView(raw.buffer, raw.byteOffset, raw.byteLength), RECORD.queueOffset[0]);
        offsets.push(qo);
        batch.messages.push(
          flag === PopRetryFlag.NORMAL ? raw : asOriginal(ctx, h, batch, raw, offset, flag),
        );
      }
      batch.queues.push({ flag, queueId, startOffset: offset, offsets });
    }
    if (order) {
      if (offsets.length > 0) {
        const o = pop.ordered.popped(q, batch.popTime, h.invisibleTime, offset, offsets, h.attemptId ?? null);
        batch.orderCounts.push(o.counts);
        batch.durable.push(o.durable);
      } else if (r.nextBeginOffset > offset) {
        ctx.offsets.commit(h.consumerGroup, realTopic, queueId, r.nextBeginOffset);
      }
    } else if (r.nextBeginOffset >= offset) {
      // Also when filtered-out messages were skipped: the offset moves past them (§A.4.3).
      const terms = {
        ckOffset: offset,
        popTime: batch.popTime,
        invisibleTime: h.invisibleTime,
        reviveQid: batch.reviveQid,
      };
      batch.durable.push(pop.popped(q, terms, offsets, r.nextBeginOffset));
    }
    batch.restNum += Math.max(0, r.maxOffset - r.nextBeginOffset);
  } finally {
    q.busy = false;
    charge.afterRead(readBytes);
  }
}

function read(
  ctx: BrokerContext,
  h: PopMessageRequestHeader,
  topic: string,
  queueId: number,
  offset: number,
  want: number,
  filter: MessageFilter | undefined,
) {
  return ctx.store.getMessage(
    h.consumerGroup,
    topic,
    queueId,
    offset,
    Math.min(want, ctx.storeConfig.maxTransferCountOnMessageInMemory),
    ctx.storeConfig.maxTransferBytesOnMessageInMemory,
    filter,
  );
}

/**
 * Where a group without an offset starts (§A.4.3, with §A.18's stand-in for Java's page-cache
 * test, the rule QUERY_CONSUMER_OFFSET uses): retry topics and MIN from the queue's min offset;
 * MAX from 0 while the head is still in the store, else from the newest message.
 */
function initOffset(ctx: BrokerContext, h: PopMessageRequestHeader, topic: string, queueId: number): number {
  const min = ctx.store.getMinOffsetInQueue(topic, queueId);
  if (topic !== h.topic || h.initMode === 0) return Math.max(min, 0);
  const max = ctx.store.getMaxOffsetInQueue(topic, queueId);
  const headIsHot = max <= 0 || ctx.store.getMinPhyOffset() === 0;
  if (min <= 0 && headIsHot) return 0;
  return Math.max(max - 1, 0);
}

/** A retry copy as the client sees it: the original topic, and POP_CK naming its lease. */
function asOriginal(
  ctx: BrokerContext,
  h: PopMessageRequestHeader,
  b: PopBatch,
  raw: Uint8Array,
  ckOffset: number,
  flag: string,
): Uint8Array {
  const m = decodeRecord(raw);
  const properties = new Map(m.properties);
  if (!properties.has(POP_CK)) {
    properties.set(
      POP_CK,
      encodeReceiptHandle({
        ckQueueOffset: ckOffset,
        popTime: b.popTime,
        invisibleTime: h.invisibleTime,
        reviveQid: b.reviveQid,
        retryFlag: flag,
        brokerName: ctx.brokerConfig.brokerName,
        queueId: m.queueId,
        queueOffset: m.queueOffset,
      }),
    );
  }
  return encodeRecord(
    {
      topic: h.topic,
      queueId: m.queueId,
      flag: m.flag,
      sysFlag: m.sysFlag,
      bornTimestamp: m.bornTimestamp,
      bornHost: m.bornHost,
      storeHost: m.storeHost,
      reconsumeTimes: m.reconsumeTimes,
      preparedTransactionOffset: m.preparedTransactionOffset,
      body: m.body,
      properties: encodeProperties(properties),
    },
    { queueOffset: m.queueOffset, physicalOffset: m.physicalOffset, storeTimestamp: m.storeTimestamp },
  );
}
