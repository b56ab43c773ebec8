/**
 * GET_ROUTEINFO_BY_TOPIC (spec remoting §7.5, §7.8), on its own lane as Java's ClientRequestProcessor.
 * Encoded bodies are cached per topic and style until the route table, the KV store or the config
 * changes, since clients ask every 30 s for routes that rarely change.
 */

import { GetRouteInfoRequestHeader } from "../../protocol/headers/namesrv.ts";
import type { JsonStyle } from "../../protocol/json/index.ts";
import { encodeTopicRouteData } from "../../protocol/route/index.ts";
import { type Processor, RemotingCommand, ResponseCode } from "../../remoting/index.ts";
import { type NamesrvContext, success } from "../context.ts";
import { NAMESPACE_ORDER_TOPIC_CONFIG } from "../kv-config.ts";

/** V4_9_4: clients from this version on get standard JSON. */
export const STANDARD_JSON_MIN_VERSION = 401;

export function topicNotExistRemark(topic: string): string {
  return `No topic route info in name server for the topic: ${topic}\nSee https://rocketmq.apache.org/docs/bestPractice/06FAQ for further details.`;
}

/** At most this many encoded routes are kept; past it the cache starts over. */
const ROUTE_CACHE_ENTRIES_MAX = 100_000;

export function routeProcessors(ctx: NamesrvContext) {
  const cache = new Map<string, Uint8Array>();
  let cachedAt = { routes: -1, kv: -1, config: -1 };

  function encoded(topic: string, style: JsonStyle): Uint8Array | null {
    const stamp = { routes: ctx.routes.version, kv: ctx.kv.version, config: ctx.config.version };
    if (
      stamp.routes !== cachedAt.routes ||
      stamp.kv !== cachedAt.kv ||
      stamp.config !== cachedAt.config ||
      cache.size >= ROUTE_CACHE_ENTRIES_MAX
    ) {
      cache.clear();
      cachedAt = stamp;
    }
    const key = `${style === "standard" ? "s" : "f"}${topic}`;
    const hit = cache.get(key);
    if (hit) return hit;
    const route = ctx.routes.pickupTopicRouteData(topic);
    if (!route) return null;
    if (ctx.config.namesrv.orderMessageEnable) {
      const conf = ctx.kv.get(NAMESPACE_ORDER_TOPIC_CONFIG, topic);
      if (conf !== undefined) route.orderTopicConf = conf;
    }
    const body = encodeTopicRouteData(route, style);
    cache.set(key, body);
    return body;
  }

  const getRouteInfoByTopic: Processor = (req) => {
    const h = GetRouteInfoRequestHeader.decode(req.extFields);
    const { needWaitForService, waitSecondsForService } = ctx.config.namesrv;
    if (needWaitForService && Date.now() - ctx.startedAt < waitSecondsForService * 1000) {
      return RemotingCommand.response(ResponseCode.SYSTEM_ERROR, "name server not ready");
    }
    const standard = req.version >= STANDARD_JSON_MIN_VERSION || h.acceptStandardJsonOnly === true;
    const body = encoded(h.topic, standard ? "standard" : "fastjson");
    if (!body) return RemotingCommand.response(ResponseCode.TOPIC_NOT_EXIST, topicNotExistRemark(h.topic));
    return success(null, body);
  };

  return { getRouteInfoByTopic };
}
