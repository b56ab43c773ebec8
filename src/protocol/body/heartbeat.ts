/**
 * HeartbeatData (spec broker §8.5): the HEART_BEAT body. Java and ali-ons send enum names, the C++
 * client sends ordinals and omits some fields; both are accepted and normalised to names here.
 */
import { RemotingError } from "../../remoting/errors.ts";
import { ResponseCode } from "../../remoting/response-code.ts";
import { type SubscriptionData, subscriptionFromJson } from "./subscription.ts";

export const ConsumeType = ["CONSUME_ACTIVELY", "CONSUME_PASSIVELY", "CONSUME_POP"] as const;
export const MessageModel = ["BROADCASTING", "CLUSTERING"] as const;
export const ConsumeFromWhere = [
  "CONSUME_FROM_LAST_OFFSET",
  "CONSUME_FROM_LAST_OFFSET_AND_FROM_MIN_WHEN_BOOT_FIRST",
  "CONSUME_FROM_MIN_OFFSET",
  "CONSUME_FROM_MAX_OFFSET",
  "CONSUME_FROM_FIRST_OFFSET",
  "CONSUME_FROM_TIMESTAMP",
] as const;

export interface ConsumerData {
  groupName: string;
  consumeType: string;
  messageModel: string;
  consumeFromWhere: string;
  subscriptionDataSet: SubscriptionData[];
  unitMode: boolean;
}

export interface HeartbeatData {
  clientID: string;
  producerDataSet: { groupName: string }[];
  consumerDataSet: ConsumerData[];
}

function enumName(value: unknown, names: readonly string[], fallback: string): string {
  if (typeof value === "number") return names[value] ?? fallback;
  if (typeof value === "string" && value !== "") return value;
  return fallback;
}

function bad(message: string): RemotingError {
  return new RemotingError(ResponseCode.SYSTEM_ERROR, `bad HeartbeatData body: ${message}`);
}

export function parseHeartbeat(body: Uint8Array | null): HeartbeatData {
  if (!body || body.length === 0) throw bad("missing");
  let raw: unknown;
  try {
    raw = JSON.parse(new TextDecoder().decode(body));
  } catch (err) {
    throw bad((err as Error).message);
  }
  if (typeof raw !== "object" || raw === null) throw bad("not an object");
  const h = raw as Record<string, unknown>;
  if (typeof h.clientID !== "string" || h.clientID === "") throw bad("clientID is missing");
  const producers = Array.isArray(h.producerDataSet) ? h.producerDataSet : [];
  const consumers = Array.isArray(h.consumerDataSet) ? h.consumerDataSet : [];
  return {
    clientID: h.clientID,
    producerDataSet: producers
      .filter(
        (p): p is Record<string, unknown> =>
          typeof p === "object" && p !== null && typeof p.groupName === "string",
      )
      .map((p) => ({ groupName: p.groupName as string })),
    consumerDataSet: consumers
      .filter(
        (c): c is Record<string, unknown> =>
          typeof c === "object" && c !== null && typeof c.groupName === "string",
      )
      .map((c) => ({
        groupName: c.groupName as string,
        consumeType: enumName(c.consumeType, ConsumeType, "CONSUME_PASSIVELY"),
        messageModel: enumName(c.messageModel, MessageModel, "CLUSTERING"),
        consumeFromWhere: enumName(c.consumeFromWhere, ConsumeFromWhere, "CONSUME_FROM_LAST_OFFSET"),
        subscriptionDataSet: (Array.isArray(c.subscriptionDataSet) ? c.subscriptionDataSet : [])
          .filter((s): s is Record<string, unknown> => typeof s === "object" && s !== null)
          .map(subscriptionFromJson),
        unitMode: c.unitMode === true,
      })),
  };
}
