/**
 * Pending transactions survive kill -9 of the server (issue #16, spec broker §10.3): half and op
 * records are ordinary store records and the checker's progress is CID_SYS_RMQ_TRANS's offsets,
 * so after a SIGKILL and a restart the unanswered halves are checked again and the commits the
 * checks return are delivered; transactions committed before the crash are not checked again.
 */
import { expect, test } from "bun:test";
import {
  createAdmin,
  createPushConsumer,
  createTransactionProducer,
  type LocalTransactionState,
  type MessageExt,
} from "../../src/client/index.ts";
import { startRocketbun, waitFor } from "../support/rocketbun-child.ts";
import { silent } from "../support/silent.ts";

const PENDING = 20;
const COMMITTED = 5;

test("kill -9 with pending halves: after restart the checks still come and the commits are delivered", async () => {
  await using rb = await startRocketbun({
    name: "rocketbun-tx-kill",
    brokerConf: { transactionCheckInterval: "1000", transactionTimeOut: "1000", transactionCheckMax: "100" },
  });
  const admin = await createAdmin({ namesrvAddr: rb.namesrvAddr, log: silent });
  let answer: LocalTransactionState = "UNKNOW";
  const checked = new Map<string, number>();
  const producer = await createTransactionProducer({
    namesrvAddr: rb.namesrvAddr,
    log: silent,
    group: "PTxKill",
    // The restarted broker learns of the producer from its next heartbeat (Java: 30 s).
    heartbeatBrokerIntervalMs: 500,
    executeLocalTransaction: (msg) => (String(msg.body).startsWith("now") ? "COMMIT_MESSAGE" : "UNKNOW"),
    checkLocalTransaction: (msg) => {
      checked.set(msg.msgId, (checked.get(msg.msgId) ?? 0) + 1);
      return answer;
    },
  });
  try {
    await admin.createTopic("TxKill", { readQueueNums: 2, writeQueueNums: 2 });
    const pending: string[] = [];
    const committed: string[] = [];
    for (let i = 0; i < PENDING; i++) {
      pending.push((await producer.sendMessageInTransaction({ topic: "TxKill", body: `later ${i}` })).msgId);
    }
    for (let i = 0; i < COMMITTED; i++) {
      committed.push((await producer.sendMessageInTransaction({ topic: "TxKill", body: `now ${i}` })).msgId);
    }
    // Checked (and re-appended) at least once before the crash, so the restart resumes a walk.
    await waitFor("every pending half checked once", () => pending.every((id) => checked.has(id)));
    await rb.restart("SIGKILL");
    const before = new Map(checked);
    answer = "COMMIT_MESSAGE";

    const got: MessageExt[] = [];
    const consumer = await createPushConsumer({
      namesrvAddr: rb.namesrvAddr,
      log: silent,
      group: "GTxKill",
      subscriptions: { TxKill: "*" },
      consumeFromWhere: "CONSUME_FROM_FIRST_OFFSET",
      onMessage(msgs) {
        got.push(...msgs);
      },
    });
    try {
      await waitFor(
        "every transaction delivered after the restart",
        () => new Set(got.map((m) => m.msgId)).size >= PENDING + COMMITTED,
        40_000,
      );
      expect([...new Set(got.map((m) => m.msgId))].sort()).toEqual([...pending, ...committed].sort());
      // The checks after the restart came for the pending ones only.
      const after = [...checked].filter(([id, n]) => n > (before.get(id) ?? 0)).map(([id]) => id);
      expect(after.filter((id) => committed.includes(id))).toEqual([]);
      expect(after.length).toBeGreaterThan(0);
      expect(got.every((m) => m.transactionId === m.msgId)).toBe(true);
    } finally {
      await consumer.shutdown();
    }
  } finally {
    await producer.shutdown();
    await admin.shutdown();
  }
});
