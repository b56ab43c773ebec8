/**
 * ali-ons has no transactional producer (it only sets the PREPARED sysFlag when a message carries
 * TRAN_MSG), so transactions come from the native client here and ali-ons consumes: a committed
 * message reaches it once, a rolled-back one never, and one its listener fails comes back through
 * the retry topic as any message does (the copy's TRAN_MSG does not make it a half message again).
 */
import { expect, test } from "bun:test";
import { Consumer as AliConsumer } from "ali-ons";
import { createProducer, createTransactionProducer } from "../../src/client/index.ts";
import { ALI_ONS_LOCAL } from "../support/ali-ons.ts";
import { createRoutedTopic, silent, startRocketbun, waitFor } from "./harness.ts";

interface AliMsg {
  body: Buffer;
  msgId: string;
  reconsumeTimes: number;
  properties: Record<string, string>;
}

test("an ali-ons consumer gets a committed transactional message once, a rolled-back one never, and a failed one again by retry", async () => {
  await using rb = await startRocketbun({
    brokerConf: { messageDelayLevel: Array(18).fill("1s").join(" ") },
  });
  await createRoutedTopic(rb, "AliTx", 2);
  const seen: { body: string; msgId: string; reconsumeTimes: number; tranMsg?: string }[] = [];
  const consumer = new AliConsumer({
    ...ALI_ONS_LOCAL,
    nameSrv: rb.namesrvAddr,
    consumerGroup: "ALI_TX",
    consumeFromWhere: "CONSUME_FROM_FIRST_OFFSET",
    brokerSuspendMaxTimeMillis: 1000,
    persistConsumerOffsetInterval: 200,
    rebalanceInterval: 500,
    instanceName: "ALI_TX",
    maxReconsumeTimes: 2,
  });
  consumer.on("error", () => {}); // the listener's throw is reported here; it is the point
  consumer.subscribe("AliTx", "*", async (msg: AliMsg) => {
    const m = {
      body: msg.body.toString(),
      // ali-ons' msgId is the offset id; the producer's id is UNIQ_KEY.
      msgId: msg.properties.UNIQ_KEY ?? "",
      reconsumeTimes: msg.reconsumeTimes,
      tranMsg: msg.properties.TRAN_MSG,
    };
    seen.push(m);
    if (m.body === "fail once" && m.reconsumeTimes === 0) throw new Error("failing on purpose");
  });
  await consumer.ready();
  const tx = await createTransactionProducer({
    namesrvAddr: rb.namesrvAddr,
    log: silent,
    group: "PAliTx",
    executeLocalTransaction: (msg) =>
      String(msg.body) === "rolled back" ? "ROLLBACK_MESSAGE" : "COMMIT_MESSAGE",
    checkLocalTransaction: () => "COMMIT_MESSAGE",
  });
  const plain = await createProducer({ namesrvAddr: rb.namesrvAddr, log: silent, group: "PAliPlain" });
  try {
    const committed = await tx.sendMessageInTransaction({ topic: "AliTx", body: "committed" });
    await tx.sendMessageInTransaction({ topic: "AliTx", body: "rolled back" });
    const failed = await tx.sendMessageInTransaction({ topic: "AliTx", body: "fail once" });
    const marker = await plain.send({ topic: "AliTx", body: "marker" });
    await waitFor("all delivered, the failed one twice", () => seen.length >= 4, 30_000);
    expect(seen.map((m) => [m.body, m.msgId, m.reconsumeTimes, m.tranMsg]).sort()).toEqual(
      [
        ["committed", committed.msgId, 0, "true"],
        ["fail once", failed.msgId, 0, "true"],
        ["fail once", failed.msgId, 1, "true"],
        ["marker", marker.msgId, 0, undefined],
      ].sort(),
    );
  } finally {
    await consumer.close();
    await tx.shutdown();
    await plain.shutdown();
  }
});
