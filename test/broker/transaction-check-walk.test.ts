/**
 * The check walk passes the halves op records finished without reading their units (spec broker
 * §10.3): with thousands finished before one that is not, it still finds that one, puts a checked
 * copy back, and commits the walk's offset past everything it passed.
 */
import { expect, test } from "bun:test";
import { ConsumerOffsets } from "../../broker/metadata/consumer-offsets.ts";
import type { ClientManager } from "../../broker/services/client-manager.ts";
import { TransactionCheckService } from "../../broker/services/transaction/check-service.ts";
import { HalfProgress } from "../../broker/services/transaction/half-progress.ts";
import { MemoryMessageStore } from "../../broker/store/memory-store.ts";
import type { MessageToStore } from "../../broker/store/message-store.ts";
import type { TopicManager } from "../../broker/topics/topic-manager.ts";
import { encodeProperties, MessageConst } from "../../src/protocol/message/index.ts";
import { TRANS_HALF_TOPIC } from "../../src/protocol/topic-names.ts";
import { HALF_QUEUE_ID, TRANS_CHECK_GROUP } from "../../src/protocol/transaction.ts";
import type { RemotingEndpoint } from "../../src/remoting/endpoint.ts";
import { silent } from "../integration/harness.ts";

const host = { ip: new Uint8Array([127, 0, 0, 1]), port: 10911 };

function half(bornTimestamp: number): MessageToStore {
  const properties = new Map([
    [MessageConst.PGROUP, "G"],
    [MessageConst.REAL_TOPIC, "T"],
    [MessageConst.REAL_QID, "0"],
    [MessageConst.TRAN_MSG, "true"],
  ]);
  return {
    topic: TRANS_HALF_TOPIC,
    queueId: HALF_QUEUE_ID,
    flag: 0,
    body: new Uint8Array([1, 2, 3]),
    properties,
    propertiesString: encodeProperties(properties),
    bornTimestamp,
    bornHost: host,
    storeHost: host,
    sysFlag: 0,
    reconsumeTimes: 0,
    preparedTransactionOffset: 0,
  };
}

test("a walk passes 5,000 finished halves to the one unfinished and checks only it", async () => {
  const store = new MemoryMessageStore();
  await store.open();
  const now = Date.now();
  for (let i = 0; i < 5002; i++) await store.putMessage(half(now - 60_000));
  const offsets = new ConsumerOffsets("/nonexistent", silent);
  const progress = new HalfProgress(store, offsets);
  const finished = Array.from({ length: 5002 }, (_, i) => i).filter((i) => i !== 4321);
  progress.markFinished(finished);
  const service = new TransactionCheckService({
    config: {
      transactionTimeOut: 1000,
      transactionCheckMax: 15,
      transactionCheckInterval: 10,
      fileReservedTime: 72,
    },
    store,
    offsets,
    topics: { createIfAbsent: async () => undefined } as unknown as TopicManager,
    clients: { producerChannels: () => [] } as unknown as ClientManager,
    endpoint: () => ({}) as RemotingEndpoint,
    brokerName: "b",
    storeHost: () => host,
    progress,
    stats: { checksSent: 0, discarded: 0, committed: 0, rolledBack: 0 },
    log: silent,
  });
  await service.start();
  try {
    // The unfinished half is put back once, checked: one more unit in the half queue.
    for (let i = 0; i < 200 && store.getMaxOffsetInQueue(TRANS_HALF_TOPIC, HALF_QUEUE_ID) < 5003; i++) {
      await Bun.sleep(10);
    }
  } finally {
    await service.stop();
  }
  expect(store.getMaxOffsetInQueue(TRANS_HALF_TOPIC, HALF_QUEUE_ID)).toBe(5003);
  // Every original half walked past; the copy at 5002 is too young to check yet.
  expect(offsets.query(TRANS_CHECK_GROUP, TRANS_HALF_TOPIC, HALF_QUEUE_ID)).toBe(5002);
  expect(progress.isFinished(4321)).toBe(false);
});
