/**
 * Admin bodies the client reads and writes: SubscriptionGroupConfig (spec broker §8.10),
 * ConsumerConnection (GET_CONSUMER_CONNECTION_LIST), KVTable runtime info.
 */
import {
  asArrayOrEmpty,
  asObject,
  asObjectOrEmpty,
  asOptionalString,
  asString,
  type JsonValue,
  parseJson,
} from "../protocol/json/index.ts";

export interface SubscriptionGroupConfig {
  groupName: string;
  consumeEnable: boolean;
  consumeFromMinEnable: boolean;
  consumeBroadcastEnable: boolean;
  retryQueueNums: number;
  retryMaxTimes: number;
  brokerId: number;
  whichBrokerWhenConsumeSlowly: number;
  notifyConsumerIdsChangedEnable: boolean;
  consumeMessageOrderly: boolean;
}

export function subscriptionGroupConfig(
  groupName: string,
  init: Partial<Omit<SubscriptionGroupConfig, "groupName">> = {},
): SubscriptionGroupConfig {
  return {
    groupName,
    consumeEnable: true,
    consumeFromMinEnable: true,
    consumeBroadcastEnable: true,
    retryQueueNums: 1,
    retryMaxTimes: 16,
    brokerId: 0,
    whichBrokerWhenConsumeSlowly: 1,
    notifyConsumerIdsChangedEnable: true,
    consumeMessageOrderly: false,
    ...init,
  };
}

export interface ConsumerConnection {
  connections: { clientId: string; clientAddr: string; language: string; version: number }[];
  subscriptions: { topic: string; subString: string }[];
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
