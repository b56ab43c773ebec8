import { describe, expect, test } from "bun:test";
import { jsonBytes } from "../../src/protocol/json/index.ts";
import { bodyCrc } from "../../src/protocol/message/crc32.ts";
import {
  decodeClusterInfo,
  decodeDataVersion,
  decodeKVTable,
  decodeTopicRouteData,
  encodeRegisterBrokerBodyCompressed,
  encodeTopicConfigSerializeWrapper,
} from "../../src/protocol/route/index.ts";
import { RequestCode, ResponseCode, type SerializeType } from "../../src/remoting/index.ts";
import {
  type BrokerSpec,
  registerBody,
  registerRequest,
  request,
  SERIALIZE_TYPES,
  startNameServer,
  topicConfig,
} from "./harness.ts";

const topics = (...names: string[]) =>
  names.map((n) => topicConfig(n, { readQueueNums: 4, writeQueueNums: 4 }));
const MASTER_A: BrokerSpec = {
  brokerName: "broker-a",
  brokerAddr: "10.0.0.1:10911",
  topics: topics("T", "broker-a"),
};
const SLAVE_A: BrokerSpec = { ...MASTER_A, brokerAddr: "10.0.0.2:10911", brokerId: 1 };
const MASTER_B: BrokerSpec = {
  brokerName: "broker-b",
  brokerAddr: "10.0.0.3:10911",
  topics: topics("T", "U"),
};

describe.each(SERIALIZE_TYPES)("registration over %s headers", (_name, st: SerializeType) => {
  test("a master/slave group and a second group give routes and cluster info with every address", async () => {
    await using h = await startNameServer();
    const broker = h.client();
    for (const spec of [MASTER_A, SLAVE_A, MASTER_B]) {
      expect((await broker.invoke(h.addr, registerRequest(spec, st))).code).toBe(ResponseCode.SUCCESS);
    }
    const route = await h
      .client()
      .invoke(h.addr, request(RequestCode.GET_ROUTEINFO_BY_TOPIC, { topic: "T" }, null, st));
    expect(route.code).toBe(ResponseCode.SUCCESS);
    const data = decodeTopicRouteData(route.body!);
    expect({ ...data, queueDatas: data.queueDatas, brokerDatas: data.brokerDatas }).toEqual({
      brokerDatas: [
        {
          brokerAddrs: new Map([
            [0, "10.0.0.1:10911"],
            [1, "10.0.0.2:10911"],
          ]),
          brokerName: "broker-a",
          cluster: "DefaultCluster",
          enableActingMaster: false,
        },
        {
          brokerAddrs: new Map([[0, "10.0.0.3:10911"]]),
          brokerName: "broker-b",
          cluster: "DefaultCluster",
          enableActingMaster: false,
        },
      ],
      filterServerTable: new Map(),
      queueDatas: [
        { brokerName: "broker-a", perm: 6, readQueueNums: 4, topicSysFlag: 0, writeQueueNums: 4 },
        { brokerName: "broker-b", perm: 6, readQueueNums: 4, topicSysFlag: 0, writeQueueNums: 4 },
      ],
    });
    const info = await broker.invoke(h.addr, request(RequestCode.GET_BROKER_CLUSTER_INFO, null, null, st));
    expect(decodeClusterInfo(info.body!).clusterAddrTable).toEqual(
      new Map([["DefaultCluster", new Set(["broker-a", "broker-b"])]]),
    );
  });

  test("a slave's registration answers the live master's address and HA address", async () => {
    await using h = await startNameServer();
    const c = h.client();
    await c.invoke(h.addr, registerRequest({ ...MASTER_A, haServerAddr: "10.0.0.1:10912" }, st));
    const reply = await c.invoke(h.addr, registerRequest(SLAVE_A, st));
    expect({ code: reply.code, ext: reply.extFields }).toEqual({
      code: ResponseCode.SUCCESS,
      ext: { haServerAddr: "10.0.0.1:10912", masterAddr: "10.0.0.1:10911" },
    });
    const master = await c.invoke(h.addr, registerRequest(MASTER_A, st));
    // Java writes "extFields":{} in JSON; the ROCKETMQ form has no way to say "empty" but null.
    expect(master.extFields ?? {}).toEqual({});
  });
});

describe("registration rules", () => {
  test("a promoted slave (same address, id 0) replaces its old id entry", async () => {
    await using h = await startNameServer();
    const c = h.client();
    await c.invoke(h.addr, registerRequest(MASTER_A));
    await c.invoke(h.addr, registerRequest(SLAVE_A));
    await c.invoke(
      h.addr,
      request(RequestCode.UNREGISTER_BROKER, {
        brokerName: "broker-a",
        brokerAddr: "10.0.0.1:10911",
        clusterName: "DefaultCluster",
        brokerId: "0",
      }),
    );
    await c.invoke(h.addr, registerRequest({ ...SLAVE_A, brokerId: 0 }));
    expect(h.ns.routes.pickupTopicRouteData("T")?.brokerDatas[0]?.brokerAddrs).toEqual(
      new Map([[0, "10.0.0.2:10911"]]),
    );
  });

  test("a 4.x slave (no enableActingMaster header) never writes queue data", async () => {
    await using h = await startNameServer();
    const req = registerRequest({ ...SLAVE_A, topics: topics("S", "broker-a") });
    delete req.extFields!.enableActingMaster;
    await h.client().invoke(h.addr, req);
    expect(h.ns.routes.pickupTopicRouteData("S")).toBeNull();
  });

  test("a 5.x prime slave writes queue data, read-only when its group enables acting master", async () => {
    await using h = await startNameServer();
    const c = h.client();
    await c.invoke(h.addr, registerRequest({ ...SLAVE_A, topics: topics("S", "broker-a") }));
    expect(h.ns.routes.pickupTopicRouteData("S")?.queueDatas[0]?.perm).toBe(6);
    const acting = registerRequest({ ...SLAVE_A, brokerName: "broker-c", topics: topics("S", "broker-c") });
    acting.extFields!.enableActingMaster = "true";
    await c.invoke(h.addr, acting);
    expect(h.ns.routes.pickupTopicRouteData("S")?.queueDatas.map((q) => [q.brokerName, q.perm])).toEqual([
      ["broker-a", 6],
      ["broker-c", 4],
    ]);
  });

  test("a first registration with a single topic is refused as Java refuses it", async () => {
    await using h = await startNameServer();
    const reply = await h.client().invoke(h.addr, registerRequest({ ...MASTER_A, topics: topics("T") }));
    expect({ code: reply.code, remark: reply.remark }).toEqual({ code: 1, remark: "register broker failed" });
  });

  test("a body whose CRC does not match bodyCrc32 is refused; bodyCrc32 0 skips the check", async () => {
    await using h = await startNameServer();
    const c = h.client();
    const bad = registerRequest(MASTER_A);
    bad.extFields!.bodyCrc32 = String((bodyCrc(bad.body!) + 1) & 0x7fffffff);
    const reply = await c.invoke(h.addr, bad);
    expect({ code: reply.code, remark: reply.remark }).toEqual({ code: 1, remark: "crc32 not match" });
    const unchecked = registerRequest(MASTER_A);
    unchecked.extFields!.bodyCrc32 = "0";
    expect((await c.invoke(h.addr, unchecked)).code).toBe(ResponseCode.SUCCESS);
  });

  test("a compressed registration registers the same routes as a plain one", async () => {
    await using h = await startNameServer();
    const req = registerRequest(MASTER_B);
    req.body = encodeRegisterBrokerBodyCompressed(registerBody(MASTER_B), 479);
    req.extFields!.compressed = "true";
    req.extFields!.bodyCrc32 = String(bodyCrc(req.body));
    expect((await h.client().invoke(h.addr, req)).code).toBe(ResponseCode.SUCCESS);
    expect(h.ns.routes.pickupTopicRouteData("U")?.queueDatas).toEqual([
      { brokerName: "broker-b", perm: 6, readQueueNums: 4, topicSysFlag: 0, writeQueueNums: 4 },
    ]);
  });

  test("a broker older than V3_0_11 sends a bare TopicConfigSerializeWrapper", async () => {
    await using h = await startNameServer();
    const req = registerRequest(MASTER_B);
    req.body = encodeTopicConfigSerializeWrapper(registerBody(MASTER_B).topicConfigSerializeWrapper);
    req.extFields!.bodyCrc32 = "0";
    expect((await h.client(30).invoke(h.addr, req)).code).toBe(ResponseCode.SUCCESS);
    expect(h.ns.routes.allTopics().sort()).toEqual(["T", "U"]);
  });

  test("the reply carries the ORDER_TOPIC_CONFIG KV table when it exists", async () => {
    await using h = await startNameServer();
    const c = h.client();
    expect((await c.invoke(h.addr, registerRequest(MASTER_A))).body).toBeNull();
    await h.ns.kv.put("ORDER_TOPIC_CONFIG", "T", "broker-a:4");
    const reply = await c.invoke(h.addr, registerRequest(MASTER_A));
    expect(decodeKVTable(reply.body!)).toEqual(new Map([["T", "broker-a:4"]]));
  });

  test("filter servers registered with a broker appear in its topic routes", async () => {
    await using h = await startNameServer();
    await h.client().invoke(h.addr, registerRequest({ ...MASTER_A, filterServerList: ["10.0.0.1:45678"] }));
    expect(h.ns.routes.pickupTopicRouteData("T")?.filterServerTable).toEqual(
      new Map([["10.0.0.1:10911", ["10.0.0.1:45678"]]]),
    );
  });
});

describe("QUERY_DATA_VERSION", () => {
  const header = {
    brokerName: "broker-a",
    brokerAddr: "10.0.0.1:10911",
    clusterName: "DefaultCluster",
    brokerId: "0",
  };
  const registered = { stateVersion: 0, timestamp: 1700000000000, counter: 1 };

  test("an unchanged version answers changed=false with the stored version; a new one answers true", async () => {
    await using h = await startNameServer();
    const c = h.client();
    const unknown = await c.invoke(
      h.addr,
      request(RequestCode.QUERY_DATA_VERSION, header, jsonBytes(registered)),
    );
    expect({ ext: unknown.extFields, body: unknown.body }).toEqual({ ext: { changed: "true" }, body: null });
    await c.invoke(h.addr, registerRequest(MASTER_A));
    const same = await c.invoke(
      h.addr,
      request(RequestCode.QUERY_DATA_VERSION, header, jsonBytes(registered)),
    );
    expect({ ext: same.extFields, body: decodeDataVersion(same.body!) }).toEqual({
      ext: { changed: "false" },
      body: registered,
    });
    const next = { ...registered, counter: 2 };
    const changed = await c.invoke(h.addr, request(RequestCode.QUERY_DATA_VERSION, header, jsonBytes(next)));
    expect(changed.extFields).toEqual({ changed: "true" });
  });

  test("an unchanged re-registration keeps queue data the route table already has", async () => {
    await using h = await startNameServer();
    const c = h.client();
    await c.invoke(h.addr, registerRequest(MASTER_A));
    h.ns.routes.changeWritePerm("broker-a", "wipe");
    // Same DataVersion: the broker's topic config is not re-applied (the short-circuit).
    await c.invoke(h.addr, registerRequest(MASTER_A));
    expect(h.ns.routes.pickupTopicRouteData("T")?.queueDatas[0]?.perm).toBe(4);
    const dataVersion = { stateVersion: 0, timestamp: 1700000000000, counter: 2 };
    await c.invoke(h.addr, registerRequest({ ...MASTER_A, dataVersion }));
    expect(h.ns.routes.pickupTopicRouteData("T")?.queueDatas[0]?.perm).toBe(6);
  });
});
