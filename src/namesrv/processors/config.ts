/** UPDATE_NAMESRV_CONFIG and GET_NAMESRV_CONFIG (spec remoting §7.5). */
import { type Processor, RemotingCommand, ResponseCode } from "../../remoting/index.ts";
import { type NamesrvContext, success } from "../context.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function configProcessors(ctx: NamesrvContext) {
  const updateNamesrvConfig: Processor = async (req, rc) => {
    ctx.log.info({ from: rc.connection.remoteAddress }, "updateConfig called");
    // No body: nothing to change (Java answers SUCCESS).
    if (!req.body) return success();
    const result = ctx.config.update(decoder.decode(req.body));
    if (!result.ok) {
      switch (result.code) {
        case "black-listed":
          return RemotingCommand.response(ResponseCode.NO_PERMISSION, "Can not update config in black list.");
        case "invalid":
          return RemotingCommand.response(ResponseCode.INVALID_PARAMETER, result.problem);
        case "unparsable":
          return RemotingCommand.response(ResponseCode.SYSTEM_ERROR, "string2Properties error");
      }
    }
    // In effect now; a failed write is logged and retried (Java logs and answers SUCCESS too).
    await ctx.config.persist();
    return success();
  };

  const getNamesrvConfig: Processor = () => {
    const text = ctx.config.format();
    return success(null, text.trim() === "" ? null : encoder.encode(text));
  };

  return { updateNamesrvConfig, getNamesrvConfig };
}
