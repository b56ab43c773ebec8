/**
 * RESUME_CHECK_HALF_MESSAGE (323), as Java's AdminBrokerProcessor: the stored message an offset
 * msgId names (a half message parked in TRANS_CHECK_MAX_TIME_TOPIC after too many unanswered
 * checks) is put back into the half topic's queue with TRANSACTION_CHECK_TIMES 0, so the check
 * service asks its producer group about it again. Its body, flag, properties (REAL_TOPIC,
 * REAL_QID, PGROUP, the transaction id), sysFlag and born host and time stay as they were.
 */
import { ResumeCheckHalfMessageRequestHeader } from "../../src/protocol/headers/admin.ts";
import { MessageConst } from "../../src/protocol/message/index.ts";
import { decodeOffsetMessageId } from "../../src/protocol/message/message-id.ts";
import { TRANS_HALF_TOPIC } from "../../src/protocol/topic-names.ts";
import { HALF_QUEUE_ID } from "../../src/protocol/transaction.ts";
import { RemotingCommand } from "../../src/remoting/command.ts";
import type { ProcessorTableEntry } from "../../src/remoting/processor-registry.ts";
import { RequestCode } from "../../src/remoting/request-code.ts";
import { ResponseCode } from "../../src/remoting/response-code.ts";
import type { BrokerContext } from "../context.ts";
import { messageFromRecord, readParked, STORED_STATUSES } from "../services/stored-message.ts";

/** Java's remarks: any failure to read the message is the "exception" one. */
const PUT_FAILED = "Put message back to RMQ_SYS_TRANS_HALF_TOPIC failed.";
const EXCEPTION = "Exception was thrown when putting message back to RMQ_SYS_TRANS_HALF_TOPIC.";

export function resumeHalfProcessors(ctx: BrokerContext): ProcessorTableEntry[] {
  return [
    [
      RequestCode.RESUME_CHECK_HALF_MESSAGE,
      async (req) => {
        const { msgId } = ResumeCheckHalfMessageRequestHeader.decode(req.extFields);
        let record: Uint8Array | undefined;
        try {
          record = await ctx.store.lookMessageByOffset(decodeOffsetMessageId(msgId ?? "").physicalOffset);
        } catch (err) {
          ctx.log.warn({ err, msgId }, EXCEPTION);
          return RemotingCommand.response(ResponseCode.SYSTEM_ERROR, EXCEPTION);
        }
        if (record === undefined) {
          ctx.log.warn({ msgId }, "no stored message at the offset the msgId names");
          return RemotingCommand.response(ResponseCode.SYSTEM_ERROR, EXCEPTION);
        }
        const msg = messageFromRecord(readParked(record), {
          topic: TRANS_HALF_TOPIC,
          queueId: HALF_QUEUE_ID,
          set: { [MessageConst.TRANSACTION_CHECK_TIMES]: "0" },
        });
        const put = await ctx.store.putMessage(msg);
        if (!STORED_STATUSES.has(put.status)) {
          ctx.log.error({ msgId, status: put.status }, PUT_FAILED);
          return RemotingCommand.response(ResponseCode.SYSTEM_ERROR, PUT_FAILED);
        }
        ctx.log.info(
          { msgId, realTopic: msg.properties.get(MessageConst.REAL_TOPIC) },
          "half message put back for checking",
        );
        return RemotingCommand.response(ResponseCode.SUCCESS);
      },
    ],
  ];
}
