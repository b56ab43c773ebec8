/**
 * Offset requests (spec broker §8.1-8.3): QUERY_CONSUMER_OFFSET (14), UPDATE_CONSUMER_OFFSET (15),
 * GET_MAX_OFFSET (30), GET_MIN_OFFSET (31), GET_EARLIEST_MSG_STORETIME (32), SEARCH_OFFSET_BY_TIMESTAMP (29).
 */
import {
  OffsetResponseHeader,
  QueryConsumerOffsetRequestHeader,
  QueueRequestHeader,
  SearchOffsetRequestHeader,
  TimestampResponseHeader,
  UpdateConsumerOffsetRequestHeader,
} from "../../src/protocol/headers/offsets.ts";
import { RemotingCommand } from "../../src/remoting/command.ts";
import type { ProcessorTableEntry } from "../../src/remoting/processor-registry.ts";
import { RequestCode } from "../../src/remoting/request-code.ts";
import { ResponseCode } from "../../src/remoting/response-code.ts";
import type { BrokerContext } from "../context.ts";
import { BoundaryType } from "../store/status.ts";

const ok = (ext: Record<string, string> = {}) => RemotingCommand.response(ResponseCode.SUCCESS, null, ext);

export function offsetProcessors(ctx: BrokerContext): ProcessorTableEntry[] {
  return [
    [
      RequestCode.QUERY_CONSUMER_OFFSET,
      (req) => {
        const h = QueryConsumerOffsetRequestHeader.decode(req.extFields);
        const offset = ctx.offsets.query(h.consumerGroup, h.topic, h.queueId);
        if (offset >= 0) return ok(OffsetResponseHeader.encode({ offset }));
        // No committed offset: 0 while the queue still starts at 0 and is empty or its head is still
        // in the first CommitLog bytes, so a new group on a young topic reads from the beginning (the
        // 4.9 rule, spec §8.1), unless the client asked otherwise. ali-ons raises an error event for
        // every QUERY_NOT_FOUND, so an empty queue must answer 0 as a 4.9 broker does.
        const min = ctx.store.getMinOffsetInQueue(h.topic, h.queueId);
        const max = ctx.store.getMaxOffsetInQueue(h.topic, h.queueId);
        const headIsHot = max <= 0 || ctx.store.getMinPhyOffset() === 0;
        if (h.setZeroIfNotFound !== false && min <= 0 && headIsHot) {
          return ok(OffsetResponseHeader.encode({ offset: 0 }));
        }
        return RemotingCommand.response(
          ResponseCode.QUERY_NOT_FOUND,
          "Not found, V3_0_6_SNAPSHOT maybe this group consumer boot first",
          {},
        );
      },
    ],
    [
      RequestCode.UPDATE_CONSUMER_OFFSET,
      (req) => {
        const h = UpdateConsumerOffsetRequestHeader.decode(req.extFields);
        ctx.offsets.commit(h.consumerGroup, h.topic, h.queueId, h.commitOffset);
        return ok();
      },
    ],
    [
      RequestCode.GET_MAX_OFFSET,
      (req) => {
        const h = QueueRequestHeader.decode(req.extFields);
        return ok(OffsetResponseHeader.encode({ offset: ctx.store.getMaxOffsetInQueue(h.topic, h.queueId) }));
      },
    ],
    [
      RequestCode.GET_MIN_OFFSET,
      (req) => {
        const h = QueueRequestHeader.decode(req.extFields);
        return ok(OffsetResponseHeader.encode({ offset: ctx.store.getMinOffsetInQueue(h.topic, h.queueId) }));
      },
    ],
    [
      RequestCode.GET_EARLIEST_MSG_STORETIME,
      async (req) => {
        const h = QueueRequestHeader.decode(req.extFields);
        const timestamp = await ctx.store.getEarliestMessageTime(h.topic, h.queueId);
        return ok(TimestampResponseHeader.encode({ timestamp }));
      },
    ],
    [
      RequestCode.SEARCH_OFFSET_BY_TIMESTAMP,
      async (req) => {
        const h = SearchOffsetRequestHeader.decode(req.extFields);
        const boundary = h.boundaryType?.toUpperCase() === "UPPER" ? BoundaryType.UPPER : BoundaryType.LOWER;
        const offset = await ctx.store.getOffsetInQueueByTime(h.topic, h.queueId, h.timestamp, boundary);
        return ok(OffsetResponseHeader.encode({ offset }));
      },
    ],
  ];
}
