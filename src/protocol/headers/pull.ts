/** PULL_MESSAGE (11) headers and PullSysFlag bits (spec broker §7.1-7.3). */
import { defineHeader, field, type HeaderOf } from "../../remoting/custom-header.ts";

export const PullMessageRequestHeader = defineHeader({
  consumerGroup: field.string(),
  topic: field.string(),
  queueId: field.int(),
  queueOffset: field.long(),
  maxMsgNums: field.int(),
  sysFlag: field.int(),
  commitOffset: field.long(),
  suspendTimeoutMillis: field.long(),
  subscription: field.string().optional(),
  subVersion: field.long(),
  expressionType: field.string().optional(),
  maxMsgBytes: field.int().optional(),
});
export type PullMessageRequestHeader = HeaderOf<typeof PullMessageRequestHeader.fields>;

export const PullMessageResponseHeader = defineHeader({
  suggestWhichBrokerId: field.long(),
  nextBeginOffset: field.long(),
  minOffset: field.long(),
  maxOffset: field.long(),
});
export type PullMessageResponseHeader = HeaderOf<typeof PullMessageResponseHeader.fields>;

/** PullSysFlag (spec broker §7.2). */
export const PullSysFlag = {
  COMMIT_OFFSET: 0x1,
  SUSPEND: 0x2,
  SUBSCRIPTION: 0x4,
  CLASS_FILTER: 0x8,
  LITE_PULL: 0x10,
} as const;
