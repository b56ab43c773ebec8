/**
 * Dead letters through `rocketbun admin` against `rocketbun start` (issue #15): a native push
 * consumer that fails every message puts them in %DLQ%<group> (delay levels of a second here);
 * queryMsgByUniqueKey, consumeMessage and topicStatus read the DLQ and retry topics, and
 * resendDlqMessage sends dead letters back, by id or all, to the original topic or the group's
 * retry topic, keeping their id, keys and user properties.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { type Admin, createAdmin, createProducer, createPushConsumer } from "../../../src/client/index.ts";
import type { MessageExt } from "../../../src/client/message.ts";
import { runCli, type StartedRocketbun, startRocketbun, waitFor } from "../../support/rocketbun-child.ts";
import { silent } from "../../support/silent.ts";

const GROUP = "GDlqAdmin";
const TOPIC = "TDlqAdmin";
const DLQ = `%DLQ%${GROUP}`;

let rb: StartedRocketbun;
let admin: Admin;
const env: Record<string, string> = { PATH: process.env.PATH ?? "", ROCKETBUN_LOG_LEVEL: "silent" };
const cli = (verb: string, ...args: string[]) => runCli(["admin", verb, "-n", rb.namesrvAddr, ...args], env);

async function json<T>(verb: string, ...args: string[]): Promise<T> {
  const r = await cli(verb, ...args, "--json");
  expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: "" });
  return JSON.parse(r.stdout) as T;
}

beforeAll(async () => {
  rb = await startRocketbun({
    name: "rocketbun-dlq",
    brokerConf: { messageDelayLevel: Array(18).fill("1s").join(" ") },
    env: { ...env },
  });
  env.HOME = rb.home;
  admin = await createAdmin({ namesrvAddr: rb.namesrvAddr, log: silent });
});

afterAll(async () => {
  await admin?.shutdown();
  await rb?.stop();
});

test("dead letters are found by unique key, read, counted, and resent by id or all, to the original or the retry topic", async () => {
  await admin.createTopic(TOPIC, { readQueueNums: 1, writeQueueNums: 1 });
  const producer = await createProducer({ namesrvAddr: rb.namesrvAddr, log: silent });
  let failing = true;
  const delivered: MessageExt[] = [];
  const consumer = await createPushConsumer({
    namesrvAddr: rb.namesrvAddr,
    log: silent,
    group: GROUP,
    subscriptions: { [TOPIC]: "*" },
    consumeFromWhere: "CONSUME_FROM_FIRST_OFFSET",
    maxReconsumeTimes: 1,
    onMessage(msgs) {
      if (failing) throw new Error("not today");
      delivered.push(...msgs);
    },
  });
  try {
    const sent = [
      await producer.send({ topic: TOPIC, body: "one", keys: "k1", properties: { color: "red" } }),
      await producer.send({ topic: TOPIC, body: "two", keys: "k2" }),
    ];
    const [id1, id2] = sent.map((r) => r.msgId) as [string, string];
    // First failure: a retry after level 3 (1 s); second failure: past maxReconsumeTimes 1 → DLQ.
    await waitFor("both messages in the DLQ", async () => {
      const status = await json<{ maxOffset: number }[]>("topicStatus", "-t", DLQ).catch(() => []);
      return status[0]?.maxOffset === 2;
    });

    const found = await json<MessageExt>("queryMsgByUniqueKey", "-t", DLQ, "-i", id1);
    expect({
      topic: found.topic,
      msgId: found.msgId,
      reconsumeTimes: found.reconsumeTimes,
      retryTopic: found.properties.RETRY_TOPIC,
      color: found.properties.color,
    }).toEqual({ topic: DLQ, msgId: id1, reconsumeTimes: 2, retryTopic: TOPIC, color: "red" });
    const missing = await cli("queryMsgByUniqueKey", "-t", DLQ, "-i", "NOPE");
    expect({ code: missing.code, stderr: missing.stderr.trim() }).toEqual({
      code: 1,
      stderr: `rocketbun: queryMsgByUniqueKey: no message with unique key NOPE in topic ${DLQ}`,
    });

    const read = await json<MessageExt[]>("consumeMessage", "-t", DLQ);
    // Failed concurrently: either may have reached the DLQ first.
    expect(read.map((m) => [m.msgId, m.topic]).sort()).toEqual(
      [
        [id1, DLQ],
        [id2, DLQ],
      ].sort(),
    );
    const retryStatus = await json<{ queueId: number; maxOffset: number }[]>(
      "topicStatus",
      "-t",
      `%RETRY%${GROUP}`,
    );
    // One retry copy per message before each went to the DLQ.
    expect(retryStatus.reduce((sum, q) => sum + q.maxOffset, 0)).toBe(2);

    failing = false;
    const one = await json<{ msgId: string; topic: string; sendStatus: string }[]>(
      "resendDlqMessage",
      "-g",
      GROUP,
      "-i",
      id1,
    );
    expect(one.map((r) => [r.msgId, r.topic, r.sendStatus])).toEqual([[id1, TOPIC, "SEND_OK"]]);
    await waitFor("the resent message consumed", () => delivered.length >= 1);
    expect({
      topic: delivered[0]!.topic,
      msgId: delivered[0]!.msgId,
      keys: delivered[0]!.keys,
      color: delivered[0]!.properties.color,
      body: new TextDecoder().decode(delivered[0]!.body),
      reconsumeTimes: delivered[0]!.reconsumeTimes,
    }).toEqual({ topic: TOPIC, msgId: id1, keys: ["k1"], color: "red", body: "one", reconsumeTimes: 0 });

    const all = await json<{ msgId: string; topic: string }[]>("resendDlqMessage", "-g", GROUP, "--retry");
    expect(all.map((r) => [r.msgId, r.topic]).sort()).toEqual(
      [
        [id1, `%RETRY%${GROUP}`],
        [id2, `%RETRY%${GROUP}`],
      ].sort(),
    );
    await waitFor("both resent copies consumed", () => delivered.length >= 3);
    // The consumer shows retry-topic messages under their original topic (RETRY_TOPIC).
    expect(
      delivered
        .slice(1)
        .map((m) => [m.msgId, m.topic])
        .sort(),
    ).toEqual(
      [
        [id1, TOPIC],
        [id2, TOPIC],
      ].sort(),
    );

    const unknown = await cli("resendDlqMessage", "-g", GROUP, "-i", "NOPE");
    expect({ code: unknown.code, stderr: unknown.stderr.trim() }).toEqual({
      code: 1,
      stderr: `rocketbun: resendDlqMessage: no message with id NOPE in ${DLQ}`,
    });
  } finally {
    await consumer.shutdown();
    await producer.shutdown();
  }
});
