/**
 * CHECK_CLIENT_CONFIG (46) (spec pop-timer-filter §C.1, §C.2): a consumer asks, before it starts,
 * whether the broker can serve its subscription. TAG always can; another type needs
 * enablePropertyFilter and an expression that compiles, else the consumer's start fails with
 * this reply's code and remark.
 */
import { ExpressionType } from "../../src/protocol/body/subscription.ts";
import { RemotingCommand } from "../../src/remoting/command.ts";
import { ResponseCode } from "../../src/remoting/response-code.ts";
import type { BrokerContext } from "../context.ts";
import { consumerFiltersOf } from "./message-filters.ts";

interface CheckClientRequestBody {
  subscriptionData?: { expressionType?: unknown; subString?: unknown } | null;
}

export function checkClientConfig(ctx: BrokerContext, body: Uint8Array | null | undefined): RemotingCommand {
  let parsed: CheckClientRequestBody | null;
  try {
    parsed = JSON.parse(new TextDecoder().decode(body ?? new Uint8Array())) as CheckClientRequestBody | null;
  } catch {
    return RemotingCommand.response(ResponseCode.SYSTEM_ERROR, "bad CheckClientRequestBody");
  }
  const sub = parsed?.subscriptionData;
  if (!sub) return RemotingCommand.response(ResponseCode.SUCCESS);
  const type =
    typeof sub.expressionType === "string" && sub.expressionType !== ""
      ? sub.expressionType
      : ExpressionType.TAG;
  if (type === ExpressionType.TAG) return RemotingCommand.response(ResponseCode.SUCCESS);
  if (!ctx.brokerConfig.enablePropertyFilter) {
    return RemotingCommand.response(
      ResponseCode.SYSTEM_ERROR,
      `The broker does not support consumer to filter message by ${type}`,
    );
  }
  const compiled = consumerFiltersOf(ctx).compiler.compile(
    type,
    typeof sub.subString === "string" ? sub.subString : "",
  );
  if (!compiled.ok) return RemotingCommand.response(ResponseCode.SUBSCRIPTION_PARSE_FAILED, compiled.remark);
  return RemotingCommand.response(ResponseCode.SUCCESS);
}
