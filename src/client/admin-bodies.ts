/**
 * Admin bodies the client reads and writes: SubscriptionGroupConfig (shared with the broker),
 * ConsumerConnection (GET_CONSUMER_CONNECTION_LIST), KVTable runtime info.
 */

import {
  type SubscriptionGroupConfig,
  subscriptionGroupConfig,
} from "../protocol/body/subscription-group.ts";
import {
  asArrayOrEmpty,
  asObject,
  asObjectOrEmpty,
  asOptionalString,
  asString,
  type JsonValue,
  parseJson,
} from "../protocol/json/index.ts";

export { type SubscriptionGroupConfig, subscriptionGroupConfig };

export interface ConsumerConnection {
  connections: { clientId: string; clientAddr: string; language: string; version: number }[];
  /** expressionType: "TAG" or "SQL92" (spec pop-timer-filter §C.1). */
  subscriptions: { topic: string; subString: string; expressionType: string }[];
  consumeType?: string;
  messageModel?: string;
  consumeFromWhere?: string;
}

const decoder = new TextDecoder();

export function decodeConsumerConnection(body: Uint8Array): ConsumerConnection {
  const o = asObject(parseJson(decoder.decode(body)), "ConsumerConnection");
  const out: ConsumerConnection = {
    connections: asArrayOrEmpty(o.connectionSet, "connectionSet").map((c: JsonValue) => {
      const x = asObject(c, "connection");
      return {
        clientId: asString(x.clientId, "clientId"),
        clientAddr: asString(x.clientAddr ?? "", "clientAddr"),
        language: asString(x.language ?? "", "language"),
        version: Number(x.version ?? 0),
      };
    }),
    subscriptions: Object.entries(asObjectOrEmpty(o.subscriptionTable, "subscriptionTable")).map(
      ([topic, s]) => ({
        topic,
        subString: asString(asObject(s, topic).subString ?? "*", "subString"),
        expressionType: asString(asObject(s, topic).expressionType ?? "TAG", "expressionType") || "TAG",
      }),
    ),
  };
  const consumeType = asOptionalString(o.consumeType, "consumeType");
  const messageModel = asOptionalString(o.messageModel, "messageModel");
  const consumeFromWhere = asOptionalString(o.consumeFromWhere, "consumeFromWhere");
  if (consumeType !== undefined) out.consumeType = consumeType;
  if (messageModel !== undefined) out.messageModel = messageModel;
  if (consumeFromWhere !== undefined) out.consumeFromWhere = consumeFromWhere;
  return out;
}
