import { describe, expect, test } from "bun:test";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AbortRace } from "../../src/client/abortable.ts";
import { decodeResetOffsetBody } from "../../src/client/client-instance.ts";
import {
  createAdmin,
  createLitePullConsumer,
  createProducer,
  createPushConsumer,
  MQClientError,
} from "../../src/client/index.ts";
import { LatencyFaultTolerance } from "../../src/client/latency-fault.ts";
import { encodeMessageProperties } from "../../src/client/message.ts";
import { LocalFileOffsetStore } from "../../src/client/offset-store.ts";
import { RoundRobin, selectByShardingKey, selectQueue } from "../../src/client/queue-selector.ts";
import { RouteCache } from "../../src/client/route-cache.ts";
import {
  createUniqueIdGenerator,
  decodeProperties,
  encodeProperties,
} from "../../src/protocol/message/index.ts";
import type { TopicRouteData } from "../../src/protocol/route/index.ts";
import { ResponseCode } from "../../src/remoting/index.ts";
import { silent } from "../support/silent.ts";
import { refusal, startCluster } from "./harness.ts";

const qs = ["a", "a", "b", "b"].map((brokerName, i) => ({ topic: "T", brokerName, queueId: i % 2 }));

/** A route of brokers a (2 writable queues) and b (`bQueues`, read-only when `bPerm` is 4). */
function route(bQueues: number, bPerm = 6): TopicRouteData {
  const broker = (brokerName: string) => ({
    cluster: "C",
    brokerName,
    brokerAddrs: new Map([[0, `${brokerName}:10911`]]),
    enableActingMaster: false,
  });
  return {
    queueDatas: [
      { brokerName: "b", readQueueNums: bQueues, writeQueueNums: bQueues, perm: bPerm, topicSysFlag: 0 },
      { brokerName: "a", readQueueNums: 2, writeQueueNums: 2, perm: 6, topicSysFlag: 0 },
    ],
    brokerDatas: [broker("a"), broker("b")],
    filterServerTable: new Map(),
  };
}

describe("client units", () => {
  test("publish info lists writable master queues by broker name, is built once per route and follows route changes", () => {
    const cache = new RouteCache();
    expect(cache.publishInfo("T")).toBeNull();
    cache.update("T", route(3));
    const first = cache.publishInfo("T")!;
    expect(first.queues.map((q) => `${q.brokerName}${q.queueId}`)).toEqual(["a0", "a1", "b0", "b1", "b2"]);
    expect(cache.publishInfo("T")).toBe(first);
    cache.update("T", route(1, 4));
    expect(cache.publishInfo("T")!.queues.map((q) => `${q.brokerName}${q.queueId}`)).toEqual(["a0", "a1"]);
    // The TBW102 fallback: another route's queues as this topic's, capped per broker, not cached.
    const derived = cache.publishInfoOf("New", route(8), 4)!;
    expect(derived.queues.map((q) => `${q.topic}/${q.brokerName}${q.queueId}`)).toEqual([
      "New/a0",
      "New/a1",
      "New/b0",
      "New/b1",
      "New/b2",
      "New/b3",
    ]);
    expect(cache.publishInfo("New")).toBeNull();
    cache.remove("T");
    expect(cache.publishInfo("T")).toBeNull();
  });

  test("properties come out as Java's Message sets them: user, KEYS, TAGS, WAIT, DELAY", () => {
    const props = decodeProperties(
      encodeMessageProperties(
        {
          topic: "T",
          body: "x",
          tags: "A",
          keys: [" k1", "k2 "],
          delayLevel: 2,
          properties: { u: "1", empty: "" },
        },
        "",
      ),
    );
    expect([...props]).toEqual([
      ["u", "1"],
      ["KEYS", "k1 k2"],
      ["TAGS", "A"],
      ["WAIT", "true"],
      ["DELAY", "2"],
    ]);
  });

  test("a message's properties string holds the entries in Java's order with UNIQ_KEY last, empty parts left out", () => {
    const msgs = [
      { topic: "T", body: "x" },
      { topic: "T", body: "x", tags: "A", keys: [" k1", "k2 "], properties: { u: "1", empty: "", "": "v" } },
      { topic: "T", body: "x", tags: "", keys: "  ", waitStoreMsgOK: false, delayLevel: 3 },
    ];
    const entries = (pairs: [string, string][]) => encodeProperties(new Map(pairs));
    expect(msgs.map((m) => encodeMessageProperties(m, "ID"))).toEqual([
      entries([
        ["WAIT", "true"],
        ["UNIQ_KEY", "ID"],
      ]),
      entries([
        ["u", "1"],
        ["KEYS", "k1 k2"],
        ["TAGS", "A"],
        ["WAIT", "true"],
        ["UNIQ_KEY", "ID"],
      ]),
      entries([
        ["WAIT", "false"],
        ["DELAY", "3"],
        ["UNIQ_KEY", "ID"],
      ]),
    ]);
    const reserved = { topic: "T", body: "x", properties: { TAGS: "t" } };
    expect(() => encodeMessageProperties(reserved, "ID")).toThrow(
      "the property<TAGS> is used by system, input another please",
    );
  });

  test("unique ids count the ms since the start of the local month, also after the clock crosses into the next month or goes back", () => {
    const times = [
      new Date(2024, 0, 31, 23, 59, 59, 999).getTime(),
      new Date(2024, 0, 31, 23, 59, 59, 999).getTime(), // same ms: only the counter moves
      new Date(2024, 1, 1, 0, 0, 0, 5).getTime(),
      new Date(2024, 0, 31, 23, 59, 59, 0).getTime(),
    ];
    let i = 0;
    const next = createUniqueIdGenerator({
      ip: new Uint8Array(4),
      pid: 1,
      instanceHash: 2,
      now: () => times[i++]!,
    });
    const fields = (id: string) => [Number.parseInt(id.slice(20, 28), 16), Number.parseInt(id.slice(28), 16)];
    const jan = new Date(2024, 0, 1).getTime();
    expect(times.map(() => fields(next()))).toEqual([
      [times[0]! - jan, 0],
      [times[0]! - jan, 1],
      [5, 2],
      [times[3]! - jan, 3],
    ]);
  });

  test("a unique id written in place has the chars of the id a twin generator returns, for IPv4 and IPv6, across ms and counter wrap", () => {
    for (const ip of [new Uint8Array([192, 168, 0, 9]), new Uint8Array(16).fill(0xab)]) {
      let t = new Date(2024, 5, 10).getTime();
      const options = { ip, pid: 0x1234, instanceHash: 99, now: () => t };
      const gen = createUniqueIdGenerator(options);
      const twin = createUniqueIdGenerator(options);
      expect(gen.idLength).toBe(ip.length === 4 ? 32 : 56);
      const dst = new Uint8Array(gen.idLength + 4).fill(0x3f);
      for (let k = 0; k < 70_000; k++) {
        if (k % 1000 === 0) t++;
        gen.into(dst, 2);
        const expected = twin();
        if (k % 997 === 0 || k === 65_535 || k === 65_536) {
          expect(new TextDecoder().decode(dst.subarray(2, 2 + gen.idLength))).toBe(expected);
          expect([dst[0], dst[1], dst.at(-2), dst.at(-1)]).toEqual([0x3f, 0x3f, 0x3f, 0x3f]);
        }
      }
      // Both forms share one counter: the next plain id follows the last written one.
      expect(gen()).toBe(twin());
    }
  });

  test("round robin skips the broker that just failed and brokers under penalty", () => {
    let now = 1000;
    const faults = new LatencyFaultTolerance(30_000, () => now);
    const rr = new RoundRobin();
    const picks = Array.from({ length: 4 }, () => selectQueue(qs, rr, faults, "a")!.brokerName);
    faults.update("b", 0, true);
    const penalised = Array.from({ length: 4 }, () => selectQueue(qs, rr, faults, undefined)!.brokerName);
    now += 30_001;
    const healed = new Set(
      Array.from({ length: 4 }, () => selectQueue(qs, rr, faults, undefined)!.brokerName),
    );
    expect({ picks, penalised, healed }).toEqual({
      picks: ["b", "b", "b", "b"],
      penalised: ["a", "a", "a", "a"],
      healed: new Set(["a", "b"]),
    });
  });

  test("a sharding key maps as Java's SelectMessageQueueByHash: |hashCode mod n|", () => {
    // "order-1".hashCode() = -1207111310 (Java); -1207111310 % 4 = -2 → 2.
    expect(selectByShardingKey(qs, "order-1")).toBe(qs[2]!);
  });

  test("a ResetOffsetBody with fastjson object keys decodes to broker/queue → offset", () => {
    const body = new TextEncoder().encode(
      '{"offsetTable":{{"brokerName":"broker-a","queueId":0,"topic":"T"}:5,{"brokerName":"broker-b","queueId":3,"topic":"T"}:12}}',
    );
    expect([...decodeResetOffsetBody(body)]).toEqual([
      ["broker-a/0", 5],
      ["broker-b/3", 12],
    ]);
  });

  test("a NameServer address that is not host:port is refused when the client is created", async () => {
    for (const namesrvAddr of [
      "notanaddr",
      "127.0.0.1:99999",
      "127.0.0.1:9876;:1",
      ["127.0.0.1:9876", "x:y"],
    ]) {
      const err = await createProducer({ namesrvAddr, log: silent }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(MQClientError);
      expect((err as MQClientError).code).toBe(ResponseCode.INVALID_PARAMETER);
      expect((err as MQClientError).message).toContain("is not host:port");
    }
  });

  test("numeric options out of Java's ranges, or beyond what a timer holds, are refused naming the option", async () => {
    const namesrvAddr = "127.0.0.1:1"; // refused before anything connects
    const base = { namesrvAddr, log: silent };
    const consumer = { ...base, group: "G", subscriptions: { T: "*" }, onMessage: () => {} };
    const bad = ResponseCode.INVALID_PARAMETER;
    expect(
      await Promise.all([
        refusal(createProducer({ ...base, sendMsgTimeoutMs: 0 })),
        refusal(createProducer({ ...base, compressLevel: 10 })),
        refusal(createProducer({ ...base, pollNameServerIntervalMs: 2 ** 31 })),
        refusal(createPushConsumer({ ...consumer, consumeBatchSize: 1025 })),
        refusal(createPushConsumer({ ...consumer, pullBatchSize: 1.5 })),
        refusal(createPushConsumer({ ...consumer, flowLimits: { messagesMax: 0 } })),
        refusal(createPushConsumer({ ...consumer, rebalanceIntervalMs: 3e9 })),
        refusal(createPushConsumer({ ...consumer, brokerSuspendMaxMs: 30_000 })),
        refusal(createLitePullConsumer({ ...base, group: "L", pullBatchSize: 0 })),
        refusal(createAdmin({ ...base, mqClientApiTimeoutMs: -1 })),
      ]),
    ).toEqual([
      [bad, "sendMsgTimeoutMs 0 is out of range [1, 2147483647]"],
      [bad, "compressLevel 10 is out of range [0, 9]"],
      [bad, "pollNameServerIntervalMs 2147483648 is out of range [1, 2147483647]"],
      [bad, "consumeBatchSize 1025 is out of range [1, 1024]"],
      [bad, "pullBatchSize 1.5 is out of range [1, 1024]"],
      [bad, "flowLimits.messagesMax 0 is out of range [1, 65535]"],
      [bad, "rebalanceIntervalMs 3000000000 is out of range [1, 2147483647]"],
      [bad, "consumerTimeoutWhenSuspendMs 30000 must be greater than brokerSuspendMaxMs 30000"],
      [bad, "pullBatchSize 0 is out of range [1, 1024]"],
      [bad, "mqClientApiTimeoutMs -1 is out of range [1, 2147483647]"],
    ]);
  });

  test("a broadcast offset file that is not ours refuses to load naming the file; odd entries are passed over", async () => {
    const dir = await mkdtemp(join(tmpdir(), "rocketbun-offsets-"));
    try {
      const path = join(dir, "offsets.json");
      const load = (text: string | null) =>
        (text === null ? Promise.resolve() : writeFile(path, text)).then(async () => {
          const store = new LocalFileOffsetStore(path);
          await store.load();
          return store;
        });
      const mq = { topic: "T", brokerName: "b", queueId: 1 };
      const notJson = await refusal(load("{not json"));
      expect([
        notJson[0],
        String(notJson[1]).startsWith(`the broadcast offset file ${path} is not JSON: `),
      ]).toEqual([ResponseCode.INVALID_PARAMETER, true]);
      expect(await refusal(load('{"offsets":7}'))).toEqual([
        ResponseCode.INVALID_PARAMETER,
        `the broadcast offset file ${path} has no "offsets" list`,
      ]);
      const entries = [
        { topic: "T", brokerName: "b", queueId: 1, offset: 42 },
        { topic: "T", brokerName: "b", queueId: 2, offset: -5 },
        { topic: "T", brokerName: "b", queueId: "3", offset: 1 },
        null,
      ];
      const store = await load(JSON.stringify({ offsets: entries }));
      expect([
        await store.readStored(mq),
        await store.readStored({ ...mq, queueId: 2 }),
        await store.readStored({ ...mq, queueId: 3 }),
      ]).toEqual([42, -1, -1]);
      await rm(path);
      expect(await (await load(null)).readStored(mq)).toBe(-1);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test("a dead NameServer in the list is failed over", async () => {
    await using cluster = await startCluster([{ topics: ["NF"] }]);
    const dead = "127.0.0.1:1";
    const producer = await createProducer({ namesrvAddr: [dead, cluster.namesrvAddr, dead], log: silent });
    try {
      expect((await producer.send({ topic: "NF", body: "x" })).sendStatus).toBe("SEND_OK");
    } finally {
      await producer.shutdown();
    }
  });
});

describe("abort race", () => {
  test("work settles with its result, with null once the signal aborts, and a disposed race no longer listens", async () => {
    const controller = new AbortController();
    const race = new AbortRace(controller.signal);
    expect(await race.race(Promise.resolve(7))).toBe(7);
    await expect(race.race(Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    const pending = race.race(new Promise<number>(() => {}));
    controller.abort();
    expect(await pending).toBeNull();
    expect(await race.race(new Promise<number>(() => {}))).toBeNull(); // already aborted

    const other = new AbortController();
    const disposed = new AbortRace(other.signal);
    const held = disposed.race(new Promise<number>(() => {}));
    disposed.dispose();
    other.abort();
    const outcome = await Promise.race([held, new Promise((r) => setTimeout(() => r("still pending"), 20))]);
    expect(outcome).toBe("still pending");
  });
});
