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
/** The same send, resolving with the cluster's outcome (the fast path writes its JSON from it). */
export type ProduceOutcome = (topic: string, input: MessageInput, raw?: Uint8Array) => Promise<SendOutcome>;

export function produceOne(deps: GatewayDeps): ProduceOne {
  const send = produceOutcome(deps);
  return (topic, input, raw) => send(topic, input, raw).then((r) => sendAnswerOf(topic, r));
}

/**
 * Decodes the input and sends it; a bad input is a rejection, never a throw at the caller. Not an
 * async function: it runs for every HTTP produce, and each promise layer costs.
 */
export function produceOutcome({ cluster, options, metrics }: GatewayDeps): ProduceOutcome {
  const counted = (r: SendOutcome) => {
    metrics.httpMessageIn();
    return r;
  };
  return (topic, input, raw) => {
    let decoded: ReturnType<typeof decodeInput>;
    try {
      decoded = decodeInput(input, options.messageBytesMax, raw);
    } catch (err) {
      return Promise.reject(err);
    }
    return cluster.send(topic, decoded.msg, decoded.target).then(counted);
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

/**
 * `JSON.stringify(sendAnswerOf(topic, r))`, the same text, written without the object and the
 * generic serializer. `topic` must be a legal topic name (checkTopic: `[%|a-zA-Z0-9_-]`), which
 * JSON needs no escape for. Each writer keeps the last broker name and status as JSON: a gateway
 * sees few of either.
 */
export function sendAnswerWriter(): (topic: string, r: SendOutcome) => string {
  let brokerName = "";
  let brokerNameJson = '""';
  let status = "";
  let statusJson = '""';
  return (topic, r) => {
    if (r.brokerName !== brokerName) {
      brokerNameJson = JSON.stringify(r.brokerName);
      brokerName = r.brokerName;
    }
    if (r.status !== status) {
      statusJson = JSON.stringify(r.status);
      status = r.status;
    }
    const msgId = isHexList(r.msgId) ? `"${r.msgId}"` : JSON.stringify(r.msgId);
    return `{"msgId":${msgId},"topic":"${topic}","brokerName":${brokerNameJson},"queueId":${jsonNumber(r.queueId)},"queueOffset":${jsonNumber(r.queueOffset)},"status":${statusJson}}`;
  };
}

/**
 * Whether `s` is hex digits and commas only, as every message id is (one, or a batch's list), so it
 * needs no JSON escape: a loop costs a fraction of JSON.stringify's generic string path.
 */
function isHexList(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    // 0-9, A-F, a-f, ","
    if (!((c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102) || c === 44)) return false;
  }
  return true;
}

/** A number as JSON.stringify writes it (null for NaN and the infinities). */
function jsonNumber(n: number): string {
  return Number.isFinite(n) ? String(n) : "null";
}
