import { describe, expect, test } from "bun:test";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import {
  createProducer,
  createPushConsumer,
  type MessageExt,
  type Producer,
  type PushConsumer,
  userProperties,
} from "../../src/client/index.ts";
import { PullSysFlag } from "../../src/protocol/headers/pull.ts";
import { silent } from "../support/silent.ts";
import { startCluster, waitFor } from "./harness.ts";

const text = (m: MessageExt) => new TextDecoder().decode(m.body);
/** Fast timings so tests never wait on production periods. */
const quick = {
  log: silent,
  brokerSuspendMaxMs: 1000,
  pullErrorDelayMs: 20,
  persistConsumerOffsetIntervalMs: 50,
};

/** A push consumer of every message of `topic` from the first offset, collecting bodies as text. */
async function collectingConsumer(
  namesrvAddr: string,
  group: string,
  topic: string,
): Promise<{ consumer: PushConsumer; got: string[] }> {
  const got: string[] = [];
  const consumer = await createPushConsumer({
    namesrvAddr,
    group,
    subscriptions: { [topic]: "*" },
    consumeFromWhere: "CONSUME_FROM_FIRST_OFFSET",
    onMessage: (msgs) => {
      got.push(...msgs.map(text));
    },
    ...quick,
  });
  return { consumer, got };
}

async function sendAll(
  producer: Producer,
  topic: string,
  n: number,
  tag: (i: number) => string = (i) => (i % 2 ? "TagA" : "TagC"),
) {
  const results = [];
  for (let i = 0; i < n; i++) {
    results.push(
      await producer.send({
        topic,
        body: `m${i}`,
        tags: tag(i),
        keys: `k${i}`,
        properties: { n: String(i) },
      }),
    );
  }
  return results;
}

describe("push consumer", () => {
  test("a clustering consumer gets exactly the tagged messages with the ids, keys and properties sent", async () => {
    await using cluster = await startCluster([{ topics: ["T"] }]);
    const producer = await createProducer({ namesrvAddr: cluster.namesrvAddr, log: silent });
    const got: MessageExt[] = [];
    const consumer = await createPushConsumer({
      namesrvAddr: cluster.namesrvAddr,
      group: "G1",
      subscriptions: { T: "TagA || TagB" },
      consumeFromWhere: "CONSUME_FROM_FIRST_OFFSET",
      onMessage: (msgs) => {
        got.push(...msgs);
      },
      ...quick,
    });
    try {
      const sent = await sendAll(producer, "T", 10);
      await waitFor("5 TagA messages", () => got.length >= 5);
      const expected = sent
        .map((r, i) => ({ i, r }))
        .filter(({ i }) => i % 2 === 1)
        .map(({ i, r }) => ({
          body: `m${i}`,
          tags: "TagA",
          keys: [`k${i}`],
          msgId: r.msgId,
          offsetMsgId: r.offsetMsgId,
          user: { n: String(i) },
        }));
      const seen = got.map((m) => ({
        body: text(m),
        tags: m.tags,
        keys: m.keys,
        msgId: m.msgId,
        offsetMsgId: m.offsetMsgId,
        user: userProperties(m),
      }));
      expect(seen.sort((a, b) => a.body.localeCompare(b.body))).toEqual(
        expected.sort((a, b) => a.body.localeCompare(b.body)),
      );
    } finally {
      await consumer.shutdown();
      await producer.shutdown();
    }
    // Shutdown commits each queue's next offset to the broker.
    const committed = [...cluster.broker.offsets]
      .filter(([k]) => k.startsWith("T@G1@"))
      .map(([k, v]) => [k, v]);
    const expectedOffsets = [0, 1, 2, 3].map((q) => [
      `T@G1@${q}`,
      cluster.broker.queues.get(`T@${q}`)?.length ?? 0,
    ]);
    expect(committed.sort()).toEqual(expectedOffsets.filter(([, n]) => n !== 0).sort());
  });

  test("pulls leave the subscription to the heartbeat unless asked; a broker that forgot it is told again", async () => {
    await using cluster = await startCluster([{ topics: ["T"] }]);
    const producer = await createProducer({ namesrvAddr: cluster.namesrvAddr, log: silent });
    const { consumer, got } = await collectingConsumer(cluster.namesrvAddr, "GS", "T");
    try {
      await sendAll(producer, "T", 4);
      await waitFor("4 messages", () => got.length >= 4);
      expect(cluster.broker.pullSysFlags.length).toBeGreaterThan(0);
      expect(cluster.broker.pullSysFlags.every((f) => (f & PullSysFlag.SUBSCRIPTION) === 0)).toBe(true);
      // As after a broker restart: the group's subscription is gone until the next heartbeat,
      // which the consumer sends when a pull is answered SUBSCRIPTION_NOT_EXIST.
      cluster.broker.subscriptions.clear();
      await sendAll(producer, "T", 4);
      await waitFor("4 more messages", () => got.length >= 8);
      expect(cluster.broker.subscriptions.get("GS")?.has("T")).toBe(true);
    } finally {
      await consumer.shutdown();
    }
    const posting = await createPushConsumer({
      namesrvAddr: cluster.namesrvAddr,
      group: "GP",
      subscriptions: { T: "*" },
      consumeFromWhere: "CONSUME_FROM_FIRST_OFFSET",
      postSubscriptionWhenPull: true,
      onMessage: () => {},
      ...quick,
    });
    try {
      const before = cluster.broker.pullSysFlags.length;
      await waitFor("a pull", () => cluster.broker.pullSysFlags.length > before);
      expect((cluster.broker.pullSysFlags.at(-1)! & PullSysFlag.SUBSCRIPTION) !== 0).toBe(true);
    } finally {
      await posting.shutdown();
      await producer.shutdown();
    }
  });

  test("a message whose listener throws comes back through %RETRY% under its own topic", async () => {
    await using cluster = await startCluster([{ topics: ["T"] }]);
    const producer = await createProducer({ namesrvAddr: cluster.namesrvAddr, log: silent });
    const attempts: { topic: string; reconsumeTimes: number; msgId: string }[] = [];
    const consumer = await createPushConsumer({
      namesrvAddr: cluster.namesrvAddr,
      group: "G2",
      subscriptions: { T: "*" },
      consumeFromWhere: "CONSUME_FROM_FIRST_OFFSET",
      onMessage: ([m]) => {
        attempts.push({ topic: m!.topic, reconsumeTimes: m!.reconsumeTimes, msgId: m!.msgId });
        if (m!.reconsumeTimes === 0) throw new Error("first attempt fails");
      },
      ...quick,
    });
    try {
      const sent = await producer.send({ topic: "T", body: "retry me" });
      await waitFor("second attempt", () => attempts.length >= 2);
      expect(attempts).toEqual([
        { topic: "T", reconsumeTimes: 0, msgId: sent.msgId },
        { topic: "T", reconsumeTimes: 1, msgId: sent.msgId },
      ]);
    } finally {
      await consumer.shutdown();
      await producer.shutdown();
    }
  });

  test("broadcasting consumers each get every message and keep offsets in a local file", async () => {
    await using cluster = await startCluster([{ topics: ["B"] }]);
    const dir = await mkdtemp(join(tmpdir(), "rocketbun-offsets-"));
    const producer = await createProducer({ namesrvAddr: cluster.namesrvAddr, log: silent });
    const got: string[][] = [[], []];
    const consumers: PushConsumer[] = [];
    try {
      for (const i of [0, 1]) {
        consumers.push(
          await createPushConsumer({
            namesrvAddr: cluster.namesrvAddr,
            group: "GB",
            messageModel: "BROADCASTING",
            subscriptions: { B: "*" },
            consumeFromWhere: "CONSUME_FROM_FIRST_OFFSET",
            offsetStoreDir: dir,
            onMessage: (msgs) => {
              got[i]!.push(...msgs.map(text));
            },
            ...quick,
          }),
        );
      }
      await sendAll(producer, "B", 6);
      await waitFor("both got all", () => got[0]!.length >= 6 && got[1]!.length >= 6);
      const files = [];
      for (const c of consumers) {
        await c.shutdown();
        const path = (c.offsets as unknown as { path: string }).path;
        const file = JSON.parse(await readFile(path, "utf8")) as { offsets: { offset: number }[] };
        files.push(file.offsets.reduce((n, o) => n + o.offset, 0));
      }
      expect({ a: got[0]!.sort(), b: got[1]!.sort(), committed: files }).toEqual({
        a: ["m0", "m1", "m2", "m3", "m4", "m5"],
        b: ["m0", "m1", "m2", "m3", "m4", "m5"],
        committed: [6, 6],
      });
    } finally {
      for (const c of consumers) await c.shutdown();
      await producer.shutdown();
      await rm(dir, { recursive: true, force: true });
    }
  });

  test("CONSUME_FROM_LAST_OFFSET skips history when the broker has no offset; FIRST and TIMESTAMP replay it", async () => {
    await using cluster = await startCluster([{ topics: ["H"], headInMemory: false }]);
    const producer = await createProducer({ namesrvAddr: cluster.namesrvAddr, log: silent });
    await sendAll(producer, "H", 4);
    const seen: Record<string, string[]> = { last: [], first: [], ts: [] };
    const make = (
      key: string,
      consumeFromWhere: "CONSUME_FROM_LAST_OFFSET" | "CONSUME_FROM_FIRST_OFFSET" | "CONSUME_FROM_TIMESTAMP",
    ) =>
      createPushConsumer({
        namesrvAddr: cluster.namesrvAddr,
        group: `G-${key}`,
        subscriptions: { H: "*" },
        consumeFromWhere,
        consumeTimestamp: 0,
        onMessage: (msgs) => {
          seen[key]!.push(...msgs.map(text));
        },
        ...quick,
      });
    const consumers = [
      await make("last", "CONSUME_FROM_LAST_OFFSET"),
      await make("first", "CONSUME_FROM_FIRST_OFFSET"),
      await make("ts", "CONSUME_FROM_TIMESTAMP"),
    ];
    try {
      await waitFor("every consumer owns its queues", () =>
        consumers.every((c) => c.assignedQueues().length === 5),
      );
      await producer.send({ topic: "H", body: "after" });
      await waitFor("all saw 'after'", () => Object.values(seen).every((s) => s.includes("after")));
      expect({ last: seen.last!.sort(), first: seen.first!.sort(), ts: seen.ts!.sort() }).toEqual({
        last: ["after"],
        first: ["after", "m0", "m1", "m2", "m3"],
        ts: ["after", "m0", "m1", "m2", "m3"],
      });
    } finally {
      for (const c of consumers) await c.shutdown();
      await producer.shutdown();
    }
  });

  test("listener calls never exceed the concurrency limit and cached messages stay within the flow bound", async () => {
    await using cluster = await startCluster([{ topics: ["F"] }]);
    const producer = await createProducer({ namesrvAddr: cluster.namesrvAddr, log: silent });
    await sendAll(producer, "F", 40, () => "x");
    let running = 0;
    let maxRunning = 0;
    let done = 0;
    let maxCached = 0;
    let consumer: PushConsumer | undefined;
    consumer = await createPushConsumer({
      namesrvAddr: cluster.namesrvAddr,
      group: "GF",
      subscriptions: { F: "*" },
      consumeFromWhere: "CONSUME_FROM_FIRST_OFFSET",
      consumeConcurrency: 3,
      pullBatchSize: 2,
      flowLimits: { messagesMax: 4 },
      onMessage: async () => {
        running += 1;
        maxRunning = Math.max(maxRunning, running);
        const table = (
          consumer as unknown as
            | { rebalancer?: { table: Map<string, { pq: { count: number } }> } }
            | undefined
        )?.rebalancer?.table;
        for (const t of table?.values() ?? []) {
          maxCached = Math.max(maxCached, t.pq.count);
        }
        await new Promise<void>((resolve) => setImmediate(resolve));
        running -= 1;
        done += 1;
      },
      ...quick,
    });
    try {
      await waitFor("all consumed", () => done >= 40);
      expect({ maxRunning, withinFlowBound: maxCached <= 4 + 2 }).toEqual({
        maxRunning: 3,
        withinFlowBound: true,
      });
    } finally {
      await consumer.shutdown();
      await producer.shutdown();
    }
  });

  test("a pulled record that does not decode is skipped as Java's client skips it, with an error logged, and consumption goes on", async () => {
    await using cluster = await startCluster([{}]);
    await cluster.broker.createTopic("TBadRecord", 1);
    const producer = await createProducer({ namesrvAddr: cluster.namesrvAddr, log: silent });
    for (let i = 0; i < 4; i++) await producer.send({ topic: "TBadRecord", body: `m${i}` });
    // The first pull answers all four; its third record gets a magic code no broker writes.
    cluster.broker.mangleNextPull = (body) => {
      const bytes = new Uint8Array(body);
      const dv = new DataView(bytes.buffer);
      const third = dv.getInt32(0) + dv.getInt32(dv.getInt32(0));
      dv.setInt32(third + 4, 0x12345678);
      return bytes;
    };
    const errors: { msg: string; offset: number; decoded: number; nextBeginOffset: number }[] = [];
    const log = pino({ level: "error" }, { write: (line: string) => errors.push(JSON.parse(line)) });
    const got: string[] = [];
    const consumer = await createPushConsumer({
      namesrvAddr: cluster.namesrvAddr,
      group: "GBadRecord",
      subscriptions: { TBadRecord: "*" },
      consumeFromWhere: "CONSUME_FROM_FIRST_OFFSET",
      onMessage: (msgs) => {
        got.push(...msgs.map(text));
      },
      ...quick,
      log,
    });
    await waitFor("the records before the bad one", () => got.length >= 2);
    await producer.send({ topic: "TBadRecord", body: "m4" });
    await waitFor("a message sent after the bad one", () => got.includes("m4"));
    await consumer.shutdown();
    await producer.shutdown();
    expect(got.sort()).toEqual(["m0", "m1", "m4"]);
    expect(errors.map((e) => ({ offset: e.offset, decoded: e.decoded, next: e.nextBeginOffset }))).toEqual([
      { offset: 0, decoded: 2, next: 4 },
    ]);
  });

  test("a consumer whose connection the broker drops heartbeats again at once, not at the next 30 s tick", async () => {
    await using cluster = await startCluster([{ topics: ["TDrop"] }]);
    const consumer = await createPushConsumer({
      namesrvAddr: cluster.namesrvAddr,
      group: "GDrop",
      subscriptions: { TDrop: "*" },
      onMessage: () => {},
      ...quick,
      // No pull retries in the window: only the lost connection can bring a heartbeat.
      pullErrorDelayMs: 60_000,
    });
    try {
      const members = () => cluster.broker.consumers.get("GDrop")?.size ?? 0;
      await waitFor("the consumer registered", () => members() === 1);
      for (const conn of cluster.broker.server.connections) conn.close("test drops the client");
      await waitFor("the registration gone", () => members() === 0);
      await waitFor("registered again", () => members() === 1, 5000);
    } finally {
      await consumer.shutdown();
    }
  });

  test("after a broker restart the consumer reconnects and resumes from the committed offsets", async () => {
    await using cluster = await startCluster([{ topics: ["R"] }]);
    const producer = await createProducer({ namesrvAddr: cluster.namesrvAddr, log: silent });
    const { consumer, got } = await collectingConsumer(cluster.namesrvAddr, "GR", "R");
    try {
      await sendAll(producer, "R", 4);
      await waitFor("first four", () => got.length >= 4);
      await waitFor("offsets committed", () =>
        [0, 1, 2, 3].every(
          (q) =>
            (cluster.broker.offsets.get(`R@GR@${q}`) ?? 0) ===
            (cluster.broker.queues.get(`R@${q}`)?.length ?? 0),
        ),
      );
      await cluster.broker.restart();
      for (let i = 4; i < 8; i++) {
        await waitFor(`send m${i} after restart`, () =>
          producer.send({ topic: "R", body: `m${i}` }).then(
            () => true,
            () => false,
          ),
        );
      }
      await waitFor("all eight", () => new Set(got).size >= 8);
      expect([...new Set(got)].sort()).toEqual(["m0", "m1", "m2", "m3", "m4", "m5", "m6", "m7"]);
      expect(got.length).toBe(8);
    } finally {
      await consumer.shutdown();
      await producer.shutdown();
    }
  });
});
