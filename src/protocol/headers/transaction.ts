/**
 * Transaction request headers (spec broker §10): END_TRANSACTION (37, producer → broker, oneway
 * from Java) and CHECK_TRANSACTION_STATE (39, broker → producer, oneway). `commitOrRollback`
 * holds MessageSysFlag's transaction type values: 0 unknown, 8 commit, 12 rollback.
 */
import { defineHeader, field, type HeaderOf } from "../../remoting/custom-header.ts";

const endFields = {
  /** [5.x] the real topic of the half message. */
  topic: field.string().optional(),
  /** Must equal the half message's PGROUP. */
  producerGroup: field.string(),
  /** The half message's queue offset in RMQ_SYS_TRANS_HALF_TOPIC (the send result's queueOffset). */
  tranStateTableOffset: field.long(),
  /** The half message's CommitLog offset (from its offset message id). */
  commitLogOffset: field.long(),
  commitOrRollback: field.int(),
  /** True when the producer answers a CHECK_TRANSACTION_STATE. */
  fromTransactionCheck: field.bool().optional(),
  /** The half message's UNIQ_KEY. */
  msgId: field.string(),
  transactionId: field.string().optional(),
  /** RpcRequestHeader's broker name. */
  bname: field.string().optional(),
};

export const EndTransactionRequestHeader = defineHeader(endFields);
export type EndTransactionRequestHeader = HeaderOf<typeof endFields>;

const checkFields = {
  topic: field.string().optional(),
  /** Queue offset of the half copy being checked (answer END_TRANSACTION with it). */
  tranStateTableOffset: field.long(),
  /** CommitLog offset of that copy. */
  commitLogOffset: field.long(),
  /** UNIQ_KEY of the message. */
  msgId: field.string().optional(),
  transactionId: field.string().optional(),
  /** Offset message id of the half copy. */
  offsetMsgId: field.string().optional(),
  bname: field.string().optional(),
};

export const CheckTransactionStateRequestHeader = defineHeader(checkFields);
export type CheckTransactionStateRequestHeader = HeaderOf<typeof checkFields>;
