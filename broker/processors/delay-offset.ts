/**
 * GET_ALL_DELAY_OFFSET (45), as Java's AdminBrokerProcessor: the delay service's progress per
 * level, the delayOffset.json content (`{"dataVersion":…,"offsetTable":{1:5,…}}`). A 4.9 slave
 * syncs its schedule progress from its master this way; admins read it too.
 */
import { jsonBytes } from "../../src/protocol/json/index.ts";
import { RemotingCommand } from "../../src/remoting/command.ts";
import type { ProcessorTableEntry } from "../../src/remoting/processor-registry.ts";
import { RequestCode } from "../../src/remoting/request-code.ts";
import { ResponseCode } from "../../src/remoting/response-code.ts";
import type { BrokerContext } from "../context.ts";

export function delayOffsetProcessors(ctx: BrokerContext): ProcessorTableEntry[] {
  return [
    [
      RequestCode.GET_ALL_DELAY_OFFSET,
      // Java answers "No delay offset in this broker" only for empty encoded text, which its
      // encoder never yields (no level delivered yet is `{"offsetTable":{}}`); neither does ours.
      () =>
        RemotingCommand.response(ResponseCode.SUCCESS, null, null, jsonBytes(ctx.delayOffsets.wireForm())),
    ],
  ];
}
