/**
 * Calls from an admin to one consumer through the broker (Java's AdminBrokerProcessor
 * callConsumer): the request goes on to the named client's connection and the client's answer
 * comes back as the broker's.
 * - GET_CONSUMER_RUNNING_INFO (307), unchanged: mqadmin consumerStatus and consumerProgress -s read
 *   a consumer's queues this way, with whether it holds each one's ordered-consumption lock.
 * - CONSUME_MESSAGE_DIRECTLY (309): the broker adds its brokerName and, as the body, the stored
 *   record the offset msgId names; the consumer runs its listener on it and answers a
 *   ConsumeMessageDirectlyResult (mqadmin queryMsgById -g GROUP -d CLIENT_ID, dashboards' resend).
 */
import {
  ConsumeMessageDirectlyResultRequestHeader,
  GetConsumerRunningInfoRequestHeader,
} from "../../src/protocol/headers/admin.ts";
import { decodeOffsetMessageId } from "../../src/protocol/message/message-id.ts";
import { RemotingCommand } from "../../src/remoting/command.ts";
import { RemotingError, RemotingTimeoutError } from "../../src/remoting/errors.ts";
import type { ProcessorTableEntry } from "../../src/remoting/processor-registry.ts";
import { RequestCode } from "../../src/remoting/request-code.ts";
import { ResponseCode } from "../../src/remoting/response-code.ts";
import type { BrokerContext } from "../context.ts";

/** Java's Broker2Client.callClient timeout. */
export const CALL_CLIENT_TIMEOUT_MS = 10_000;
/** MQVersion V3_1_8_SNAPSHOT: older clients cannot answer a forwarded call. */
const V3_1_8_SNAPSHOT = 62;

/** Sends `forward` to the consumer `clientId` of `consumerGroup` and answers what it answers. */
async function callConsumer(
  ctx: BrokerContext,
  forward: RemotingCommand,
  consumerGroup: string,
  clientId: string,
): Promise<RemotingCommand> {
  const group = ctx.clients.consumerGroup(consumerGroup);
  const channel = group && [...group.channels.values()].find((ch) => ch.clientId === clientId);
  if (!channel)
    throw new RemotingError(
      ResponseCode.SYSTEM_ERROR,
      `The Consumer <${consumerGroup}> <${clientId}> not online`,
    );
  if (channel.version < V3_1_8_SNAPSHOT)
    throw new RemotingError(
      ResponseCode.SYSTEM_ERROR,
      `The Consumer <${clientId}> Version <${channel.version}> too low to finish, please upgrade it to V3_1_8_SNAPSHOT`,
    );
  let answer: RemotingCommand;
  try {
    answer = await ctx.endpoint().invoke(channel.conn, forward, CALL_CLIENT_TIMEOUT_MS);
  } catch (err) {
    const timedOut = err instanceof RemotingTimeoutError;
    throw new RemotingError(
      timedOut ? ResponseCode.CONSUME_MSG_TIMEOUT : ResponseCode.SYSTEM_ERROR,
      timedOut
        ? `consumer <${consumerGroup}> <${clientId}> Timeout: ${(err as Error).message}`
        : `invoke consumer <${consumerGroup}> <${clientId}> Exception: ${(err as Error).message}`,
    );
  }
  return RemotingCommand.response(answer.code, answer.remark, answer.extFields, answer.body);
}

/** The stored record an offset message id names; null when the id or the offset names none. */
async function recordOf(ctx: BrokerContext, msgId: string | undefined): Promise<Uint8Array | null> {
  if (msgId === undefined) return null;
  let offset: number;
  try {
    offset = decodeOffsetMessageId(msgId).physicalOffset;
  } catch {
    return null;
  }
  return (await ctx.store.lookMessageByOffset(offset)) ?? null;
}

export function consumerCallProcessors(ctx: BrokerContext): ProcessorTableEntry[] {
  return [
    [
      RequestCode.GET_CONSUMER_RUNNING_INFO,
      (req) => {
        const { consumerGroup, clientId } = GetConsumerRunningInfoRequestHeader.decode(req.extFields);
        const forward = RemotingCommand.request(req.code, { ...req.extFields }, req.body);
        return callConsumer(ctx, forward, consumerGroup, clientId);
      },
    ],
    [
      RequestCode.CONSUME_MESSAGE_DIRECTLY,
      async (req) => {
        const h = ConsumeMessageDirectlyResultRequestHeader.decode(req.extFields);
        const ext = { ...req.extFields, brokerName: ctx.brokerConfig.brokerName };
        // As Java: a message that cannot be read goes on without a body, and the client says so.
        const forward = RemotingCommand.request(req.code, ext, await recordOf(ctx, h.msgId));
        return callConsumer(ctx, forward, h.consumerGroup, h.clientId ?? "");
      },
    ],
  ];
}
