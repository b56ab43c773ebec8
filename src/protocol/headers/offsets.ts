/** Offset request/response headers (spec broker §8.1-8.3). */
import { defineHeader, field } from "../../remoting/custom-header.ts";

export const QueryConsumerOffsetRequestHeader = defineHeader({
  consumerGroup: field.string(),
  topic: field.string(),
  queueId: field.int(),
  setZeroIfNotFound: field.bool().optional(),
});

export const UpdateConsumerOffsetRequestHeader = defineHeader({
  consumerGroup: field.string(),
  topic: field.string(),
  queueId: field.int(),
  commitOffset: field.long(),
});

/** GET_MAX_OFFSET, GET_MIN_OFFSET, GET_EARLIEST_MSG_STORETIME take a queue. */
export const QueueRequestHeader = defineHeader({
  topic: field.string(),
  queueId: field.int(),
});

export const SearchOffsetRequestHeader = defineHeader({
  topic: field.string(),
  queueId: field.int(),
  timestamp: field.long(),
  boundaryType: field.string().optional(),
});

/** Every offset response carries one `offset` (or `timestamp` for 32). */
export const OffsetResponseHeader = defineHeader({ offset: field.long() });
export const TimestampResponseHeader = defineHeader({ timestamp: field.long() });
