/**
 * GET_CONSUMER_STATUS_FROM_CLIENT (221) and INVOKE_BROKER_TO_GET_CONSUMER_STATUS (223), the two
 * ends of mqadmin getConsumerStatus: a consumer answers a broker with its offsets in memory of
 * one topic's queues, and an admin asks the first broker of the topic's route, which gathers those
 * answers by client id (Java's DefaultMQAdminExtImpl.getConsumeStatus).
 */
import {
  decodeConsumerTable,
  encodeClientStatusBody,
  type QueueOffsetRows,
} from "../protocol/body/consumer-status.ts";
import { GetConsumerStatusRequestHeader } from "../protocol/headers/admin.ts";
import { MASTER_ID } from "../protocol/route/index.ts";
import { RemotingCommand, RequestCode, ResponseCode } from "../remoting/index.ts";
import type { ClientInstance, ConsumerMember } from "./client-instance.ts";
import { decodeAnswer } from "./errors.ts";
import { call } from "./rpc.ts";

/**
 * The client's answer to 221 (Java's ClientRemotingProcessor.getConsumeStatus): SUCCESS with the
 * group's table; a group this client does not consume for answers an empty table, as Java does.
 */
export function answerConsumerStatus(
  req: RemotingCommand,
  consumer: (group: string) => ConsumerMember | undefined,
): RemotingCommand {
  const { topic, group } = GetConsumerStatusRequestHeader.decode(req.extFields);
  const rows = consumer(group)?.offsetTable?.(topic) ?? [];
  return RemotingCommand.response(ResponseCode.SUCCESS, null, null, encodeClientStatusBody(rows));
}

/**
 * Each answering consumer's offsets of `topic`, by client id, from the first broker of its route
 * (its master; any broker when the master is missing), or an empty map when the topic has none.
 */
export async function fetchConsumerStatus(
  client: ClientInstance,
  topic: string,
  group: string,
  clientId: string,
  timeoutMs: number,
): Promise<Map<string, QueueOffsetRows>> {
  const route = await client.namesrv.topicRoute(topic);
  const first = route?.brokerDatas[0];
  const addr = first?.brokerAddrs.get(MASTER_ID) ?? [...(first?.brokerAddrs.values() ?? [])][0];
  if (addr === undefined) return new Map();
  const ext = GetConsumerStatusRequestHeader.encode({ topic, group, clientAddr: clientId });
  const r = await call(
    client.remoting,
    addr,
    RequestCode.INVOKE_BROKER_TO_GET_CONSUMER_STATUS,
    ext,
    null,
    timeoutMs,
  );
  return decodeAnswer(addr, RequestCode.INVOKE_BROKER_TO_GET_CONSUMER_STATUS, () =>
    decodeConsumerTable(r.body ?? new Uint8Array()),
  );
}
