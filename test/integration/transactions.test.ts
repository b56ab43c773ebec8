/**
 * Transactional messages with the native client against `rocketbun start` (issue #16, spec broker
 * §10): commit delivered once with its transaction id, rollback never, unknown until a check
 * answers, a check for a restarted producer of the group, the check limit parking the message in
 * TRANS_CHECK_MAX_TIME_TOPIC, and the admin verbs listing pending and parked transactions. The
 * broker checks every second after one second (transactionCheckInterval, transactionTimeOut).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  type Admin,
  createAdmin,
  createPushConsumer,
  createTransactionProducer,
  type LocalTransactionState,
  type MessageExt,
  type PushConsumer,
  type TransactionProducer,
} from "../../src/client/index.ts";
import { runCli, type StartedRocketbun, startRocketbun, waitFor } from "../support/rocketbun-child.ts";
import { silent } from "../support/silent.ts";

const CHECK_MAX = 3;
let rb: StartedRocketbun;
let admin: Admin;
const closers: (() => Promise<void>)[] = [];

beforeAll(async () => {
  rb = await startRocketbun({
    name: "rocketbun-tx",
    brokerConf: {
      transactionCheckInterval: "1000",
      transactionTimeOut: "1000",
      transactionCheckMax: String(CHECK_MAX),
    },
  });
  admin = await createAdmin({ namesrvAddr: rb.namesrvAddr, log: silent });
});

afterAll(async () => {
  for (const close of closers.reverse()) await close().catch(() => {});
  await admin?.shutdown();
  await rb?.stop();
});

async function topic(name: string): Promise<string> {
  await admin.createTopic(name, { readQueueNums: 2, writeQueueNums: 2 });
  return name;
}

async function consume(group: string, topicName: string): Promise<MessageExt[]> {
  const got: MessageExt[] = [];
  const consumer: PushConsumer = await createPushConsumer({
    namesrvAddr: rb.namesrvAddr,
    log: silent,
    group,
    subscriptions: { [topicName]: "*" },
    consumeFromWhere: "CONSUME_FROM_FIRST_OFFSET",
    onMessage(msgs) {
      got.push(...msgs);
    },
  });
  closers.push(() => consumer.shutdown());
  return got;
}

interface ProducerHooks {
  execute?: (body: string) => LocalTransactionState | undefined;
  check?: (msg: MessageExt) => LocalTransactionState | undefined;
}

async function txProducer(group: string, hooks: ProducerHooks): Promise<TransactionProducer> {
  const producer = await createTransactionProducer({
    namesrvAddr: rb.namesrvAddr,
    log: silent,
    group,
    executeLocalTransaction: (msg) => hooks.execute?.(String(msg.body)),
    checkLocalTransaction: (msg) => hooks.check?.(msg),
  });
  closers.push(() => producer.shutdown());
  return producer;
}

const text = (m: MessageExt) => new TextDecoder().decode(m.body);

describe("transactions with the native client", () => {
  test("a committed message is delivered once with its transaction id; a rolled-back one never", async () => {
    const t = await topic("TxCommit");
    const got = await consume("GTxCommit", t);
    const producer = await txProducer("PTxCommit", {
      execute: (body) => (body === "yes" ? "COMMIT_MESSAGE" : "ROLLBACK_MESSAGE"),
    });
    const committed = await producer.sendMessageInTransaction({ topic: t, body: "yes", tags: "A" });
    const rolledBack = await producer.sendMessageInTransaction({ topic: t, body: "no" });
    expect([committed.localTransactionState, rolledBack.localTransactionState]).toEqual([
      "COMMIT_MESSAGE",
      "ROLLBACK_MESSAGE",
    ]);
    expect(committed.transactionId).toBe(committed.msgId);
    // A plain message sent after both: once it is consumed, so would a wrongly delivered rollback be.
    const marker = await producer.send({ topic: t, body: "marker" });
    await waitFor("the commit and the marker consumed", () => got.length >= 2);
    expect(got.map((m) => [text(m), m.msgId, m.transactionId, m.tags]).sort()).toEqual(
      [
        ["marker", marker.msgId, undefined, undefined],
        ["yes", committed.msgId, committed.msgId, "A"],
      ].sort(),
    );
    expect(got.find((m) => text(m) === "yes")?.properties.TRAN_MSG).toBe("true");
  });

  test("an unknown transaction is checked until the producer answers commit, then delivered", async () => {
    const t = await topic("TxUnknown");
    const got = await consume("GTxUnknown", t);
    const checked: MessageExt[] = [];
    const producer = await txProducer("PTxUnknown", {
      execute: () => "UNKNOW",
      check: (msg) => {
        checked.push(msg);
        return checked.length >= 2 ? "COMMIT_MESSAGE" : "UNKNOW";
      },
    });
    const sent = await producer.sendMessageInTransaction({ topic: t, body: "later", keys: "k" });
    expect(sent.localTransactionState).toBe("UNKNOW");
    await waitFor("the committed message consumed", () => got.length >= 1);
    expect(
      checked.map((m) => [m.topic, m.transactionId, m.msgId, text(m), m.properties.TRANSACTION_CHECK_TIMES]),
    ).toEqual([
      [t, sent.msgId, sent.msgId, "later", "1"],
      [t, sent.msgId, sent.msgId, "later", "2"],
    ]);
    expect(got.map((m) => [text(m), m.msgId, m.transactionId, m.keys])).toEqual([
      ["later", sent.msgId, sent.msgId, ["k"]],
    ]);
  });

  test("a local transaction that throws ends unknown, and the check decides", async () => {
    const t = await topic("TxThrow");
    const got = await consume("GTxThrow", t);
    const producer = await createTransactionProducer({
      namesrvAddr: rb.namesrvAddr,
      log: silent,
      group: "PTxThrow",
      executeLocalTransaction: () => {
        throw new Error("db down");
      },
      checkLocalTransaction: () => "COMMIT_MESSAGE",
    });
    closers.push(() => producer.shutdown());
    const sent = await producer.sendMessageInTransaction({ topic: t, body: "x" });
    expect(sent.localTransactionState).toBe("UNKNOW");
    await waitFor("committed by the check", () => got.length >= 1);
    expect(got.map((m) => m.msgId)).toEqual([sent.msgId]);
  });

  test("a producer gone after the half send: a new producer of the group gets the check", async () => {
    const t = await topic("TxRestart");
    const got = await consume("GTxRestart", t);
    const first = await txProducer("PTxRestart", { execute: () => "UNKNOW" });
    const sent = await first.sendMessageInTransaction({ topic: t, body: "orphan" });
    await first.shutdown();
    const seen: string[] = [];
    await txProducer("PTxRestart", {
      check: (msg) => {
        seen.push(msg.msgId);
        return "COMMIT_MESSAGE";
      },
    });
    await waitFor("committed through the second producer", () => got.length >= 1);
    expect(got.map((m) => m.msgId)).toEqual([sent.msgId]);
    expect(seen[0]).toBe(sent.msgId);
  });

  test("checked transactionCheckMax times without an answer, the half message is parked in TRANS_CHECK_MAX_TIME_TOPIC; admin lists pending and parked ones", async () => {
    const t = await topic("TxLimit");
    let checks = 0;
    const producer = await txProducer("PTxLimit", {
      execute: () => "UNKNOW",
      check: () => {
        checks++;
        return "UNKNOW";
      },
    });
    const sent = await producer.sendMessageInTransaction({ topic: t, body: "stuck" });
    const env = { PATH: process.env.PATH ?? "", ROCKETBUN_LOG_LEVEL: "silent" };
    const cli = (verb: string, ...args: string[]) =>
      runCli(["admin", verb, "-n", rb.namesrvAddr, ...args, "--json"], env);
    const pending = await cli("pendingTransactions", "-g", "PTxLimit");
    expect({ code: pending.code, stderr: pending.stderr }).toEqual({ code: 0, stderr: "" });
    expect(JSON.parse(pending.stdout)).toMatchObject([{ producerGroup: "PTxLimit", pending: 1 }]);

    const parked = await waitFor("parked in TRANS_CHECK_MAX_TIME_TOPIC", async () => {
      const r = await cli("discardedTransactions", "-g", "PTxLimit");
      const list = JSON.parse(r.stdout) as { msgId: string; realTopic: string; checkTimes: number }[];
      return list.length > 0 ? list : undefined;
    });
    expect(parked.map((m) => [m.msgId, m.realTopic, m.checkTimes])).toEqual([[sent.msgId, t, CHECK_MAX]]);
    expect(checks).toBe(CHECK_MAX);
    const after = await cli("pendingTransactions", "-g", "PTxLimit");
    expect(JSON.parse(after.stdout)).toMatchObject([{ producerGroup: "PTxLimit", pending: 0 }]);
    // brokerStatus (GET_BROKER_RUNTIME_INFO) counts what the broker did for every group so far.
    const status = JSON.parse((await cli("brokerStatus", "-b", rb.brokerAddr)).stdout) as Record<
      string,
      string
    >;
    expect(Number(status.transactionCheckDiscarded)).toBeGreaterThanOrEqual(1);
    expect(Number(status.transactionCheckSent)).toBeGreaterThanOrEqual(CHECK_MAX);
    expect(Number(status.transactionCommitted)).toBeGreaterThanOrEqual(1);
    expect(Number(status.transactionRolledBack)).toBeGreaterThanOrEqual(1);
    expect(status.transactionHalfPending).toBe("0");
  });
});
