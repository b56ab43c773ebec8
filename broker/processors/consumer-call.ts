/**
 * GET_CONSUMER_RUNNING_INFO (307), admin → broker → consumer (Java's AdminBrokerProcessor
 * callConsumer): the request goes on unchanged to the named client's connection and the client's
 * answer comes back as the broker's. mqadmin consumerStatus and consumerProgress -s read a
 * consumer's queues this way, with whether it holds each one's ordered-consumption lock.
 */
import { GetConsumerRunningInfoRequestHeader } from "../../src/protocol/headers/admin.ts";
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

export function consumerCallProcessors(ctx: BrokerContext): ProcessorTableEntry[] {
  return [
    [
      RequestCode.GET_CONSUMER_RUNNING_INFO,
      async (req) => {
        const { consumerGroup, clientId } = GetConsumerRunningInfoRequestHeader.decode(req.extFields);
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
        const forward = RemotingCommand.request(req.code, { ...req.extFields }, req.body);
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
      },
    ],
  ];
}
