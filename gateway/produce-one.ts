/**
 * One message sent for a produce request, and the SendResult answered: the tail shared by the
 * Hono route (JSON and raw bodies) and the fast path of JSON produce (fast-produce.ts).
 */
import type { SendOutcome } from "./cluster.ts";
import type { GatewayDeps } from "./context.ts";
import { decodeInput } from "./message-codec.ts";
import type { MessageInput } from "./schemas.ts";

export interface SendAnswer {
  msgId: string;
  topic: string;
  brokerName: string;
  queueId: number;
  queueOffset: number;
  status: string;
}

export type ProduceOne = (topic: string, input: MessageInput, raw?: Uint8Array) => Promise<SendAnswer>;

export function produceOne({ cluster, options, metrics }: GatewayDeps): ProduceOne {
  return async (topic, input, raw) => {
    const { msg, target } = decodeInput(input, options.messageBytesMax, raw);
    const r = await cluster.send(topic, msg, target);
    metrics.httpMessageIn();
    return sendAnswerOf(topic, r);
  };
}

/** What a produce answers (HTTP) or acks (a WebSocket publish) for a sent message. */
export function sendAnswerOf(topic: string, r: SendOutcome): SendAnswer {
  return {
    msgId: r.msgId,
    topic,
    brokerName: r.brokerName,
    queueId: r.queueId,
    queueOffset: r.queueOffset,
    status: r.status,
  };
}
