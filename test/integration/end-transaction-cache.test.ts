/**
 * END_TRANSACTION commits from the half cache (the body a view of its slab) or, on a miss, from
 * the half record read back from the store: both paths must store the same committed record.
 * Two identical halves (same body, properties and birth) are committed, one before a restart
 * (cached) and one after (read): the records may differ only where they were placed.
 */
import { expect, test } from "bun:test";
import { EndTransactionRequestHeader } from "../../src/protocol/headers/transaction.ts";
import type { DecodedRecord } from "../../src/protocol/message/index.ts";
import { MessageSysFlag } from "../../src/protocol/message/index.ts";
import { RequestCode, ResponseCode, SerializeType } from "../../src/remoting/index.ts";
import { createTopic, request, startBroker } from "./harness.ts";
import { sendOk, waitRecords } from "./redelivery-support.ts";

const HALF = "RMQ_SYS_TRANS_HALF_TOPIC";

/** A record's fields but those its place decides (offsets, store time, the half it copies). */
function unplaced(r: DecodedRecord) {
  const { queueOffset, physicalOffset, storeTimestamp, preparedTransactionOffset, msgId, ...rest } = r;
  return { ...rest, body: [...rest.body], properties: Object.fromEntries(rest.properties) };
}

test("a commit from the half cache and one from the store after a restart store the same record", async () => {
  await using h = await startBroker();
  let c = h.client();
  await createTopic(c, h.addr, "TTxC", 2);
  const body = new Uint8Array(1500).map((_, i) => i % 251);
  const bornTimestamp = Date.now() - 1000;
  for (let i = 0; i < 2; i++) {
    await sendOk(c, h.addr, {
      topic: "TTxC",
      queueId: 1,
      body,
      tags: "TagC",
      keys: "K1 K2",
      bornTimestamp,
      sysFlag: MessageSysFlag.TRANSACTION_PREPARED_TYPE,
      properties: { TRAN_MSG: "true", PGROUP: "PG", UNIQ_KEY: "UC", custom: "ü ✓" },
    });
  }
  const halves = await waitRecords(c, h.addr, HALF, 0, 2);
  const end = async (i: number) => {
    const ext = EndTransactionRequestHeader.encode({
      producerGroup: "PG",
      tranStateTableOffset: halves[i]!.queueOffset,
      commitLogOffset: halves[i]!.physicalOffset,
      commitOrRollback: MessageSysFlag.TRANSACTION_COMMIT_TYPE,
      fromTransactionCheck: false,
      msgId: "UC",
    });
    const r = await c.invoke(h.addr, request(RequestCode.END_TRANSACTION, ext, null, SerializeType.JSON));
    expect(r.code).toBe(ResponseCode.SUCCESS);
  };
  await end(0);
  await h.restart(); // an empty half cache: the second END reads its half from the store
  c = h.client();
  await end(1);
  const [cached, read] = await waitRecords(c, h.addr, "TTxC", 1, 2);
  expect(cached!.preparedTransactionOffset).toBe(halves[0]!.physicalOffset);
  expect(read!.preparedTransactionOffset).toBe(halves[1]!.physicalOffset);
  expect(cached!.storeSize).toBe(read!.storeSize);
  expect(unplaced(cached!)).toEqual(unplaced(read!));
});
