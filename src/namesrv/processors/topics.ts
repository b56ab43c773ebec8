/**
 * Cluster and topic administration (spec remoting §7.5): GET_BROKER_CLUSTER_INFO, write-permission
 * changes, topic lists, DELETE_TOPIC_IN_NAMESRV and REGISTER_TOPIC_IN_NAMESRV.
 */

import {
  AddWritePermOfBrokerResponseHeader,
  BrokerNameHeader,
  DeleteTopicFromNamesrvRequestHeader,
  GetTopicsByClusterRequestHeader,
  RegisterTopicRequestHeader,
  WipeWritePermOfBrokerResponseHeader,
} from "../../protocol/headers/namesrv.ts";
import {
  decodeTopicRouteData,
  encodeClusterInfo,
  encodeTopicList,
  hasUnitFlag,
  hasUnitSubFlag,
} from "../../protocol/route/index.ts";
import type { Processor } from "../../remoting/index.ts";
import { decodeBody, disabled, type NamesrvContext, success } from "../context.ts";

export function topicProcessors(ctx: NamesrvContext) {
  const { routes } = ctx;
  const topicList = (topics: string[]) => success(null, encodeTopicList({ topicList: topics }));
  /** The unit lists (311–313) are gated by enableTopicList, as GET_TOPICS_BY_CLUSTER is. */
  const unitList =
    (filter: (sysFlag: number) => boolean): Processor =>
    () =>
      ctx.config.namesrv.enableTopicList ? topicList(routes.topicsBySysFlag(filter)) : disabled();

  const getBrokerClusterInfo: Processor = () => success(null, encodeClusterInfo(routes.clusterInfo()));

  const wipeWritePermOfBroker: Processor = (req, rc) => {
    const h = BrokerNameHeader.decode(req.extFields);
    const wipeTopicCount = routes.changeWritePerm(h.brokerName, "wipe");
    ctx.log.info(
      { brokerName: h.brokerName, from: rc.connection.remoteAddress, wipeTopicCount },
      "wipe write perm",
    );
    return success(WipeWritePermOfBrokerResponseHeader.encode({ wipeTopicCount }));
  };

  const addWritePermOfBroker: Processor = (req, rc) => {
    const h = BrokerNameHeader.decode(req.extFields);
    const addTopicCount = routes.changeWritePerm(h.brokerName, "add");
    ctx.log.info(
      { brokerName: h.brokerName, from: rc.connection.remoteAddress, addTopicCount },
      "add write perm",
    );
    return success(AddWritePermOfBrokerResponseHeader.encode({ addTopicCount }));
  };

  const getAllTopicList: Processor = () =>
    ctx.config.namesrv.enableAllTopicList ? topicList(routes.allTopics()) : disabled();

  const deleteTopicInNamesrv: Processor = (req) => {
    const h = DeleteTopicFromNamesrvRequestHeader.decode(req.extFields);
    routes.deleteTopic(h.topic, h.clusterName);
    return success();
  };

  const registerTopicInNamesrv: Processor = (req) => {
    const h = RegisterTopicRequestHeader.decode(req.extFields);
    if (req.body) {
      const route = decodeBody("TopicRouteData", req.body, decodeTopicRouteData);
      routes.registerTopic(h.topic, route.queueDatas);
    }
    return success();
  };

  const getTopicsByCluster: Processor = (req) => {
    if (!ctx.config.namesrv.enableTopicList) return disabled();
    const h = GetTopicsByClusterRequestHeader.decode(req.extFields);
    return topicList(routes.topicsByCluster(h.cluster));
  };

  const getSystemTopicList: Processor = () => success(null, encodeTopicList(routes.systemTopicList()));

  return {
    getBrokerClusterInfo,
    wipeWritePermOfBroker,
    addWritePermOfBroker,
    getAllTopicList,
    deleteTopicInNamesrv,
    registerTopicInNamesrv,
    getTopicsByCluster,
    getSystemTopicList,
    getUnitTopicList: unitList(hasUnitFlag),
    getHasUnitSubTopicList: unitList(hasUnitSubFlag),
    getHasUnitSubUnUnitTopicList: unitList((f) => hasUnitSubFlag(f) && !hasUnitFlag(f)),
  };
}
