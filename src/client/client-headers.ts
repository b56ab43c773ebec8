/** Request headers the client needs that src/protocol/headers does not declare (spec broker §9.2, §8.4). */
import { defineHeader, field } from "../remoting/custom-header.ts";

export const GetMaxOffsetRequestHeader = defineHeader({
  topic: field.string(),
  queueId: field.int(),
  committed: field.bool().optional(),
});

export const ResetOffsetRequestHeader = defineHeader({
  topic: field.string(),
  group: field.string(),
  timestamp: field.long(),
  isForce: field.bool(),
});

export const GetConsumerConnectionListRequestHeader = defineHeader({ consumerGroup: field.string() });
