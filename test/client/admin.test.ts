import { describe, expect, test } from "bun:test";
import { createAdmin, createProducer, MQClientError } from "../../src/client/index.ts";
import { RequestCode, ResponseCode } from "../../src/remoting/index.ts";
import { silent } from "../support/silent.ts";
import { startCluster } from "./harness.ts";

describe("admin", () => {
  test("a created topic appears in the route with its queue counts, and stats count its messages", async () => {
    await using cluster = await startCluster([{}, {}]);
    const admin = await createAdmin({ namesrvAddr: cluster.namesrvAddr, log: silent });
    const producer = await createProducer({ namesrvAddr: cluster.namesrvAddr, log: silent });
    try {
      const addrs = await admin.createTopic("AT", { readQueueNums: 2, writeQueueNums: 2 });
      const route = await admin.topicRoute("AT");
      expect({
        addrs: addrs.sort(),
        queues: route.queueDatas.map((q) => [q.brokerName, q.readQueueNums, q.writeQueueNums, q.perm]).sort(),
      }).toEqual({
        addrs: cluster.brokers.map((b) => b.addr).sort(),
        queues: [
          ["broker-a", 2, 2, 6],
          ["broker-b", 2, 2, 6],
        ],
      });
      for (let i = 0; i < 4; i++)
        await producer.send(
          { topic: "AT", body: `m${i}` },
          { queue: { topic: "AT", brokerName: "broker-a", queueId: 1 } },
        );
      const stats = await admin.topicStats("AT");
      expect(stats.map((s) => [s.mq.brokerName, s.mq.queueId, s.minOffset, s.maxOffset])).toEqual([
        ["broker-a", 0, 0, 0],
        ["broker-a", 1, 0, 4],
        ["broker-b", 0, 0, 0],
        ["broker-b", 1, 0, 0],
      ]);
      const cluster106 = await admin.clusterList();
      expect([...(cluster106.clusterAddrTable.get("DefaultCluster") ?? [])].sort()).toEqual([
        "broker-a",
        "broker-b",
      ]);
    } finally {
      await producer.shutdown();
      await admin.shutdown();
    }
  });

  test("messages are found by UNIQ_KEY, by offset id, by key and by queue offset", async () => {
    await using cluster = await startCluster([{ topics: ["Q"] }]);
    const admin = await createAdmin({ namesrvAddr: cluster.namesrvAddr, log: silent });
    const producer = await createProducer({ namesrvAddr: cluster.namesrvAddr, log: silent });
    try {
      const r = await producer.send({ topic: "Q", body: "find me", keys: "order-7" });
      await producer.send({ topic: "Q", body: "other", keys: "order-8" });
      const byId = await admin.queryMessageById("Q", r.msgId);
      const byOffsetId = await admin.queryMessageById("Q", r.offsetMsgId);
      const byKey = await admin.queryMessageByKey("Q", "order-7");
      const byOffset = await admin.queryMessageByOffset(r.messageQueue, r.queueOffset);
      const text = (m: { body: Uint8Array } | null | undefined) =>
        m ? new TextDecoder().decode(m.body) : null;
      expect([text(byId), text(byOffsetId), byKey.map(text), text(byOffset), byOffset?.msgId]).toEqual([
        "find me",
        "find me",
        ["find me"],
        "find me",
        r.msgId,
      ]);
    } finally {
      await producer.shutdown();
      await admin.shutdown();
    }
  });

  test("consumer progress reports broker offset, consumer offset and lag; reset by time moves the offsets", async () => {
    await using cluster = await startCluster([{ topics: ["P"], headInMemory: false }]);
    const admin = await createAdmin({ namesrvAddr: cluster.namesrvAddr, log: silent });
    const producer = await createProducer({ namesrvAddr: cluster.namesrvAddr, log: silent });
    try {
      const q0 = { topic: "P", brokerName: "broker-a", queueId: 0 };
      for (let i = 0; i < 3; i++) await producer.send({ topic: "P", body: `m${i}` }, { queue: q0 });
      cluster.broker.offsets.set("P@PG@0", 1);
      const before = await admin.consumerProgress("PG", ["P"]);
      const reset = await admin.resetOffsetByTime("PG", "P", 0);
      const after = await admin.consumerProgress("PG", ["P"]);
      expect({
        before: before.map((p) => [p.mq.queueId, p.brokerOffset, p.consumerOffset, p.lag]),
        reset: [...reset].sort(),
        after: after.map((p) => [p.mq.queueId, p.consumerOffset, p.lag]),
      }).toEqual({
        before: [
          [0, 3, 1, 2],
          [1, 0, -1, 0],
          [2, 0, -1, 0],
          [3, 0, -1, 0],
        ],
        reset: [
          ["broker-a/0", 0],
          ["broker-a/1", 0],
          ["broker-a/2", 0],
          ["broker-a/3", 0],
        ],
        after: [
          [0, 0, 3],
          [1, 0, 0],
          [2, 0, 0],
          [3, 0, 0],
        ],
      });
    } finally {
      await producer.shutdown();
      await admin.shutdown();
    }
  });

  test("errors are typed: an unsupported request names its code, a timeout names the broker and request", async () => {
    await using cluster = await startCluster([{ topics: ["X"] }]);
    const admin = await createAdmin({
      namesrvAddr: cluster.namesrvAddr,
      log: silent,
      mqClientApiTimeoutMs: 100,
    });
    try {
      const unsupported = (await admin
        .brokerRuntimeInfo(cluster.broker.addr)
        .catch((e) => e)) as MQClientError;
      cluster.broker.hung.add(RequestCode.GET_MAX_OFFSET);
      const timeout = (await admin.topicStats("X").catch((e) => e)) as MQClientError;
      expect(
        [unsupported, timeout].map((e) => ({
          type: e instanceof MQClientError,
          code: e.code,
          addr: e.addr,
          req: e.requestCode,
        })),
      ).toEqual([
        {
          type: true,
          code: ResponseCode.REQUEST_CODE_NOT_SUPPORTED,
          addr: cluster.broker.addr,
          req: RequestCode.GET_BROKER_RUNTIME_INFO,
        },
        {
          type: true,
          code: ResponseCode.RPC_TIME_OUT,
          addr: cluster.broker.addr,
          req: RequestCode.GET_MAX_OFFSET,
        },
      ]);
      expect(timeout.message).toContain(`GET_MAX_OFFSET`);
      expect(timeout.message).toContain(cluster.broker.addr);
    } finally {
      await admin.shutdown();
    }
  });
});
