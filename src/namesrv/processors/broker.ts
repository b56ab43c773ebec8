/**
 * Broker-side requests (spec remoting §7.5): REGISTER_BROKER, UNREGISTER_BROKER, QUERY_DATA_VERSION,
 * BROKER_HEARTBEAT and GET_BROKER_MEMBER_GROUP.
 */

import {
  BrokerHeartbeatRequestHeader,
  GetBrokerMemberGroupRequestHeader,
  QueryDataVersionRequestHeader,
  QueryDataVersionResponseHeader,
  RegisterBrokerRequestHeader,
  RegisterBrokerResponseHeader,
  UnRegisterBrokerRequestHeader,
  ZONE_NAME_EXT,
} from "../../protocol/headers/namesrv.ts";
import { jsonBytes } from "../../protocol/json/index.ts";
import { bodyCrc } from "../../protocol/message/crc32.ts";
import {
  decodeDataVersion,
  decodeRegisterBrokerBody,
  decodeTopicConfigSerializeWrapper,
  emptyRegisterBrokerBody,
  encodeBrokerMemberGroup,
  encodeKVTable,
  REGISTER_BODY_MIN_VERSION,
} from "../../protocol/route/index.ts";
import { type Processor, RemotingCommand, ResponseCode } from "../../remoting/index.ts";
import { decodeBody, type NamesrvContext, success } from "../context.ts";
import { NAMESPACE_ORDER_TOPIC_CONFIG } from "../kv-config.ts";

export function brokerProcessors(ctx: NamesrvContext) {
  const registerBroker: Processor = (req, rc) => {
    const h = RegisterBrokerRequestHeader.decode(req.extFields);
    // bodyCrc32 is UtilAll.crc32: CRC-32 with the top bit cleared; 0 means "not sent".
    if (
      h.bodyCrc32 !== undefined &&
      h.bodyCrc32 !== 0 &&
      bodyCrc(req.body ?? new Uint8Array()) !== h.bodyCrc32
    ) {
      ctx.log.warn({ from: rc.connection.remoteAddress }, "register broker: crc32 not match");
      return RemotingCommand.response(ResponseCode.SYSTEM_ERROR, "crc32 not match");
    }
    let wrapper = emptyRegisterBrokerBody().topicConfigSerializeWrapper;
    // Null leaves the filter-server table alone: brokers older than V3_0_11 send no list.
    let filterServerList: string[] | null = null;
    if (req.version >= REGISTER_BODY_MIN_VERSION) {
      const body = req.body
        ? decodeBody("RegisterBrokerBody", req.body, (b) =>
            decodeRegisterBrokerBody(b, h.compressed === true, req.version),
          )
        : emptyRegisterBrokerBody();
      wrapper = body.topicConfigSerializeWrapper;
      filterServerList = body.filterServerList;
    } else if (req.body) {
      wrapper = decodeBody("TopicConfigSerializeWrapper", req.body, decodeTopicConfigSerializeWrapper);
    }
    const result = ctx.routes.registerBroker({
      clusterName: h.clusterName,
      brokerAddr: h.brokerAddr,
      brokerName: h.brokerName,
      brokerId: h.brokerId,
      haServerAddr: h.haServerAddr,
      zoneName: req.ext(ZONE_NAME_EXT),
      heartbeatTimeoutMillis: h.heartbeatTimeoutMillis,
      enableActingMaster: h.enableActingMaster,
      wrapper,
      filterServerList,
      connection: rc.connection,
    });
    if (!result) return RemotingCommand.response(ResponseCode.SYSTEM_ERROR, "register broker failed");
    const orderTopics = ctx.config.namesrv.returnOrderTopicConfigToBroker
      ? ctx.kv.list(NAMESPACE_ORDER_TOPIC_CONFIG)
      : undefined;
    return success(
      RegisterBrokerResponseHeader.encode(result),
      orderTopics ? encodeKVTable(orderTopics) : null,
    );
  };

  const unregisterBroker: Processor = (req) => {
    const h = UnRegisterBrokerRequestHeader.decode(req.extFields);
    ctx.routes.unregisterBrokers([
      { clusterName: h.clusterName, brokerAddr: h.brokerAddr, brokerName: h.brokerName },
    ]);
    return success();
  };

  const queryDataVersion: Processor = (req) => {
    const h = QueryDataVersionRequestHeader.decode(req.extFields);
    const dataVersion = decodeBody("DataVersion", req.body, decodeDataVersion);
    const changed = ctx.routes.isBrokerTopicConfigChanged(h.clusterName, h.brokerAddr, dataVersion);
    ctx.routes.touchBroker(h.clusterName, h.brokerAddr);
    const stored = ctx.routes.queryBrokerDataVersion(h.clusterName, h.brokerAddr);
    return success(QueryDataVersionResponseHeader.encode({ changed }), stored ? jsonBytes(stored) : null);
  };

  const brokerHeartbeat: Processor = (req) => {
    const h = BrokerHeartbeatRequestHeader.decode(req.extFields);
    ctx.routes.touchBroker(h.clusterName, h.brokerAddr);
    return success();
  };

  const getBrokerMemberGroup: Processor = (req) => {
    const h = GetBrokerMemberGroupRequestHeader.decode(req.extFields);
    return success(null, encodeBrokerMemberGroup(ctx.routes.brokerMemberGroup(h.clusterName, h.brokerName)));
  };

  return { registerBroker, unregisterBroker, queryDataVersion, brokerHeartbeat, getBrokerMemberGroup };
}
