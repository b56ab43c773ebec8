import { describe, expect, test } from "bun:test";
import { jsonBytes } from "../../src/protocol/json/index.ts";
import { decodeBrokerMemberGroup, decodeTopicList } from "../../src/protocol/route/index.ts";
import { RequestCode, ResponseCode, type SerializeType } from "../../src/remoting/index.ts";
import {
  type BrokerSpec,
  registerRequest,
  request,
  SERIALIZE_TYPES,
  startNameServer,
  topicConfig,
} from "./harness.ts";

const A: BrokerSpec = {
  brokerName: "broker-a",
  brokerAddr: "10.0.0.1:10911",
  topics: [
    topicConfig("T"),
    topicConfig("UNIT", { topicSysFlag: 1 }),
    topicConfig("SUB", { topicSysFlag: 2 }),
  ],
};
const B: BrokerSpec = {
  clusterName: "C2",
  brokerName: "broker-b",
  brokerAddr: "10.0.0.3:10911",
  topics: [topicConfig("T"), topicConfig("B1")],
};
const text = (b: Uint8Array | null) => (b ? new TextDecoder().decode(b) : null);

describe.each(SERIALIZE_TYPES)("route and admin requests over %s headers", (_name, st: SerializeType) => {
  async function setup() {
    const h = await startNameServer({ orderMessageEnable: true });
    const c = h.client();
    await c.invoke(h.addr, registerRequest(A, st));
    await c.invoke(h.addr, registerRequest(B, st));
    const call = (code: number, ext: Record<string, string> | null = null, body: Uint8Array | null = null) =>
      c.invoke(h.addr, request(code, ext, body, st));
    return { h, call };
  }

  test("route bodies are standard JSON from V4_9_4 on or when asked, fastjson's form otherwise", async () => {
    const { h, call } = await setup();
    await using _ = h;
    const old = await h
      .client(121)
      .invoke(h.addr, request(RequestCode.GET_ROUTEINFO_BY_TOPIC, { topic: "B1" }, null, st));
    expect(text(old.body)).toContain('"brokerAddrs":{0:"10.0.0.3:10911"}');
    const asked = await h
      .client(121)
      .invoke(
        h.addr,
        request(
          RequestCode.GET_ROUTEINFO_BY_TOPIC,
          { topic: "B1", acceptStandardJsonOnly: "true" },
          null,
          st,
        ),
      );
    expect(text(asked.body)).toContain('"brokerAddrs":{"0":"10.0.0.3:10911"}');
    const modern = await call(RequestCode.GET_ROUTEINFO_BY_TOPIC, { topic: "B1" });
    expect(text(modern.body)).toBe(text(asked.body));
  });

  test("orderTopicConf comes from the ORDER_TOPIC_CONFIG namespace when orderMessageEnable", async () => {
    const { h, call } = await setup();
    await using _ = h;
    await call(RequestCode.PUT_KV_CONFIG, {
      namespace: "ORDER_TOPIC_CONFIG",
      key: "T",
      value: "broker-a:4;broker-b:4",
    });
    const route = await call(RequestCode.GET_ROUTEINFO_BY_TOPIC, { topic: "T" });
    expect(text(route.body)).toContain('"orderTopicConf":"broker-a:4;broker-b:4"');
  });

  test("an unknown topic answers TOPIC_NOT_EXIST with Java's remark and no body", async () => {
    const { h, call } = await setup();
    await using _ = h;
    const reply = await call(RequestCode.GET_ROUTEINFO_BY_TOPIC, { topic: "nope" });
    expect({ code: reply.code, remark: reply.remark, body: reply.body }).toEqual({
      code: ResponseCode.TOPIC_NOT_EXIST,
      remark:
        "No topic route info in name server for the topic: nope\nSee https://rocketmq.apache.org/docs/bestPractice/06FAQ for further details.",
      body: null,
    });
  });

  test("topic lists: all, by cluster, system, and the three unit lists", async () => {
    const { h, call } = await setup();
    await using _ = h;
    const list = async (code: number, ext: Record<string, string> | null = null) => {
      const l = decodeTopicList((await call(code, ext)).body!);
      return { ...l, topicList: l.topicList.sort() };
    };
    expect(await list(RequestCode.GET_ALL_TOPIC_LIST_FROM_NAMESERVER)).toEqual({
      topicList: ["B1", "SUB", "T", "UNIT"],
    });
    expect(await list(RequestCode.GET_TOPICS_BY_CLUSTER, { cluster: "C2" })).toEqual({
      topicList: ["B1", "T"],
    });
    expect(await list(RequestCode.GET_TOPICS_BY_CLUSTER, { cluster: "none" })).toEqual({ topicList: [] });
    expect(await list(RequestCode.GET_SYSTEM_TOPIC_LIST_FROM_NS)).toEqual({
      brokerAddr: "10.0.0.1:10911",
      topicList: ["C2", "DefaultCluster", "broker-a", "broker-b"],
    });
    expect(await list(RequestCode.GET_UNIT_TOPIC_LIST)).toEqual({ topicList: ["UNIT"] });
    expect(await list(RequestCode.GET_HAS_UNIT_SUB_TOPIC_LIST)).toEqual({ topicList: ["SUB"] });
    expect(await list(RequestCode.GET_HAS_UNIT_SUB_UNUNIT_TOPIC_LIST)).toEqual({ topicList: ["SUB"] });
  });

  test("wipe and add write permission report the topics touched", async () => {
    const { h, call } = await setup();
    await using _ = h;
    const wipe = await call(RequestCode.WIPE_WRITE_PERM_OF_BROKER, { brokerName: "broker-a" });
    expect(wipe.extFields).toEqual({ wipeTopicCount: "3" });
    expect(h.ns.routes.pickupTopicRouteData("UNIT")?.queueDatas[0]?.perm).toBe(4);
    const add = await call(RequestCode.ADD_WRITE_PERM_OF_BROKER, { brokerName: "broker-a" });
    expect(add.extFields).toEqual({ addTopicCount: "3" });
    expect(h.ns.routes.pickupTopicRouteData("UNIT")?.queueDatas[0]?.perm).toBe(6);
  });

  test("DELETE_TOPIC_IN_NAMESRV removes a topic from one cluster or everywhere", async () => {
    const { h, call } = await setup();
    await using _ = h;
    await call(RequestCode.DELETE_TOPIC_IN_NAMESRV, { topic: "T", clusterName: "C2" });
    expect(h.ns.routes.pickupTopicRouteData("T")?.queueDatas.map((q) => q.brokerName)).toEqual(["broker-a"]);
    await call(RequestCode.DELETE_TOPIC_IN_NAMESRV, { topic: "T" });
    expect(h.ns.routes.pickupTopicRouteData("T")).toBeNull();
  });

  test("REGISTER_TOPIC_IN_NAMESRV adds queue data for known brokers only", async () => {
    const { h, call } = await setup();
    await using _ = h;
    const qd = (brokerName: string) => ({
      brokerName,
      perm: 6,
      readQueueNums: 2,
      topicSysFlag: 0,
      writeQueueNums: 2,
    });
    await call(
      RequestCode.REGISTER_TOPIC_IN_NAMESRV,
      { topic: "N" },
      jsonBytes({ queueDatas: [qd("broker-b")] }),
    );
    expect(h.ns.routes.pickupTopicRouteData("N")?.queueDatas).toEqual([qd("broker-b")]);
    await call(
      RequestCode.REGISTER_TOPIC_IN_NAMESRV,
      { topic: "M" },
      jsonBytes({ queueDatas: [qd("broker-x")] }),
    );
    expect(h.ns.routes.pickupTopicRouteData("M")).toBeNull();
  });

  test("GET_BROKER_MEMBER_GROUP lists a group's addresses by id", async () => {
    const { h, call } = await setup();
    await using _ = h;
    const reply = await call(RequestCode.GET_BROKER_MEMBER_GROUP, {
      clusterName: "DefaultCluster",
      brokerName: "broker-a",
    });
    expect(text(reply.body)).toBe(
      '{"brokerMemberGroup":{"brokerAddrs":{0:"10.0.0.1:10911"},"brokerName":"broker-a","cluster":"DefaultCluster"}}',
    );
    expect(decodeBrokerMemberGroup(reply.body!).brokerAddrs).toEqual(new Map([[0, "10.0.0.1:10911"]]));
  });
});

test("needWaitForService refuses route queries until the wait is over", async () => {
  await using h = await startNameServer({ needWaitForService: true, waitSecondsForService: 3600 });
  const reply = await h.client().invoke(h.addr, request(RequestCode.GET_ROUTEINFO_BY_TOPIC, { topic: "T" }));
  expect({ code: reply.code, remark: reply.remark }).toEqual({ code: 1, remark: "name server not ready" });
});

test("supportActingMaster shows a masterless read-only group's smallest slave under id 0", async () => {
  await using h = await startNameServer({ supportActingMaster: true });
  const slave = registerRequest({
    brokerName: "g",
    brokerAddr: "10.0.0.9:10911",
    brokerId: 2,
    topics: [topicConfig("T"), topicConfig("g")],
  });
  slave.extFields!.enableActingMaster = "true";
  await h.client().invoke(h.addr, slave);
  const route = h.ns.routes.pickupTopicRouteData("T");
  expect({ addrs: route?.brokerDatas[0]?.brokerAddrs, perm: route?.queueDatas[0]?.perm }).toEqual({
    addrs: new Map([[0, "10.0.0.9:10911"]]),
    perm: 4,
  });
});
