import { describe, expect, test } from "bun:test";
import { RequestCode, ResponseCode } from "../../src/remoting/index.ts";
import { registerRequest, request, startNameServer, topicConfig } from "./harness.ts";

const MASTER = {
  brokerName: "broker-a",
  brokerAddr: "10.0.0.1:10911",
  topics: [topicConfig("T"), topicConfig("broker-a")],
};
const SLAVE = { ...MASTER, brokerAddr: "10.0.0.2:10911", brokerId: 1 };

/** Resolves once `check` holds, re-checking after every macrotask (no fixed sleeps). */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((r) => setImmediate(r));
}

describe("broker liveness (spec §7.4)", () => {
  test("a broker silent for longer than 120 s is removed with its queue data by the scan", async () => {
    let now = 1_000_000;
    await using h = await startNameServer({ scanNotActiveBrokerInterval: 5 }, { now: () => now });
    await h.client().invoke(h.addr, registerRequest(MASTER));
    now += 120_000;
    h.ns.routes.expireInactiveBrokers();
    expect(h.ns.routes.pickupTopicRouteData("T")).not.toBeNull();
    now += 1;
    await until(() => h.ns.routes.liveBrokers().length === 0);
    expect(h.ns.routes.pickupTopicRouteData("T")).toBeNull();
    expect(h.ns.routes.clusterInfo()).toEqual({ brokerAddrTable: new Map(), clusterAddrTable: new Map() });
  });

  test("a broker's own heartbeatTimeoutMillis replaces the 120 s default", async () => {
    let now = 1_000_000;
    await using h = await startNameServer({}, { now: () => now });
    const req = registerRequest(MASTER);
    req.extFields!.heartbeatTimeoutMillis = "10000";
    await h.client().invoke(h.addr, req);
    now += 10_001;
    expect(h.ns.routes.expireInactiveBrokers().map((b) => b.brokerAddr)).toEqual(["10.0.0.1:10911"]);
  });

  test("QUERY_DATA_VERSION and BROKER_HEARTBEAT keep a broker alive", async () => {
    let now = 1_000_000;
    await using h = await startNameServer({}, { now: () => now });
    const c = h.client();
    await c.invoke(h.addr, registerRequest(MASTER));
    const who = { brokerName: "broker-a", brokerAddr: "10.0.0.1:10911", clusterName: "DefaultCluster" };
    now += 100_000;
    await c.invoke(h.addr, request(RequestCode.BROKER_HEARTBEAT, who));
    now += 100_000;
    const body = new TextEncoder().encode('{"counter":1,"stateVersion":0,"timestamp":1700000000000}');
    await c.invoke(h.addr, request(RequestCode.QUERY_DATA_VERSION, { ...who, brokerId: "0" }, body));
    now += 100_000;
    expect(h.ns.routes.expireInactiveBrokers()).toEqual([]);
  });

  test("closing a broker's connection unregisters it at once; the slave keeps the topic readable", async () => {
    await using h = await startNameServer();
    const master = h.client();
    await master.invoke(h.addr, registerRequest(MASTER));
    await h.client().invoke(h.addr, registerRequest(SLAVE));
    await master.shutdown();
    await until(() => h.ns.routes.liveBrokers().length === 1);
    expect(h.ns.routes.pickupTopicRouteData("T")?.brokerDatas[0]?.brokerAddrs).toEqual(
      new Map([[1, "10.0.0.2:10911"]]),
    );
  });

  test("UNREGISTER_BROKER of the last address drops the broker, its cluster and its topics", async () => {
    await using h = await startNameServer();
    const c = h.client();
    await c.invoke(h.addr, registerRequest(MASTER));
    const reply = await c.invoke(
      h.addr,
      request(RequestCode.UNREGISTER_BROKER, {
        brokerName: "broker-a",
        brokerAddr: "10.0.0.1:10911",
        clusterName: "DefaultCluster",
        brokerId: "0",
      }),
    );
    expect(reply.code).toBe(ResponseCode.SUCCESS);
    expect(h.ns.routes.allTopics()).toEqual([]);
    expect(h.ns.routes.liveBrokers()).toEqual([]);
  });
});
