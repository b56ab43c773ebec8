/**
 * TopicRouteData, QueueData and BrokerData (spec remoting §7.7): the answer to GET_ROUTEINFO_BY_TOPIC.
 * `brokerAddrs` is a Map keyed by broker id so the writer can give fastjson's `{0:"addr"}` form or
 * the standard `{"0":"addr"}` form (spec §7.8); readers accept both.
 */
import {
  asArrayOrEmpty,
  asBool,
  asInt,
  asLong,
  asObject,
  asObjectOrEmpty,
  asOptionalString,
  asString,
  BodyShapeError,
  type JsonStyle,
  type JsonValue,
  jsonBytes,
  parseJson,
} from "../json/index.ts";

/** brokerId 0 is the master; ≥ 1 are slaves (Java's MixAll.MASTER_ID). */
export const MASTER_ID = 0;

export interface QueueData {
  brokerName: string;
  readQueueNums: number;
  writeQueueNums: number;
  perm: number;
  topicSysFlag: number;
}

export interface BrokerData {
  cluster: string;
  brokerName: string;
  brokerAddrs: Map<number, string>;
  /** 5.x field; Java writes it always (a primitive boolean). */
  enableActingMaster: boolean;
  zoneName?: string;
}

/** A static-topic mapping (5.x); carried through, never interpreted by the NameServer. */
export interface TopicQueueMappingInfo {
  topic: string;
  scope: string;
  totalQueues: number;
  bname: string;
  epoch: number | bigint;
  dirty: boolean;
  currIdMap: Map<number, number>;
}

export interface TopicRouteData {
  orderTopicConf?: string;
  queueDatas: QueueData[];
  brokerDatas: BrokerData[];
  filterServerTable: Map<string, string[]>;
  topicQueueMappingByBroker?: Map<string, TopicQueueMappingInfo>;
}

export function encodeTopicRouteData(route: TopicRouteData, style: JsonStyle): Uint8Array {
  return jsonBytes(route, style);
}

export function decodeTopicRouteData(body: Uint8Array): TopicRouteData {
  return readTopicRouteData(parseJson(new TextDecoder().decode(body)));
}

export function readTopicRouteData(v: JsonValue, path = "TopicRouteData"): TopicRouteData {
  const o = asObject(v, path);
  const route: TopicRouteData = {
    queueDatas: asArrayOrEmpty(o.queueDatas, `${path}.queueDatas`).map((q, i) =>
      readQueueData(q, `${path}.queueDatas[${i}]`),
    ),
    brokerDatas: asArrayOrEmpty(o.brokerDatas, `${path}.brokerDatas`).map((b, i) =>
      readBrokerData(b, `${path}.brokerDatas[${i}]`),
    ),
    filterServerTable: new Map(
      Object.entries(asObjectOrEmpty(o.filterServerTable, `${path}.filterServerTable`)).map(
        ([addr, list]) => [
          addr,
          asArrayOrEmpty(list, `${path}.filterServerTable`).map((s) =>
            asString(s, `${path}.filterServerTable`),
          ),
        ],
      ),
    ),
  };
  const orderTopicConf = asOptionalString(o.orderTopicConf, `${path}.orderTopicConf`);
  if (orderTopicConf !== undefined) route.orderTopicConf = orderTopicConf;
  if (o.topicQueueMappingByBroker !== undefined && o.topicQueueMappingByBroker !== null) {
    const p = `${path}.topicQueueMappingByBroker`;
    route.topicQueueMappingByBroker = new Map(
      Object.entries(asObject(o.topicQueueMappingByBroker, p)).map(([b, m]) => [
        b,
        readTopicQueueMappingInfo(m, `${p}.${b}`),
      ]),
    );
  }
  return route;
}

export function readQueueData(v: JsonValue, path: string): QueueData {
  const o = asObject(v, path);
  return {
    brokerName: asString(o.brokerName, `${path}.brokerName`),
    readQueueNums: asInt(o.readQueueNums, `${path}.readQueueNums`, 0),
    writeQueueNums: asInt(o.writeQueueNums, `${path}.writeQueueNums`, 0),
    perm: asInt(o.perm, `${path}.perm`, 0),
    // 4.x spelled it `topicSynFlag` in its setter; the JSON field is topicSysFlag.
    topicSysFlag: asInt(o.topicSysFlag, `${path}.topicSysFlag`, 0),
  };
}

export function readBrokerData(v: JsonValue, path: string): BrokerData {
  const o = asObject(v, path);
  const data: BrokerData = {
    cluster: asString(o.cluster, `${path}.cluster`),
    brokerName: asString(o.brokerName, `${path}.brokerName`),
    brokerAddrs: readIdMap(o.brokerAddrs, `${path}.brokerAddrs`, (a, p) => asString(a, p)),
    enableActingMaster: asBool(o.enableActingMaster, `${path}.enableActingMaster`, false),
  };
  const zoneName = asOptionalString(o.zoneName, `${path}.zoneName`);
  if (zoneName !== undefined) data.zoneName = zoneName;
  return data;
}

export function readTopicQueueMappingInfo(v: JsonValue, path: string): TopicQueueMappingInfo {
  const o = asObject(v, path);
  return {
    topic: asString(o.topic, `${path}.topic`),
    scope: asOptionalString(o.scope, `${path}.scope`) ?? "__global__",
    totalQueues: asInt(o.totalQueues, `${path}.totalQueues`, 0),
    bname: asString(o.bname, `${path}.bname`),
    epoch: asLong(o.epoch, `${path}.epoch`, 0),
    dirty: asBool(o.dirty, `${path}.dirty`, false),
    currIdMap: readIdMap(o.currIdMap, `${path}.currIdMap`, (n, p) => asInt(n, p)),
  };
}

/** A Java Map<Long|Integer, V> as read from `{0:v}` or `{"0":v}`. */
export function readIdMap<V>(
  v: JsonValue | undefined,
  path: string,
  value: (item: JsonValue, path: string) => V,
): Map<number, V> {
  const out = new Map<number, V>();
  for (const [key, item] of Object.entries(asObjectOrEmpty(v, path))) {
    const id = asLong(key, `${path} key`);
    if (typeof id === "bigint") throw new BodyShapeError(`${path}: id ${key} out of range`);
    out.set(id, value(item, `${path}.${key}`));
  }
  return out;
}

/** A deep copy, so a route handed out never aliases the live table. */
export function cloneBrokerData(b: BrokerData): BrokerData {
  return { ...b, brokerAddrs: new Map(b.brokerAddrs) };
}
