/**
 * SQL92 subscriptions of the native client against `rocketbun start` (spec pop-timer-filter
 * Part C): a push consumer and a lite pull consumer receive exactly the matching messages, a
 * wrong expression or a broker with the property filter off fails the consumer's start with the
 * broker's code and remark, and a broker restart mid-stream keeps the filter.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Consumer as AliConsumer } from "ali-ons";
import {
  createAdmin,
  createLitePullConsumer,
  createProducer,
  createPushConsumer,
  type MessageExt,
  MessageSelector,
  MQClientError,
  type Producer,
} from "../../src/client/index.ts";
import { ResponseCode } from "../../src/remoting/index.ts";
import { createRoutedTopic } from "../integration/harness.ts";
import { ALI_ONS_LOCAL } from "../support/ali-ons.ts";
import { type StartedRocketbun, startRocketbun, waitFor } from "../support/rocketbun-child.ts";
import { silent } from "../support/silent.ts";

function createTopic(rb: StartedRocketbun, topic: string): Promise<void> {
  return createRoutedTopic(rb, topic, 1);
}

/** a=0..9 with tags TagA/TagB alternating, then a non-numeric a, then no a at all. */
async function sendBatch(producer: Producer, topic: string, prefix: string): Promise<void> {
  for (let i = 0; i < 10; i++) {
    const tags = i % 2 === 0 ? "TagA" : "TagB";
    await producer.send({ topic, body: `${prefix}${i}`, tags, properties: { a: String(i) } });
  }
  await producer.send({ topic, body: `${prefix}x`, tags: "TagA", properties: { a: "x" } });
  await producer.send({ topic, body: `${prefix}none`, tags: "TagA", properties: { b: "1" } });
}

/** A push consumer recording bodies; `end` is a body that marks the end of what is expected. */
async function consume(rb: StartedRocketbun, group: string, topic: string, sql: string) {
  const bodies: string[] = [];
  const consumer = await createPushConsumer({
    namesrvAddr: rb.namesrvAddr,
    group,
    subscriptions: { [topic]: MessageSelector.bySql(sql) },
    consumeFromWhere: "CONSUME_FROM_FIRST_OFFSET",
    consumeConcurrency: 1,
    pullErrorDelayMs: 100,
    persistConsumerOffsetIntervalMs: 100,
    log: silent,
    onMessage: (msgs: MessageExt[]) => {
      for (const m of msgs) bodies.push(new TextDecoder().decode(m.body));
    },
  });
  return { consumer, bodies };
}

describe("SQL92 subscriptions against rocketbun start with enablePropertyFilter=true", () => {
  let rb: StartedRocketbun;
  let producer: Producer;

  beforeAll(async () => {
    rb = await startRocketbun({ name: "rocketbun-sql", brokerConf: { enablePropertyFilter: "true" } });
    producer = await createProducer({ namesrvAddr: rb.namesrvAddr, log: silent });
  });
  afterAll(async () => {
    await producer?.shutdown();
    await rb?.stop();
  });

  test("`a between 0 and 3` delivers exactly a=0..3; non-numeric and absent a are excluded", async () => {
    await createTopic(rb, "SqlBetween");
    await sendBatch(producer, "SqlBetween", "m");
    // The last matching message, sent after all others on the one queue, marks the end.
    await producer.send({ topic: "SqlBetween", body: "end", properties: { a: "3" } });
    const { consumer, bodies } = await consume(rb, "SqlBetweenG", "SqlBetween", "a between 0 and 3");
    try {
      await waitFor("the end marker", () => bodies.includes("end"));
      expect(bodies.sort()).toEqual(["end", "m0", "m1", "m2", "m3"]);
      const admin = await createAdmin({ namesrvAddr: rb.namesrvAddr, log: silent });
      try {
        const cc = await admin.consumerConnections("SqlBetweenG");
        expect(cc.subscriptions.find((s) => s.topic === "SqlBetween")).toEqual({
          topic: "SqlBetween",
          subString: "a between 0 and 3",
          expressionType: "SQL92",
        });
      } finally {
        await admin.shutdown();
      }
    } finally {
      await consumer.shutdown();
    }
  });

  test("`TAGS = 'TagA' AND a >= 5` delivers exactly the TagA messages with a >= 5", async () => {
    await createTopic(rb, "SqlTags");
    await sendBatch(producer, "SqlTags", "m");
    await producer.send({ topic: "SqlTags", body: "end", tags: "TagA", properties: { a: "99" } });
    const { consumer, bodies } = await consume(rb, "SqlTagsG", "SqlTags", "TAGS = 'TagA' AND a >= 5");
    try {
      await waitFor("the end marker", () => bodies.includes("end"));
      expect(bodies.sort()).toEqual(["end", "m6", "m8"]);
    } finally {
      await consumer.shutdown();
    }
  });

  test("a wrong expression fails the push consumer's start with SUBSCRIPTION_PARSE_FAILED and its position", async () => {
    await createTopic(rb, "SqlWrong");
    const err = await consume(rb, "SqlWrongG", "SqlWrong", "a = 'x' AND").then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(MQClientError);
    expect((err as MQClientError).code).toBe(ResponseCode.SUBSCRIPTION_PARSE_FAILED);
    expect((err as MQClientError).remark).toContain('Encountered "<EOF>" at line 1, column 11');
  });

  test("a lite pull consumer sends its SQL92 selector in every pull and gets exactly the matches", async () => {
    await createTopic(rb, "SqlLite");
    await sendBatch(producer, "SqlLite", "m");
    await producer.send({ topic: "SqlLite", body: "end", properties: { a: "7" } });
    const consumer = await createLitePullConsumer({
      namesrvAddr: rb.namesrvAddr,
      group: "SqlLiteG",
      startFrom: "first",
      selectors: { SqlLite: { sql: "a > 6 AND a IS NOT NULL" } },
      log: silent,
    });
    try {
      await consumer.assign(await consumer.fetchQueues("SqlLite"));
      const bodies: string[] = [];
      await waitFor("the end marker", async () => {
        for (const m of await consumer.poll(500)) bodies.push(new TextDecoder().decode(m.body));
        return bodies.includes("end");
      });
      expect(bodies).toEqual(["m7", "m8", "m9", "end"]);
    } finally {
      await consumer.shutdown();
    }
  });

  test("an ali-ons consumer subscribing with SQL92 gets exactly the matches (its pulls carry the expression)", async () => {
    await createTopic(rb, "SqlAli");
    await sendBatch(producer, "SqlAli", "m");
    await producer.send({ topic: "SqlAli", body: "end", tags: "TagB", properties: { a: "1" } });
    const consumer = new AliConsumer({
      ...ALI_ONS_LOCAL,
      nameSrv: rb.namesrvAddr,
      consumerGroup: "SqlAliG",
      consumeFromWhere: "CONSUME_FROM_FIRST_OFFSET",
      brokerSuspendMaxTimeMillis: 1000,
    });
    const bodies: string[] = [];
    consumer.subscribe(
      "SqlAli",
      { expressionType: "SQL92", subString: "TAGS = 'TagB' AND a < 4" },
      async (msg: { body: Buffer }) => {
        bodies.push(msg.body.toString());
      },
    );
    await consumer.ready();
    try {
      await waitFor("the end marker", () => bodies.includes("end"), 30_000);
      expect([...new Set(bodies)].sort()).toEqual(["end", "m1", "m3"]);
    } finally {
      await consumer.close();
    }
  });

  test("a broker restart mid-stream keeps the filter: the consumer goes on receiving only matches", async () => {
    await createTopic(rb, "SqlRestart");
    const { consumer, bodies } = await consume(rb, "SqlRestartG", "SqlRestart", "a >= 8");
    try {
      await sendBatch(producer, "SqlRestart", "before");
      await waitFor("the first matches", () => bodies.length === 2);
      await rb.restart();
      await waitFor(
        "sending after the restart",
        () =>
          sendBatch(producer, "SqlRestart", "after").then(
            () => true,
            () => false,
          ),
        30_000,
      );
      await producer.send({ topic: "SqlRestart", body: "end", properties: { a: "8" } });
      await waitFor("the end marker", () => bodies.includes("end"), 30_000);
      expect([...new Set(bodies)].sort()).toEqual(["after8", "after9", "before8", "before9", "end"]);
    } finally {
      await consumer.shutdown();
    }
  });
});

test("with the property filter off (the default), an SQL92 consumer's start is refused", async () => {
  await using rb = await startRocketbun({ name: "rocketbun-sql-off" });
  await createTopic(rb, "SqlOff");
  const err = await consume(rb, "SqlOffG", "SqlOff", "a = 1").then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(MQClientError);
  expect({ code: (err as MQClientError).code, remark: (err as MQClientError).remark }).toEqual({
    code: ResponseCode.SYSTEM_ERROR,
    remark: "The broker does not support consumer to filter message by SQL92",
  });
});
