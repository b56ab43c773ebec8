/**
 * The small NameServer bodies (spec remoting §7.7): ClusterInfo, TopicList, KVTable and the
 * GET_BROKER_MEMBER_GROUP answer. All use fastjson's default style (bare numeric keys).
 */
import {
  asArrayOrEmpty,
  asObject,
  asObjectOrEmpty,
  asOptionalString,
  asString,
  jsonBytes,
  parseJson,
} from "../json/index.ts";
import { type BrokerData, readBrokerData, readIdMap } from "./topic-route-data.ts";

const decoder = new TextDecoder();

export interface ClusterInfo {
  brokerAddrTable: Map<string, BrokerData>;
  clusterAddrTable: Map<string, Set<string>>;
}

export function encodeClusterInfo(info: ClusterInfo): Uint8Array {
  return jsonBytes(info);
}

export function decodeClusterInfo(body: Uint8Array): ClusterInfo {
  const o = asObject(parseJson(decoder.decode(body)), "ClusterInfo");
  const brokers = asObjectOrEmpty(o.brokerAddrTable, "brokerAddrTable");
  const clusters = asObjectOrEmpty(o.clusterAddrTable, "clusterAddrTable");
  return {
    brokerAddrTable: new Map(
      Object.entries(brokers).map(([name, b]) => [name, readBrokerData(b, `brokerAddrTable.${name}`)]),
    ),
    clusterAddrTable: new Map(
      Object.entries(clusters).map(([name, list]) => [
        name,
        new Set(asArrayOrEmpty(list, `clusterAddrTable.${name}`).map((s) => asString(s, name))),
      ]),
    ),
  };
}

export interface TopicList {
  topicList: string[];
  brokerAddr?: string;
}

export function encodeTopicList(list: TopicList): Uint8Array {
  return jsonBytes(list);
}

export function decodeTopicList(body: Uint8Array): TopicList {
  const o = asObject(parseJson(decoder.decode(body)), "TopicList");
  const list: TopicList = {
    topicList: asArrayOrEmpty(o.topicList, "topicList").map((s) => asString(s, "topicList[]")),
  };
  const brokerAddr = asOptionalString(o.brokerAddr, "brokerAddr");
  if (brokerAddr !== undefined) list.brokerAddr = brokerAddr;
  return list;
}

/** `{"table":{k: v}}`. */
export function encodeKVTable(table: ReadonlyMap<string, string>): Uint8Array {
  return jsonBytes({ table });
}

export function decodeKVTable(body: Uint8Array): Map<string, string> {
  const o = asObject(parseJson(decoder.decode(body)), "KVTable");
  return new Map(Object.entries(asObjectOrEmpty(o.table, "table")).map(([k, v]) => [k, asString(v, k)]));
}

export interface BrokerMemberGroup {
  cluster: string;
  brokerName: string;
  brokerAddrs: Map<number, string>;
}

/** GetBrokerMemberGroupResponseBody: `{"brokerMemberGroup":{...}}`. */
export function encodeBrokerMemberGroup(group: BrokerMemberGroup): Uint8Array {
  return jsonBytes({ brokerMemberGroup: group });
}

export function decodeBrokerMemberGroup(body: Uint8Array): BrokerMemberGroup {
  const o = asObject(parseJson(decoder.decode(body)), "GetBrokerMemberGroupResponseBody");
  const g = asObject(o.brokerMemberGroup, "brokerMemberGroup");
  return {
    cluster: asString(g.cluster, "brokerMemberGroup.cluster"),
    brokerName: asString(g.brokerName, "brokerMemberGroup.brokerName"),
    brokerAddrs: readIdMap(g.brokerAddrs, "brokerMemberGroup.brokerAddrs", (a, p) => asString(a, p)),
  };
}
