import { describe, expect, test } from "bun:test";
import {
  createLitePullConsumer,
  createProducer,
  createPushConsumer,
  MQClientError,
  type SendResult,
} from "../../src/client/index.ts";
import { decodeMessages } from "../../src/client/message.ts";
import { MessageSysFlag } from "../../src/protocol/message/index.ts";
import { RequestCode, ResponseCode } from "../../src/remoting/index.ts";
import { silent } from "../support/silent.ts";
import { refusal, startCluster, waitFor } from "./harness.ts";

const enc = new TextEncoder();

describe("producer", () => {
  test("a sent message is stored with the properties the Java client sets and the ids it reports", async () => {
    await using cluster = await startCluster([{ topics: ["T"] }]);
    const producer = await createProducer({ namesrvAddr: cluster.namesrvAddr, group: "PG", log: silent });
    try {
      const r = await producer.send({
        topic: "T",
        body: "hello",
        tags: "TagA",
        keys: ["k1", "k2"],
        properties: { color: "red" },
      });
      const [stored] = cluster.broker.messages("T");
      expect(stored).toBeDefined();
      expect(Object.fromEntries(stored!.properties)).toEqual({
        color: "red",
        KEYS: "k1 k2",
        TAGS: "TagA",
        WAIT: "true",
        UNIQ_KEY: r.msgId,
        CLUSTER: "DefaultCluster",
      });
      expect(r).toEqual({
        sendStatus: "SEND_OK",
        msgId: expect.stringMatching(/^[0-9A-F]{32}$/),
        offsetMsgId: stored!.msgId,
        messageQueue: { topic: "T", brokerName: "broker-a", queueId: stored!.queueId },
        queueOffset: 0,
        transactionId: r.msgId,
        regionId: "DefaultRegion",
        traceOn: true,
      } satisfies SendResult);
      expect(new TextDecoder().decode(stored!.body)).toBe("hello");
    } finally {
      await producer.shutdown();
    }
  });

  test("a delay level travels as DELAY and reserved property names are refused", async () => {
    await using cluster = await startCluster([{ topics: ["T"] }]);
    const producer = await createProducer({ namesrvAddr: cluster.namesrvAddr, log: silent });
    try {
      await producer.send({ topic: "T", body: "x", delayLevel: 3, waitStoreMsgOK: false });
      const props = Object.fromEntries(cluster.broker.messages("T")[0]!.properties);
      expect({ DELAY: props.DELAY, WAIT: props.WAIT }).toEqual({ DELAY: "3", WAIT: "false" });
      const err = await producer
        .send({ topic: "T", body: "x", properties: { UNIQ_KEY: "mine" } })
        .catch((e) => e);
      expect(err).toBeInstanceOf(MQClientError);
      expect((err as MQClientError).code).toBe(ResponseCode.INVALID_PARAMETER);
    } finally {
      await producer.shutdown();
    }
  });

  test("topic and group names follow Java's Validators before anything is sent", async () => {
    await using cluster = await startCluster([{ topics: ["T"] }]);
    const producer = await createProducer({ namesrvAddr: cluster.namesrvAddr, log: silent });
    const bad = ResponseCode.INVALID_PARAMETER;
    try {
      expect(
        await Promise.all(
          ["a/b", "x".repeat(128), "SCHEDULE_TOPIC_XXXX", "RMQ_SYS_TRANS_HALF_TOPIC"].map((topic) =>
            refusal(producer.send({ topic, body: "x" })),
          ),
        ),
      ).toEqual([
        [bad, "The specified topic[a/b] contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$"],
        [bad, "The specified topic is longer than topic max length 127."],
        [bad, "Sending message to topic[SCHEDULE_TOPIC_XXXX] is forbidden."],
        [bad, "Sending message to topic[RMQ_SYS_TRANS_HALF_TOPIC] is forbidden."],
      ]);
      expect(cluster.broker.messages("T")).toEqual([]);
      expect((await producer.send({ topic: "T", body: "x" })).sendStatus).toBe("SEND_OK");
    } finally {
      await producer.shutdown();
    }
    const namesrvAddr = cluster.namesrvAddr;
    expect(
      await Promise.all([
        refusal(createProducer({ namesrvAddr, group: "../p", log: silent })),
        refusal(
          createPushConsumer({
            namesrvAddr,
            group: "g".repeat(121),
            subscriptions: { T: "*" },
            onMessage: () => {},
            log: silent,
          }),
        ),
        refusal(createLitePullConsumer({ namesrvAddr, group: " ", log: silent })),
      ]),
    ).toEqual([
      [bad, "the specified group[../p] contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$"],
      [bad, "the specified group is longer than group max length 120."],
      [bad, "the specified group is blank"],
    ]);
  });

  test("bodies at or above the threshold are zlib-compressed and flagged when that shrinks them, and consumers inflate them", async () => {
    await using cluster = await startCluster([{ topics: ["T"] }]);
    const producer = await createProducer({ namesrvAddr: cluster.namesrvAddr, log: silent });
    try {
      const big = "x".repeat(5000);
      // Incompressible: zlib would make it longer, so it goes as it is.
      const noise = crypto.getRandomValues(new Uint8Array(5000));
      await producer.send({ topic: "T", body: big });
      await producer.send({ topic: "T", body: "small" });
      await producer.send({ topic: "T", body: noise });
      const stored = cluster.broker.messages("T").sort((a, b) => a.physicalOffset - b.physicalOffset);
      expect(
        stored.map(
          (m) => m.sysFlag & (MessageSysFlag.COMPRESSED_FLAG | MessageSysFlag.COMPRESSION_TYPE_MASK),
        ),
      ).toEqual([0x301, 0, 0]);
      expect(stored[0]!.body.length).toBeLessThan(200);
      expect(stored[2]!.body).toEqual(noise);
      const list = cluster.broker.queues;
      const bytes = [...list.values()].flat().map((s) => s.bytes);
      const decoded = bytes
        .flatMap((b) => decodeMessages(b, "broker-a"))
        .map((m) => new TextDecoder().decode(m.body));
      expect(decoded.filter((d) => d === big || d === "small").sort()).toEqual([big, "small"].sort());
    } finally {
      await producer.shutdown();
    }
  });

  test("a batch is one request whose items keep their own UNIQ_KEY, reported comma-joined", async () => {
    await using cluster = await startCluster([{ topics: ["T"] }]);
    const producer = await createProducer({ namesrvAddr: cluster.namesrvAddr, log: silent });
    try {
      const r = await producer.sendBatch([
        { topic: "T", body: "a", tags: "A" },
        { topic: "T", body: "b", keys: "kb" },
        { topic: "T", body: "c" },
      ]);
      const stored = cluster.broker.messages("T").sort((a, b) => a.queueOffset - b.queueOffset);
      expect(cluster.broker.received.filter((c) => c === RequestCode.SEND_BATCH_MESSAGE)).toHaveLength(1);
      expect(r.msgId).toBe(stored.map((m) => m.properties.get("UNIQ_KEY")).join(","));
      expect(r.offsetMsgId).toBe(stored.map((m) => m.msgId).join(","));
      expect(
        stored.map((m) => [
          new TextDecoder().decode(m.body),
          m.queueOffset,
          m.properties.get("TAGS"),
          m.properties.get("KEYS"),
        ]),
      ).toEqual([
        ["a", 0, "A", undefined],
        ["b", 1, undefined, "kb"],
        ["c", 2, undefined, undefined],
      ]);
      expect(new Set(stored.map((m) => m.properties.get("UNIQ_KEY"))).size).toBe(3);
    } finally {
      await producer.shutdown();
    }
  });

  test("a retriable failure is retried on another broker, which is then preferred for a while", async () => {
    await using cluster = await startCluster([{ topics: ["T"] }, { topics: ["T"] }]);
    const producer = await createProducer({ namesrvAddr: cluster.namesrvAddr, log: silent });
    try {
      const [a] = cluster.brokers;
      a!.fail(RequestCode.SEND_MESSAGE_V2, ResponseCode.SYSTEM_BUSY, 1000);
      const first = await producer.send({ topic: "T", body: "1" });
      expect(first.messageQueue.brokerName).toBe("broker-b");
      const next = [];
      for (const i of [2, 3, 4, 5]) next.push(await producer.send({ topic: "T", body: String(i) }));
      // broker-a is tried at most once: after failing it is avoided.
      expect(a!.received.filter((c) => c === RequestCode.SEND_MESSAGE_V2).length).toBeLessThanOrEqual(1);
      expect(new Set(next.map((r) => r.messageQueue.brokerName))).toEqual(new Set(["broker-b"]));
    } finally {
      await producer.shutdown();
    }
  });

  test("a non-retriable answer fails at once with the code, remark, broker and request code", async () => {
    await using cluster = await startCluster([{ topics: ["T"] }]);
    const producer = await createProducer({ namesrvAddr: cluster.namesrvAddr, log: silent });
    try {
      cluster.broker.fail(RequestCode.SEND_MESSAGE_V2, ResponseCode.MESSAGE_ILLEGAL, 1);
      const err = (await producer.send({ topic: "T", body: "x" }).catch((e) => e)) as MQClientError;
      expect({
        name: err.name,
        code: err.code,
        remark: err.remark,
        addr: err.addr,
        requestCode: err.requestCode,
      }).toEqual({
        name: "MQClientError",
        code: ResponseCode.MESSAGE_ILLEGAL,
        remark: "injected fault",
        addr: cluster.broker.addr,
        requestCode: RequestCode.SEND_MESSAGE_V2,
      });
      expect(cluster.broker.received.filter((c) => c === RequestCode.SEND_MESSAGE_V2)).toHaveLength(1);
    } finally {
      await producer.shutdown();
    }
  });

  test("one sharding key always lands in one queue; a selector picks the queue it returns", async () => {
    await using cluster = await startCluster([{ topics: ["T"] }]);
    const producer = await createProducer({ namesrvAddr: cluster.namesrvAddr, log: silent });
    try {
      const byKey = await Promise.all(
        [1, 2, 3].map(() => producer.send({ topic: "T", body: "o" }, { shardingKey: "order-42" })),
      );
      expect(new Set(byKey.map((r) => r.messageQueue.queueId)).size).toBe(1);
      const selected = await producer.send(
        { topic: "T", body: "s" },
        { selector: (qs) => qs[qs.length - 1]! },
      );
      expect(selected.messageQueue).toEqual({ topic: "T", brokerName: "broker-a", queueId: 3 });
    } finally {
      await producer.shutdown();
    }
  });

  test("oneway and callback sends arrive; the callback gets the result exactly once", async () => {
    await using cluster = await startCluster([{ topics: ["T"] }]);
    const producer = await createProducer({ namesrvAddr: cluster.namesrvAddr, log: silent });
    try {
      await producer.sendOneway({ topic: "T", body: "oneway" });
      const results: unknown[] = [];
      await new Promise<void>((resolve) =>
        producer.sendAsync({ topic: "T", body: "async" }, (err, r) => {
          results.push(err ?? r?.sendStatus);
          resolve();
        }),
      );
      await waitFor("both stored", () => cluster.broker.messages("T").length === 2);
      expect(results).toEqual(["SEND_OK"]);
    } finally {
      await producer.shutdown();
    }
  });

  test("a topic the NameServer does not know is sent through the TBW102 route", async () => {
    await using cluster = await startCluster([{ topics: ["TBW102"] }]);
    const producer = await createProducer({ namesrvAddr: cluster.namesrvAddr, log: silent });
    try {
      const lookups: string[] = [];
      const refresh = producer.client.refreshRoute.bind(producer.client);
      producer.client.refreshRoute = (topic) => {
        lookups.push(topic);
        return refresh(topic);
      };
      const r = await producer.send({ topic: "Fresh", body: enc.encode("new") });
      expect(r.sendStatus).toBe("SEND_OK");
      expect(cluster.broker.topics.get("Fresh")?.writeQueueNums).toBe(4);
      // Later sends reuse the TBW102-derived queues until the topic's own route exists: no
      // NameServer lookup per send.
      for (let i = 0; i < 5; i++) await producer.send({ topic: "Fresh", body: enc.encode(`more ${i}`) });
      expect(lookups).toEqual(["Fresh", "TBW102"]);
    } finally {
      await producer.shutdown();
    }
  });
});

describe("client instance", () => {
  test("one instance serves a producer and a consumer; shutdown neither waits out long polls nor leaves a connection open", async () => {
    await using cluster = await startCluster([{ topics: ["S"] }]);
    const { ClientInstance, createPushConsumer } = await import("../../src/client/index.ts");
    const client = new ClientInstance({ namesrvAddr: cluster.namesrvAddr, log: silent });
    const producer = await createProducer({ client, group: "SPG" });
    const got: string[] = [];
    const consumer = await createPushConsumer({
      client,
      group: "SCG",
      subscriptions: { S: "*" },
      consumeFromWhere: "CONSUME_FROM_FIRST_OFFSET",
      // Default 15 s long polls: shutdown must not wait them out on the shared connection.
      onMessage: (msgs) => {
        got.push(...msgs.map((m) => new TextDecoder().decode(m.body)));
      },
    });
    await producer.send({ topic: "S", body: "shared" });
    await waitFor("consumed", () => got.length === 1);
    const hb = client.heartbeatData();
    expect({ producers: hb.producerDataSet, consumers: hb.consumerDataSet.map((c) => c.groupName) }).toEqual({
      producers: [{ groupName: "SPG" }],
      consumers: ["SCG"],
    });
    await consumer.shutdown();
    await producer.shutdown();
    await client.shutdown();
    await waitFor("broker sees no client connection", () => cluster.broker.server.connections.size === 0);
    expect(cluster.broker.consumers.get("SCG")?.size ?? 0).toBe(0);
  });
});

describe("transport", () => {
  test("with an in-process connector the client reaches NameServer and broker without a socket", async () => {
    await using cluster = await startCluster([{ topics: ["IP"] }]);
    const { LocalServers, inProcessConnector } = await import("../../src/remoting/index.ts");
    const locals = new LocalServers();
    locals.register(cluster.namesrvAddr, cluster.namesrv.server);
    locals.register(cluster.broker.addr, cluster.broker.server);
    const connector = inProcessConnector(locals, null, { roundTrip: true });
    const producer = await createProducer({ namesrvAddr: cluster.namesrvAddr, connector, log: silent });
    try {
      const tcpBefore = cluster.broker.server.connections.size;
      const r = await producer.send({ topic: "IP", body: "embedded", tags: "E" });
      const [stored] = cluster.broker.messages("IP");
      const transports = [...cluster.broker.server.connections].map((c) => c.transport);
      expect({ status: r.sendStatus, tags: stored?.properties.get("TAGS"), tcpBefore, transports }).toEqual({
        status: "SEND_OK",
        tags: "E",
        tcpBefore: 0,
        transports: ["in-process"],
      });
    } finally {
      await producer.shutdown();
    }
  });
});
