/** VIEW_MESSAGE_BY_ID (33) and QUERY_MESSAGE (12) headers (spec broker §8.4). */
import { defineHeader, field } from "../../remoting/custom-header.ts";

export const ViewMessageRequestHeader = defineHeader({
  offset: field.long(),
  topic: field.string().optional(),
});

export const QueryMessageRequestHeader = defineHeader({
  topic: field.string(),
  key: field.string(),
  maxNum: field.int(),
  beginTimestamp: field.long(),
  endTimestamp: field.long(),
});

export const QueryMessageResponseHeader = defineHeader({
  indexLastUpdateTimestamp: field.long(),
  indexLastUpdatePhyoffset: field.long(),
});

/** extField that marks QUERY_MESSAGE's key as a UNIQ_KEY. */
export const UNIQUE_KEY_QUERY = "_UNIQUE_KEY_QUERY";
