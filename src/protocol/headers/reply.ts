/**
 * PUSH_REPLY_MESSAGE_TO_CLIENT (326, broker → requesting producer) header (spec broker §1.10):
 * the reply's send header as the replier sent it, plus where and when the broker took it. Every
 * field but `properties`, `reconsumeTimes` and `unitMode` is required by the Java client's decoder,
 * so the broker always writes them. SEND_REPLY_MESSAGE (324/325) itself carries the send headers of
 * send.ts (long names for 324, one-letter names for 325).
 */
import { defineHeader, field, type HeaderOf } from "../../remoting/custom-header.ts";
import { messageHeaderFields } from "./send.ts";

const replyFields = {
  ...messageHeaderFields,
  /** The replier's address, `ip:port`. */
  bornHost: field.string(),
  /** The broker's store address, `ip:port`. */
  storeHost: field.string(),
  /** When the broker pushed the reply (epoch ms). */
  storeTimestamp: field.long(),
};

export const ReplyMessageRequestHeader = defineHeader(replyFields);
export type ReplyMessageRequestHeader = HeaderOf<typeof replyFields>;
