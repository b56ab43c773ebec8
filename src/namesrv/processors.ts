/**
 * The NameServer's request table: every code it serves (spec remoting §6: HEAD's DefaultRequestProcessor
 * plus ClientRequestProcessor), on one screen. GET_ROUTEINFO_BY_TOPIC runs on the "client" lane, as
 * Java runs it on its client-request pool; everything else on "default". Unknown codes get the
 * registry's code 3 with Java's remark.
 */
import { type ProcessorTableEntry, RequestCode } from "../remoting/index.ts";
import type { NamesrvContext } from "./context.ts";
import { brokerProcessors } from "./processors/broker.ts";
import { configProcessors } from "./processors/config.ts";
import { kvProcessors } from "./processors/kv.ts";
import { routeProcessors } from "./processors/route.ts";
import { topicProcessors } from "./processors/topics.ts";

export const CLIENT_LANE = "client";

export function namesrvProcessorTable(ctx: NamesrvContext): ProcessorTableEntry[] {
  const kv = kvProcessors(ctx);
  const broker = brokerProcessors(ctx);
  const route = routeProcessors(ctx);
  const topics = topicProcessors(ctx);
  const config = configProcessors(ctx);
  return [
    [RequestCode.PUT_KV_CONFIG, kv.putKvConfig],
    [RequestCode.GET_KV_CONFIG, kv.getKvConfig],
    [RequestCode.DELETE_KV_CONFIG, kv.deleteKvConfig],
    [RequestCode.GET_KVLIST_BY_NAMESPACE, kv.getKvListByNamespace],
    [RequestCode.REGISTER_BROKER, broker.registerBroker],
    [RequestCode.UNREGISTER_BROKER, broker.unregisterBroker],
    [RequestCode.QUERY_DATA_VERSION, broker.queryDataVersion],
    [RequestCode.BROKER_HEARTBEAT, broker.brokerHeartbeat],
    [RequestCode.GET_BROKER_MEMBER_GROUP, broker.getBrokerMemberGroup],
    [RequestCode.GET_ROUTEINFO_BY_TOPIC, { process: route.getRouteInfoByTopic, lane: CLIENT_LANE }],
    [RequestCode.GET_BROKER_CLUSTER_INFO, topics.getBrokerClusterInfo],
    [RequestCode.WIPE_WRITE_PERM_OF_BROKER, topics.wipeWritePermOfBroker],
    [RequestCode.ADD_WRITE_PERM_OF_BROKER, topics.addWritePermOfBroker],
    [RequestCode.GET_ALL_TOPIC_LIST_FROM_NAMESERVER, topics.getAllTopicList],
    [RequestCode.DELETE_TOPIC_IN_NAMESRV, topics.deleteTopicInNamesrv],
    [RequestCode.REGISTER_TOPIC_IN_NAMESRV, topics.registerTopicInNamesrv],
    [RequestCode.GET_TOPICS_BY_CLUSTER, topics.getTopicsByCluster],
    [RequestCode.GET_SYSTEM_TOPIC_LIST_FROM_NS, topics.getSystemTopicList],
    [RequestCode.GET_UNIT_TOPIC_LIST, topics.getUnitTopicList],
    [RequestCode.GET_HAS_UNIT_SUB_TOPIC_LIST, topics.getHasUnitSubTopicList],
    [RequestCode.GET_HAS_UNIT_SUB_UNUNIT_TOPIC_LIST, topics.getHasUnitSubUnUnitTopicList],
    [RequestCode.UPDATE_NAMESRV_CONFIG, config.updateNamesrvConfig],
    [RequestCode.GET_NAMESRV_CONFIG, config.getNamesrvConfig],
  ];
}
