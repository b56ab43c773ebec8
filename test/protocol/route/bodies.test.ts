import { describe, expect, test } from "bun:test";
import { inflateSync } from "node:zlib";
import {
  dataVersionEquals,
  decodeClusterInfo,
  decodeRegisterBrokerBody,
  decodeTopicRouteData,
  encodeClusterInfo,
  encodeRegisterBrokerBody,
  encodeRegisterBrokerBodyCompressed,
  encodeTopicRouteData,
  nextDataVersion,
  permToString,
  type RegisterBrokerBody,
  type TopicRouteData,
  topicConfig,
  topicConfigFromLine,
} from "../../../src/protocol/route/index.ts";

const utf8 = (s: string) => new TextEncoder().encode(s);
const text = (b: Uint8Array) => new TextDecoder().decode(b);

// Spec remoting §7.7, verified against fastjson 1.2.83.
const ROUTE_FASTJSON =
  '{"brokerDatas":[{"brokerAddrs":{0:"192.168.0.10:10911",1:"192.168.0.11:10911"},"brokerName":"broker-a","cluster":"DefaultCluster","enableActingMaster":false,"zoneName":"zone1"}],' +
  '"filterServerTable":{"192.168.0.10:10911":["192.168.0.10:45678"]},"orderTopicConf":"broker-a:4;broker-b:4",' +
  '"queueDatas":[{"brokerName":"broker-a","perm":6,"readQueueNums":4,"topicSysFlag":0,"writeQueueNums":4}],' +
  '"topicQueueMappingByBroker":{"broker-a":{"bname":"broker-a","currIdMap":{0:0,1:1},"dirty":false,"epoch":1,"scope":"__global__","topic":"T","totalQueues":8}}}';

const ROUTE: TopicRouteData = {
  brokerDatas: [
    {
      brokerAddrs: new Map([
        [0, "192.168.0.10:10911"],
        [1, "192.168.0.11:10911"],
      ]),
      brokerName: "broker-a",
      cluster: "DefaultCluster",
      enableActingMaster: false,
      zoneName: "zone1",
    },
  ],
  filterServerTable: new Map([["192.168.0.10:10911", ["192.168.0.10:45678"]]]),
  orderTopicConf: "broker-a:4;broker-b:4",
  queueDatas: [{ brokerName: "broker-a", perm: 6, readQueueNums: 4, topicSysFlag: 0, writeQueueNums: 4 }],
  topicQueueMappingByBroker: new Map([
    [
      "broker-a",
      {
        bname: "broker-a",
        currIdMap: new Map([
          [0, 0],
          [1, 1],
        ]),
        dirty: false,
        epoch: 1,
        scope: "__global__",
        topic: "T",
        totalQueues: 8,
      },
    ],
  ]),
};

describe("TopicRouteData", () => {
  test("the spec's fastjson body decodes to the model and encodes back byte for byte", () => {
    expect(decodeTopicRouteData(utf8(ROUTE_FASTJSON))).toEqual(ROUTE);
    expect(text(encodeTopicRouteData(ROUTE, "fastjson"))).toBe(ROUTE_FASTJSON);
  });

  test("the standard-JSON form differs only in quoted numeric keys, and decodes to the same model", () => {
    const standard = ROUTE_FASTJSON.replace(/([{,])(\d+):/g, '$1"$2":');
    expect(text(encodeTopicRouteData(ROUTE, "standard"))).toBe(standard);
    expect(decodeTopicRouteData(utf8(standard))).toEqual(ROUTE);
  });

  test("the minimal 4.9.x body (no enableActingMaster) decodes with defaults", () => {
    const body =
      '{"brokerDatas":[{"brokerAddrs":{0:"192.168.0.10:10911"},"brokerName":"broker-a","cluster":"DefaultCluster"}],"filterServerTable":{},"queueDatas":[{"brokerName":"broker-a","perm":6,"readQueueNums":4,"topicSysFlag":0,"writeQueueNums":4}]}';
    expect(decodeTopicRouteData(utf8(body))).toEqual({
      brokerDatas: [
        {
          brokerAddrs: new Map([[0, "192.168.0.10:10911"]]),
          brokerName: "broker-a",
          cluster: "DefaultCluster",
          enableActingMaster: false,
        },
      ],
      filterServerTable: new Map(),
      queueDatas: [{ brokerName: "broker-a", perm: 6, readQueueNums: 4, topicSysFlag: 0, writeQueueNums: 4 }],
    });
  });
});

describe("ClusterInfo", () => {
  test("the spec's body decodes and encodes back byte for byte", () => {
    const body =
      '{"brokerAddrTable":{"broker-a":{"brokerAddrs":{0:"192.168.0.10:10911",1:"192.168.0.11:10911"},"brokerName":"broker-a","cluster":"DefaultCluster","enableActingMaster":false,"zoneName":"zone1"}},"clusterAddrTable":{"DefaultCluster":["broker-a"]}}';
    const info = decodeClusterInfo(utf8(body));
    expect(info.clusterAddrTable).toEqual(new Map([["DefaultCluster", new Set(["broker-a"])]]));
    expect(text(encodeClusterInfo(info))).toBe(body);
  });
});

describe("RegisterBrokerBody", () => {
  const body: RegisterBrokerBody = {
    filterServerList: [],
    topicConfigSerializeWrapper: {
      dataVersion: { counter: 5, stateVersion: 0, timestamp: 1700000000000 },
      topicConfigTable: new Map([
        ["TopicTest", topicConfig("TopicTest", { readQueueNums: 4, writeQueueNums: 4 })],
      ]),
      topicQueueMappingInfoMap: new Map(),
    },
  };

  test("a 5.x broker's uncompressed body decodes to the model", () => {
    const json =
      '{"filterServerList":[],"topicConfigSerializeWrapper":{"dataVersion":{"counter":5,"stateVersion":0,"timestamp":1700000000000},' +
      '"mappingDataVersion":{"counter":0,"stateVersion":0,"timestamp":1700000000001},' +
      '"topicConfigTable":{"TopicTest":{"attributes":{},"order":false,"perm":6,"readQueueNums":4,"topicFilterType":"SINGLE_TAG","topicName":"TopicTest","topicSysFlag":0,"writeQueueNums":4}},' +
      '"topicQueueMappingDetailMap":{},"topicQueueMappingInfoMap":{}}}';
    expect(decodeRegisterBrokerBody(utf8(json), false, 479)).toEqual(body);
    expect(decodeRegisterBrokerBody(encodeRegisterBrokerBody(body), false, 479)).toEqual(body);
  });

  test("the compressed form inflates to the spec's verified bytes and decodes back", () => {
    const compressed = encodeRegisterBrokerBodyCompressed(body, 479);
    expect([...compressed.subarray(0, 2)]).toEqual([0x78, 0xda]);
    const dv = '{"counter":5,"stateVersion":0,"timestamp":1700000000000}';
    const expected = Buffer.concat([
      Buffer.from("00000038", "hex"),
      Buffer.from(dv),
      Buffer.from("000000010000001d", "hex"),
      Buffer.from("TopicTest 4 4 6 SINGLE_TAG {}"),
      Buffer.from("00000002", "hex"),
      Buffer.from("[]"),
      Buffer.from("00000000", "hex"),
    ]);
    expect(Buffer.from(inflateSync(compressed)).toString("hex")).toBe(expected.toString("hex"));
    expect(decodeRegisterBrokerBody(compressed, true, 479)).toEqual(body);
  });

  test("a compressed body from a pre-5.0 broker has no mapping section", () => {
    const compressed = encodeRegisterBrokerBodyCompressed(body, 407);
    expect(inflateSync(compressed).subarray(-6).toString()).toBe("\u0000\u0000\u0000\u0002[]");
    expect(decodeRegisterBrokerBody(compressed, true, 407)).toEqual(body);
  });

  test("the topic line loses topicSysFlag and order, as Java's does", () => {
    expect(topicConfigFromLine("T 8 4 7 MULTI_TAG ")).toEqual(
      topicConfig("T", { readQueueNums: 8, writeQueueNums: 4, perm: 7, topicFilterType: "MULTI_TAG" }),
    );
  });
});

describe("DataVersion and PermName", () => {
  test("equality compares all three longs by value, bigint or not", () => {
    const a = { stateVersion: 0, timestamp: 1700000000000, counter: 5 };
    expect(dataVersionEquals(a, { ...a, counter: 5n })).toBe(true);
    expect(dataVersionEquals(a, { ...a, stateVersion: 1 })).toBe(false);
    expect(nextDataVersion(a, 2, 1700000000009)).toEqual({
      stateVersion: 2,
      timestamp: 1700000000009,
      counter: 6,
    });
  });

  test("perm strings are R/W/X or -", () => {
    expect([6, 4, 2, 7, 0].map(permToString)).toEqual(["RW-", "R--", "-W-", "RWX", "---"]);
  });
});
