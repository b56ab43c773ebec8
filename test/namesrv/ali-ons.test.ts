import { expect, test } from "bun:test";
// ali-ons is CommonJS; its own API class is the reference Node client (version 121, fastjson bodies).
import MQClientAPI from "ali-ons/lib/mq_client_api.js";
import { registerRequest, startNameServer, topicConfig } from "./harness.ts";

const quiet = { info() {}, warn() {}, error() {}, debug() {} };

test("ali-ons fetches and parses the route of a topic a broker registered", async () => {
  await using h = await startNameServer();
  const broker = h.client();
  for (const [brokerName, brokerAddr, brokerId] of [
    ["broker-b", "10.0.0.3:10911", 0],
    ["broker-a", "10.0.0.1:10911", 0],
    ["broker-a", "10.0.0.2:10911", 1],
  ] as const) {
    const topics = [
      topicConfig("TopicTest", { readQueueNums: 4, writeQueueNums: 2 }),
      topicConfig(brokerName),
    ];
    await broker.invoke(h.addr, registerRequest({ brokerName, brokerAddr, brokerId, topics }));
  }
  const api = new MQClientAPI({ nameSrv: h.addr, httpclient: {}, logger: quiet });
  await api.ready();
  try {
    const route = await api.getDefaultTopicRouteInfoFromNameServer("TopicTest", 3000);
    expect(route).toEqual({
      brokerDatas: [
        {
          brokerAddrs: { "0": "10.0.0.1:10911", "1": "10.0.0.2:10911" },
          brokerName: "broker-a",
          cluster: "DefaultCluster",
          enableActingMaster: false,
        },
        {
          brokerAddrs: { "0": "10.0.0.3:10911" },
          brokerName: "broker-b",
          cluster: "DefaultCluster",
          enableActingMaster: false,
        },
      ],
      filterServerTable: {},
      queueDatas: [
        { brokerName: "broker-a", perm: 6, readQueueNums: 4, topicSysFlag: 0, writeQueueNums: 2 },
        { brokerName: "broker-b", perm: 6, readQueueNums: 4, topicSysFlag: 0, writeQueueNums: 2 },
      ],
    });
    const missing = await api
      .getDefaultTopicRouteInfoFromNameServer("NoSuchTopic", 3000)
      .catch((err: Error) => err);
    expect((missing as Error & { name: string }).name).toBe("MQClientException");
  } finally {
    await api.close();
  }
});
