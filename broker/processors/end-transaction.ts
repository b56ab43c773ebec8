/**
 * END_TRANSACTION (37, spec broker §10.2): a producer commits or rolls back a half message, after
 * its local transaction or in answer to a check. Commit stores a copy of the half message in
 * REAL_TOPIC / REAL_QID with the COMMIT transaction type (the properties string kept whole, so
 * consumers see TRAN_MSG and the transaction id); both write the op record that finishes the half.
 * A state of 0 (unknown) or any other number is logged and never answered, as Java does. Java
 * sends this request oneway, so its answers only reach raw clients and tests.
 */
import { EndTransactionRequestHeader } from "../../src/protocol/headers/transaction.ts";
import {
  decodeRecord,
  MessageConst,
  MessageSysFlag,
  parseJavaLong,
  resetTransactionValue,
} from "../../src/protocol/message/index.ts";
import { TRANS_HALF_TOPIC } from "../../src/protocol/topic-names.ts";
import { RemotingCommand } from "../../src/remoting/command.ts";
import { RemotingError } from "../../src/remoting/errors.ts";
import type { ProcessorTableEntry, RequestContext } from "../../src/remoting/processor-registry.ts";
import { RequestCode } from "../../src/remoting/request-code.ts";
import { ResponseCode } from "../../src/remoting/response-code.ts";
import type { BrokerContext } from "../context.ts";
import { STORED_STATUSES } from "../services/stored-message.ts";
import type { HalfRecord } from "../services/transaction/half-cache.ts";
import type { MessageToStore } from "../store/message-store.ts";
import { PutMessageStatus } from "../store/status.ts";
import type { SendPipeline } from "./send-steps/index.ts";

type DecodedHalf = HalfRecord;

const fail = (remark: string) => new RemotingError(ResponseCode.SYSTEM_ERROR, remark);
/** The op record naming the half was not stored (awaited inline: no async helper per END). */
const opWriteFailed = () => fail("write op message failed");

/** Java's sendFinalMessage answers for a commit the store refused. */
function commitFailure(ctx: BrokerContext, status: string): RemotingError {
  switch (status) {
    case PutMessageStatus.CREATE_MAPPED_FILE_FAILED:
      return fail("Create mapped file failed.");
    case PutMessageStatus.MESSAGE_ILLEGAL:
    case PutMessageStatus.PROPERTIES_SIZE_EXCEEDED:
      return new RemotingError(
        ResponseCode.MESSAGE_ILLEGAL,
        `The message is illegal, maybe msg body or properties length not matched. msg body length limit ${ctx.storeConfig.maxMessageSize}B, msg properties length limit 32KB.`,
      );
    case PutMessageStatus.SERVICE_NOT_AVAILABLE:
      return new RemotingError(ResponseCode.SERVICE_NOT_AVAILABLE, "Service not available now.");
    case PutMessageStatus.OS_PAGE_CACHE_BUSY:
      return fail("OS page cache busy, please try another machine");
    case PutMessageStatus.UNKNOWN_ERROR:
      return fail("UNKNOWN_ERROR");
    default:
      return fail("UNKNOWN_ERROR DEFAULT");
  }
}

/** Java's checkPrepareMessage, plus: the record must be a half message (not any record at that offset). */
function checkHalf(half: DecodedHalf | undefined, h: EndTransactionRequestHeader): DecodedHalf {
  if (!half || half.topic !== TRANS_HALF_TOPIC) throw fail("Find prepared transaction message failed");
  if (half.properties.get(MessageConst.PGROUP) !== h.producerGroup) throw fail("The producer group wrong");
  if (half.queueOffset !== h.tranStateTableOffset) throw fail("The transaction state table offset wrong");
  if (half.physicalOffset !== h.commitLogOffset) throw fail("The commit log offset wrong");
  return half;
}

/**
 * [5.x] A message with CHECK_IMMUNITY_TIME_IN_SECONDS may only be ended by a check answer once
 * that time (or transactionTimeOut, for -1) has passed since its birth.
 */
function tooLateForProducer(ctx: BrokerContext, half: DecodedHalf, h: EndTransactionRequestHeader): boolean {
  if (h.fromTransactionCheck) return false;
  const text = half.properties.get(MessageConst.CHECK_IMMUNITY_TIME_IN_SECONDS);
  if (text === undefined || text === "") return false;
  const seconds = parseJavaLong(text);
  const timeOut = ctx.brokerConfig.transactionTimeOut;
  const immunityMs = seconds === undefined || seconds === -1 ? timeOut : seconds * 1000;
  return Date.now() - half.bornTimestamp > immunityMs;
}

/** The committed message: the half's fields and whole properties string, sent to its real queue. */
function committedMessage(half: DecodedHalf, h: EndTransactionRequestHeader): MessageToStore {
  const topic = half.properties.get(MessageConst.REAL_TOPIC);
  const queueId = Number(half.properties.get(MessageConst.REAL_QID));
  if (!topic || !Number.isInteger(queueId) || queueId < 0) {
    throw fail("Find prepared transaction message failed");
  }
  return {
    topic,
    queueId,
    flag: half.flag,
    body: half.body,
    properties: half.properties,
    propertiesString: half.propertiesString,
    bornTimestamp: half.bornTimestamp,
    bornHost: half.bornHost,
    storeHost: half.storeHost,
    sysFlag: resetTransactionValue(half.sysFlag, MessageSysFlag.TRANSACTION_COMMIT_TYPE),
    reconsumeTimes: half.reconsumeTimes,
    preparedTransactionOffset: h.commitLogOffset,
  };
}

export function endTransactionProcessors(
  ctx: BrokerContext,
  commitSteps: SendPipeline,
): ProcessorTableEntry[] {
  const tx = ctx.transactions;
  return [
    [
      RequestCode.END_TRANSACTION,
      async (request: RemotingCommand, rc: RequestContext) => {
        const h = EndTransactionRequestHeader.decode(request.extFields);
        if (ctx.storeConfig.brokerRole === "SLAVE") {
          ctx.log.warn("Message store is slave mode, so end transaction is forbidden.");
          return RemotingCommand.response(ResponseCode.SLAVE_NOT_AVAILABLE);
        }
        const state = h.commitOrRollback;
        if (
          state !== MessageSysFlag.TRANSACTION_COMMIT_TYPE &&
          state !== MessageSysFlag.TRANSACTION_ROLLBACK_TYPE
        ) {
          ctx.log.info(
            { producer: rc.connection.remoteAddress, msgId: h.msgId, state, remark: request.remark },
            h.fromTransactionCheck ? "check answered: still unknown" : "transaction ended as unknown",
          );
          return null;
        }
        if (request.remark) {
          ctx.log.warn(
            { msgId: h.msgId, remark: request.remark },
            "producer ended a transaction with a remark",
          );
        }
        // Held until the commit is stored: a cached body is a view of the half cache's slab.
        const cached = tx.halves.hold(h.commitLogOffset);
        try {
          const decoded = cached ?? (await readHalf(ctx, h.commitLogOffset));
          if (decoded && tooLateForProducer(ctx, decoded, h)) {
            return RemotingCommand.response(ResponseCode.ILLEGAL_OPERATION);
          }
          const half = checkHalf(decoded, h);
          if (state === MessageSysFlag.TRANSACTION_ROLLBACK_TYPE) {
            if (!(await tx.ops.finish(h.tranStateTableOffset))) throw opWriteFailed();
            tx.halves.forget(h.commitLogOffset);
            tx.stats.rolledBack++;
            return RemotingCommand.response(ResponseCode.SUCCESS);
          }
          const stepped = commitSteps(committedMessage(half, h), { now: Date.now() });
          const msg = stepped instanceof Promise ? await stepped : stepped;
          const put = await ctx.store.putMessage(msg);
          if (!STORED_STATUSES.has(put.status)) throw commitFailure(ctx, put.status);
          ctx.stats.putNums.add(1, Date.now());
          if (!(await tx.ops.finish(h.tranStateTableOffset))) throw opWriteFailed();
          tx.halves.forget(h.commitLogOffset);
          tx.stats.committed++;
          return RemotingCommand.response(ResponseCode.SUCCESS);
        } finally {
          if (cached) tx.halves.release(cached);
        }
      },
    ],
  ];
}

/** The record at a CommitLog offset a client named: not necessarily the start of one. */
async function readHalf(ctx: BrokerContext, offset: number): Promise<HalfRecord | undefined> {
  const bytes = await ctx.store.lookMessageByOffset(offset);
  if (!bytes) return undefined;
  try {
    return decodeRecord(bytes);
  } catch {
    return undefined;
  }
}
