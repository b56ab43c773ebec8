/**
 * INVOKE_BROKER_TO_GET_CONSUMER_STATUS (223), as Java's Broker2Client.getConsumeStatus (mqadmin
 * getConsumerStatus): the broker asks the group's online consumers, or only the one whose client
 * id is `clientAddr`, for their offsets of `topic` with GET_CONSUMER_STATUS_FROM_CLIENT (221) and
 * answers their tables by client id. A consumer that fails, times out or answers other than
 * SUCCESS is left out; the answer is still SUCCESS.
 */
import {
  decodeClientQueueTable,
  encodeConsumerStatusBody,
  type QueueOffsetRows,
} from "../../src/protocol/body/consumer-status.ts";
import { GetConsumerStatusRequestHeader } from "../../src/protocol/headers/admin.ts";
import { RemotingCommand } from "../../src/remoting/command.ts";
import type { ProcessorTableEntry } from "../../src/remoting/processor-registry.ts";
import { RequestCode } from "../../src/remoting/request-code.ts";
import { ResponseCode } from "../../src/remoting/response-code.ts";
import type { BrokerContext } from "../context.ts";
import type { ClientChannel } from "../services/client-manager.ts";

/** Broker2Client's timeout for 221. */
export const CONSUMER_STATUS_TIMEOUT_MS = 5000;
/** MQVersion V3_0_7_SNAPSHOT: the first client version that answers 221. */
const V3_0_7_SNAPSHOT = 28;
/** MQVersion's names below V3_0_7_SNAPSHOT, for the remark that refuses such a client. */
const OLD_VERSION_NAMES = [
  "V3_0_0_SNAPSHOT",
  "V3_0_0_ALPHA1",
  ...[1, 2, 3, 4, 5].map((n) => `V3_0_0_BETA${n}`),
  ...[6, 7, 8, 9].flatMap((n) => [`V3_0_0_BETA${n}_SNAPSHOT`, `V3_0_0_BETA${n}`]),
  "V3_0_0_FINAL",
  ...[1, 2, 3, 4, 5, 6].flatMap((n) => [`V3_0_${n}_SNAPSHOT`, `V3_0_${n}`]),
];

/**
 * The channels to ask, in registration order. As Java, a client too old to answer refuses the
 * whole request when it is met before the named client is found (or at all, with none named).
 */
function channelsToAsk(channels: Iterable<ClientChannel>, clientId: string): ClientChannel[] | string {
  const asked: ClientChannel[] = [];
  for (const ch of channels) {
    if (ch.version < V3_0_7_SNAPSHOT)
      return `the client does not support this feature. version=${OLD_VERSION_NAMES[ch.version] ?? ch.version}`;
    if (clientId === "" || clientId === ch.clientId) {
      asked.push(ch);
      if (clientId !== "") break;
    }
  }
  return asked;
}

/** One consumer's table, or null when it does not give one (failures are logged, as Java does). */
async function askConsumer(
  ctx: BrokerContext,
  ch: ClientChannel,
  topic: string,
  group: string,
): Promise<QueueOffsetRows | null> {
  const ask = RemotingCommand.request(RequestCode.GET_CONSUMER_STATUS_FROM_CLIENT, { topic, group });
  try {
    const answer = await ctx.endpoint().invoke(ch.conn, ask, CONSUMER_STATUS_TIMEOUT_MS);
    if (answer.code !== ResponseCode.SUCCESS || answer.body === null) return null;
    return decodeClientQueueTable(answer.body);
  } catch (err) {
    ctx.log.warn({ err, topic, group, clientId: ch.clientId }, "consumer status not answered");
    return null;
  }
}

export function consumerStatusProcessors(ctx: BrokerContext): ProcessorTableEntry[] {
  return [
    [
      RequestCode.INVOKE_BROKER_TO_GET_CONSUMER_STATUS,
      async (req) => {
        const h = GetConsumerStatusRequestHeader.decode(req.extFields);
        const group = ctx.clients.consumerGroup(h.group);
        // Java fails with a NullPointerException for a group never seen; both get the remark.
        if (!group || group.channels.size === 0)
          return RemotingCommand.response(
            ResponseCode.SYSTEM_ERROR,
            `No Any Consumer online in the consumer group: [${h.group}]`,
          );
        // A blank clientAddr names nobody (Java's isBlank); any other is compared as sent.
        const named = h.clientAddr?.trim() ? h.clientAddr : "";
        const asked = channelsToAsk(group.channels.values(), named);
        if (typeof asked === "string") {
          ctx.log.warn({ group: h.group }, asked);
          return RemotingCommand.response(ResponseCode.SYSTEM_ERROR, asked);
        }
        // Java asks one by one; asking at once answers in one timeout, not one per silent client.
        const tables = await Promise.all(asked.map((ch) => askConsumer(ctx, ch, h.topic, h.group)));
        const consumerTable = new Map<string, QueueOffsetRows>();
        asked.forEach((ch, i) => {
          const rows = tables[i];
          if (rows) consumerTable.set(ch.clientId, rows);
        });
        return RemotingCommand.response(
          ResponseCode.SUCCESS,
          null,
          null,
          encodeConsumerStatusBody(consumerTable),
        );
      },
    ],
  ];
}
