/**
 * VIEW_MESSAGE_BY_ID (33) and QUERY_MESSAGE (12) (spec broker §8.4): the stored bytes, as a pull body.
 */
import {
  QueryMessageRequestHeader,
  QueryMessageResponseHeader,
  UNIQUE_KEY_QUERY,
  ViewMessageRequestHeader,
} from "../../src/protocol/headers/query.ts";
import { RemotingCommand } from "../../src/remoting/command.ts";
import { RemotingError } from "../../src/remoting/errors.ts";
import type { ProcessorTableEntry } from "../../src/remoting/processor-registry.ts";
import { RequestCode } from "../../src/remoting/request-code.ts";
import { ResponseCode } from "../../src/remoting/response-code.ts";
import type { BrokerContext } from "../context.ts";

export function queryProcessors(ctx: BrokerContext): ProcessorTableEntry[] {
  return [
    [
      RequestCode.VIEW_MESSAGE_BY_ID,
      async (req) => {
        const { offset } = ViewMessageRequestHeader.decode(req.extFields);
        const record = await ctx.store.lookMessageByOffset(offset);
        if (!record)
          throw new RemotingError(ResponseCode.SYSTEM_ERROR, `can not find message by the offset, ${offset}`);
        return RemotingCommand.response(ResponseCode.SUCCESS, null, null, record);
      },
    ],
    [
      RequestCode.QUERY_MESSAGE,
      async (req) => {
        const h = QueryMessageRequestHeader.decode(req.extFields);
        const unique = req.ext(UNIQUE_KEY_QUERY) === "true";
        const maxNum = Math.min(
          unique ? ctx.storeConfig.defaultQueryMaxNum : h.maxNum,
          ctx.storeConfig.maxMsgsNumBatch,
        );
        const r = await ctx.store.queryMessage(h.topic, h.key, maxNum, h.beginTimestamp, h.endTimestamp);
        const ext = QueryMessageResponseHeader.encode({
          indexLastUpdateTimestamp: r.indexLastUpdateTimestamp,
          indexLastUpdatePhyoffset: r.indexLastUpdatePhyoffset,
        });
        if (r.messages.length === 0) {
          return RemotingCommand.response(
            ResponseCode.QUERY_NOT_FOUND,
            "can not find message, maybe time range not correct",
            ext,
          );
        }
        return RemotingCommand.response(ResponseCode.SUCCESS, null, ext, Buffer.concat(r.messages));
      },
    ],
  ];
}
