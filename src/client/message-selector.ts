/**
 * What a consumer subscribes a topic with (Java's MessageSelector): a tag expression, the
 * default, or an SQL92 expression over message properties (spec pop-timer-filter Part C). Before
 * a consumer with an SQL92 subscription starts, each broker of the topic is asked with
 * CHECK_CLIENT_CONFIG (46) whether it can serve it, and the start fails with the broker's code
 * and remark if not (a wrong expression: SUBSCRIPTION_PARSE_FAILED with line and column).
 */
import { buildSubscription, ExpressionType, type SubscriptionData } from "../protocol/body/subscription.ts";
import { jsonBytes } from "../protocol/json/index.ts";
import { RequestCode } from "../remoting/index.ts";
import type { ClientInstance } from "./client-instance.ts";
import { call } from "./rpc.ts";

/** A subscription: `"TagA || TagB"` or `"*"`, `{ tag: "..." }`, or `{ sql: "a > 5 AND TAGS = 'x'" }`. */
export type MessageSelector = string | { readonly tag: string } | { readonly sql: string };

export const MessageSelector = {
  bySql: (sql: string): MessageSelector => ({ sql }),
  byTag: (tag: string): MessageSelector => ({ tag }),
} as const;

/**
 * The SubscriptionData a consumer sends in heartbeats (and pull headers). An SQL92 subscription's
 * subVersion is its creation time, as Java's; it has no tags, so the client never re-filters it.
 */
export function subscriptionOf(topic: string, selector: MessageSelector): SubscriptionData {
  if (typeof selector === "string") return buildSubscription(topic, selector);
  if ("tag" in selector) return buildSubscription(topic, selector.tag);
  return {
    topic,
    subString: selector.sql,
    tagsSet: [],
    codeSet: [],
    subVersion: Date.now(),
    expressionType: ExpressionType.SQL92,
    classFilterMode: false,
  };
}

/**
 * Java's checkClientInBroker: every non-TAG subscription is checked by each master serving its
 * topic; the first refusal is thrown as MQClientError(code, remark).
 */
export async function checkClientInBroker(
  client: ClientInstance,
  group: string,
  subs: Iterable<SubscriptionData>,
): Promise<void> {
  for (const sub of subs) {
    if (sub.expressionType === ExpressionType.TAG) continue;
    const route = await client.route(sub.topic).catch(() => null);
    for (const broker of route?.brokerDatas ?? []) {
      const addr = await client.masterAddr(broker.brokerName, sub.topic).catch(() => undefined);
      if (!addr) continue;
      const body = jsonBytes({ clientId: client.clientId, group, namespace: null, subscriptionData: sub });
      await call(client.remoting, addr, RequestCode.CHECK_CLIENT_CONFIG, null, body, client.broker.timeoutMs);
    }
  }
}
