/**
 * Transactions as raw frames in both serializations (spec broker §10): the half send, END_TRANSACTION
 * (37) commit and rollback with the op records they write, every refusal with Java's code and
 * remark, no answer to an unknown state, batches and rejectTransactionMessage, and the
 * CHECK_TRANSACTION_STATE (39) a registered producer receives and answers.
 */
import { describe, expect, test } from "bun:test";
import { EndTransactionRequestHeader } from "../../src/protocol/headers/transaction.ts";
import { decodeRecord, encodeBatch, MessageSysFlag } from "../../src/protocol/message/index.ts";
import {
  type RemotingClient,
  RemotingCommand,
  RequestCode,
  ResponseCode,
  type SerializeType,
} from "../../src/remoting/index.ts";
import {
  createTopic,
  heartbeatBody,
  request,
  SERIALIZE_TYPES,
  sendRequest,
  startBroker,
  waitFor,
} from "./harness.ts";
import { propsOf, records, sendOk, waitRecords } from "./redelivery-support.ts";

const HALF = "RMQ_SYS_TRANS_HALF_TOPIC";
const OP = "RMQ_SYS_TRANS_OP_HALF_TOPIC";
const BROKER_KEYS = { CLUSTER: "DefaultCluster", MSG_REGION: "DefaultRegion", TRACE_ON: "true" };

interface EndSpec {
  producerGroup?: string;
  tranStateTableOffset: number;
  commitLogOffset: number;
  commitOrRollback: number;
  fromTransactionCheck?: boolean;
  msgId?: string;
}

function endRequest(s: EndSpec, st: SerializeType): RemotingCommand {
  const ext = EndTransactionRequestHeader.encode({
    producerGroup: s.producerGroup ?? "PG",
    tranStateTableOffset: s.tranStateTableOffset,
    commitLogOffset: s.commitLogOffset,
    commitOrRollback: s.commitOrRollback,
    fromTransactionCheck: s.fromTransactionCheck ?? false,
    msgId: s.msgId ?? "U1",
  });
  return request(RequestCode.END_TRANSACTION, ext, null, st);
}

/** Sends a half message (TRAN_MSG, PGROUP PG, PREPARED sysFlag) to `topic` queue 1. */
async function sendHalf(
  c: RemotingClient,
  addr: string,
  topic: string,
  uniq: string,
  st: SerializeType,
  extra = {},
) {
  return sendOk(
    c,
    addr,
    {
      topic,
      queueId: 1,
      body: "half ✓",
      tags: "TagT",
      sysFlag: MessageSysFlag.TRANSACTION_PREPARED_TYPE,
      properties: { TRAN_MSG: "true", PGROUP: "PG", UNIQ_KEY: uniq, ...extra },
    },
    st,
  );
}

async function answerOf(c: RemotingClient, addr: string, req: RemotingCommand) {
  const r = await c.invoke(addr, req);
  return { code: r.code, remark: r.remark };
}

describe.each(SERIALIZE_TYPES)("%s headers", (_name, st) => {
  test("a half message waits in RMQ_SYS_TRANS_HALF_TOPIC queue 0 with its destination and transaction id; the answer names the half record", async () => {
    await using h = await startBroker();
    const c = h.client();
    await createTopic(c, h.addr, "TTx", 2);
    const ext = await sendHalf(c, h.addr, "TTx", "U1", st);
    const [half] = await waitRecords(c, h.addr, HALF, 0, 1);
    expect({
      queueId: ext.queueId,
      queueOffset: ext.queueOffset,
      transactionId: ext.transactionId,
      msgId: ext.msgId,
    }).toEqual({
      queueId: "1",
      queueOffset: "0",
      transactionId: "U1",
      msgId: half!.msgId,
    });
    expect({
      topic: half!.topic,
      queueId: half!.queueId,
      txType: half!.sysFlag & 0xc,
      props: propsOf(half!),
    }).toEqual({
      topic: HALF,
      queueId: 0,
      txType: MessageSysFlag.TRANSACTION_NOT_TYPE,
      props: {
        ...BROKER_KEYS,
        TAGS: "TagT",
        TRAN_MSG: "true",
        PGROUP: "PG",
        UNIQ_KEY: "U1",
        __transactionId__: "U1",
        REAL_TOPIC: "TTx",
        REAL_QID: "1",
      },
    });
    expect(await records(c, h.addr, "TTx", 1)).toEqual([]);
  });

  test("RESUME_CHECK_HALF_MESSAGE puts a half message back into the half queue with TRANSACTION_CHECK_TIMES 0; a bad id gets Java's remark", async () => {
    await using h = await startBroker();
    const c = h.client();
    await createTopic(c, h.addr, "TTx", 2);
    await sendHalf(c, h.addr, "TTx", "U1", st, { TRANSACTION_CHECK_TIMES: "15" });
    const [half] = await waitRecords(c, h.addr, HALF, 0, 1);
    const resume = (msgId: string) =>
      answerOf(c, h.addr, request(RequestCode.RESUME_CHECK_HALF_MESSAGE, { msgId }, null, st));
    expect(await resume(half!.msgId)).toEqual({ code: 0, remark: null });
    const [, again] = await waitRecords(c, h.addr, HALF, 0, 2);
    const { TRANSACTION_CHECK_TIMES, WAIT, ...kept } = propsOf(again!);
    const { TRANSACTION_CHECK_TIMES: before, ...original } = propsOf(half!);
    expect({
      before,
      TRANSACTION_CHECK_TIMES,
      WAIT,
      kept,
      body: new TextDecoder().decode(again!.body),
    }).toEqual({
      before: "15",
      TRANSACTION_CHECK_TIMES: "0",
      WAIT: "false",
      kept: original,
      body: "half ✓",
    });
    expect([again!.bornTimestamp, again!.sysFlag]).toEqual([half!.bornTimestamp, half!.sysFlag]);
    const exception = "Exception was thrown when putting message back to RMQ_SYS_TRANS_HALF_TOPIC.";
    expect(await resume("not-an-id")).toEqual({ code: ResponseCode.SYSTEM_ERROR, remark: exception });
  });

  test("commit stores the half's copy in its real queue with the COMMIT type and the whole properties string; rollback stores nothing; each writes an op record", async () => {
    await using h = await startBroker();
    const c = h.client();
    await createTopic(c, h.addr, "TTx", 2);
    await sendHalf(c, h.addr, "TTx", "U1", st);
    await sendHalf(c, h.addr, "TTx", "U2", st);
    const [h1, h2] = await waitRecords(c, h.addr, HALF, 0, 2);
    const commit = { tranStateTableOffset: 0, commitLogOffset: h1!.physicalOffset, msgId: "U1" };
    expect(await answerOf(c, h.addr, endRequest({ ...commit, commitOrRollback: 8 }, st))).toEqual({
      code: ResponseCode.SUCCESS,
      remark: null,
    });
    const rollback = { tranStateTableOffset: 1, commitLogOffset: h2!.physicalOffset, msgId: "U2" };
    expect(await answerOf(c, h.addr, endRequest({ ...rollback, commitOrRollback: 12 }, st))).toEqual({
      code: ResponseCode.SUCCESS,
      remark: null,
    });
    const [committed, ...more] = await waitRecords(c, h.addr, "TTx", 1, 1);
    expect(more).toEqual([]);
    expect({
      body: new TextDecoder().decode(committed!.body),
      txType: committed!.sysFlag & 0xc,
      prepared: committed!.preparedTransactionOffset,
      properties: committed!.propertiesString,
      bornTimestamp: committed!.bornTimestamp,
    }).toEqual({
      body: "half ✓",
      txType: MessageSysFlag.TRANSACTION_COMMIT_TYPE,
      prepared: h1!.physicalOffset,
      properties: h1!.propertiesString,
      bornTimestamp: h1!.bornTimestamp,
    });
    const ops = await waitRecords(c, h.addr, OP, 0, 1);
    const finished = ops.flatMap((r) =>
      new TextDecoder()
        .decode(r.body)
        .split(",")
        .filter((s) => s !== ""),
    );
    expect({ finished: finished.sort(), tags: ops.map((r) => r.properties.get("TAGS")) }).toEqual({
      finished: ["0", "1"],
      tags: ops.map(() => "d"),
    });
  });

  test("a wrong producer group, queue offset or CommitLog offset, or no half at the offset, is refused with Java's remark", async () => {
    await using h = await startBroker();
    const c = h.client();
    await createTopic(c, h.addr, "TTx", 2);
    await sendOk(c, h.addr, { topic: "TTx", body: "plain" }, st);
    await sendHalf(c, h.addr, "TTx", "U1", st);
    const [plain] = await waitRecords(c, h.addr, "TTx", 0, 1);
    const [half] = await waitRecords(c, h.addr, HALF, 0, 1);
    const base = { tranStateTableOffset: 0, commitLogOffset: half!.physicalOffset, commitOrRollback: 8 };
    const missingGroup = endRequest(base, st);
    delete missingGroup.extFields!.producerGroup;
    expect({
      group: await answerOf(c, h.addr, endRequest({ ...base, producerGroup: "OTHER" }, st)),
      queueOffset: await answerOf(c, h.addr, endRequest({ ...base, tranStateTableOffset: 7 }, st)),
      notHalf: await answerOf(c, h.addr, endRequest({ ...base, commitLogOffset: plain!.physicalOffset }, st)),
      beyond: await answerOf(c, h.addr, endRequest({ ...base, commitLogOffset: 1 << 30 }, st)),
      missing: await answerOf(c, h.addr, missingGroup),
      rollbackWrongGroup: await answerOf(
        c,
        h.addr,
        endRequest({ ...base, commitOrRollback: 12, producerGroup: "OTHER" }, st),
      ),
    }).toEqual({
      group: { code: ResponseCode.SYSTEM_ERROR, remark: "The producer group wrong" },
      queueOffset: { code: ResponseCode.SYSTEM_ERROR, remark: "The transaction state table offset wrong" },
      notHalf: { code: ResponseCode.SYSTEM_ERROR, remark: "Find prepared transaction message failed" },
      beyond: { code: ResponseCode.SYSTEM_ERROR, remark: "Find prepared transaction message failed" },
      missing: { code: ResponseCode.SYSTEM_ERROR, remark: "the custom field <producerGroup> is null" },
      rollbackWrongGroup: { code: ResponseCode.SYSTEM_ERROR, remark: "The producer group wrong" },
    });
    // Nothing was committed or finished by the refusals.
    expect((await records(c, h.addr, "TTx", 1)).length).toBe(0);
    expect(await records(c, h.addr, OP, 0)).toEqual([]);
  });

  test("an unknown state (0) or any other number gets no answer and changes nothing", async () => {
    await using h = await startBroker();
    const c = h.client();
    await createTopic(c, h.addr, "TTx", 2);
    await sendHalf(c, h.addr, "TTx", "U1", st);
    const [half] = await waitRecords(c, h.addr, HALF, 0, 1);
    const base = { tranStateTableOffset: 0, commitLogOffset: half!.physicalOffset };
    for (const commitOrRollback of [0, 5]) {
      await expect(c.invoke(h.addr, endRequest({ ...base, commitOrRollback }, st), 300)).rejects.toThrow();
    }
    expect(await records(c, h.addr, OP, 0)).toEqual([]);
    expect((await answerOf(c, h.addr, endRequest({ ...base, commitOrRollback: 12 }, st))).code).toBe(0);
  });

  test("a half message with CHECK_IMMUNITY_TIME_IN_SECONDS older than that may not be ended by its producer, only by a check answer", async () => {
    await using h = await startBroker();
    const c = h.client();
    await createTopic(c, h.addr, "TTx", 2);
    const born = Date.now() - 10_000;
    await sendOk(
      c,
      h.addr,
      {
        topic: "TTx",
        queueId: 1,
        body: "x",
        bornTimestamp: born,
        sysFlag: 4,
        properties: { TRAN_MSG: "true", PGROUP: "PG", UNIQ_KEY: "U1", CHECK_IMMUNITY_TIME_IN_SECONDS: "2" },
      },
      st,
    );
    const [half] = await waitRecords(c, h.addr, HALF, 0, 1);
    const base = { tranStateTableOffset: 0, commitLogOffset: half!.physicalOffset, commitOrRollback: 8 };
    expect(await answerOf(c, h.addr, endRequest(base, st))).toEqual({
      code: ResponseCode.ILLEGAL_OPERATION,
      remark: null,
    });
    expect(await answerOf(c, h.addr, endRequest({ ...base, fromTransactionCheck: true }, st))).toEqual({
      code: ResponseCode.SUCCESS,
      remark: null,
    });
  });

  test("a batch with transaction bits is refused as the store refuses it; rejectTransactionMessage refuses half messages", async () => {
    await using h = await startBroker({ rejectTransactionMessage: "true" });
    const c = h.client();
    await createTopic(c, h.addr, "TTx", 2);
    const batch = encodeBatch([{ flag: 0, body: new TextEncoder().encode("b"), properties: "" }]);
    const batchReq = sendRequest(
      { topic: "TTx", body: batch, batch: true, code: RequestCode.SEND_BATCH_MESSAGE, sysFlag: 4 },
      st,
    );
    expect(await answerOf(c, h.addr, batchReq)).toEqual({
      code: ResponseCode.MESSAGE_ILLEGAL,
      remark:
        "the message is illegal, maybe msg body or properties length not matched. msg body length limit 4194304B, msg properties length limit 32KB.",
    });
    const half = sendRequest(
      { topic: "TTx", body: "x", sysFlag: 4, properties: { TRAN_MSG: "true", PGROUP: "PG" } },
      st,
    );
    expect(await answerOf(c, h.addr, half)).toEqual({
      code: ResponseCode.NO_PERMISSION,
      remark: "the broker[127.0.0.1] sending transaction message is forbidden",
    });
  });
});

test("a producer registered by heartbeat gets CHECK_TRANSACTION_STATE on its connection, with the copy in stored format; its answer commits", async () => {
  await using h = await startBroker({ transactionCheckInterval: "100", transactionTimeOut: "0" });
  const c = h.client();
  await createTopic(c, h.addr, "TTx", 2);
  const checks: RemotingCommand[] = [];
  c.registry.register(RequestCode.CHECK_TRANSACTION_STATE, (req) => {
    checks.push(req);
    return null;
  });
  const hb = await c.invoke(
    h.addr,
    request(RequestCode.HEART_BEAT, null, heartbeatBody("raw@1", undefined, "PG")),
  );
  expect(hb.code).toBe(0);
  const sent = await sendHalf(c, h.addr, "TTx", "U1", SERIALIZE_TYPES[0]![1]);
  await waitFor("a check", () => checks.length > 0);
  const check = checks[0]!;
  const ext = check.extFields!;
  const rec = decodeRecord(check.body!);
  expect({
    flag: check.flag & 2,
    header: {
      topic: ext.topic,
      msgId: ext.msgId,
      transactionId: ext.transactionId,
      tranStateTableOffset: ext.tranStateTableOffset,
      bname: ext.bname,
    },
    body: {
      topic: rec.topic,
      queueId: rec.queueId,
      checkTimes: rec.properties.get("TRANSACTION_CHECK_TIMES"),
    },
    offsets: { commitLogOffset: Number(ext.commitLogOffset), queueOffset: Number(ext.tranStateTableOffset) },
  }).toEqual({
    flag: 2,
    header: {
      topic: "TTx",
      msgId: "U1",
      transactionId: "U1",
      tranStateTableOffset: "1",
      bname: h.broker.context.brokerConfig.brokerName,
    },
    body: { topic: "TTx", queueId: 1, checkTimes: "1" },
    offsets: { commitLogOffset: rec.physicalOffset, queueOffset: 1 },
  });
  expect(sent.queueOffset).toBe("0");
  const answer = EndTransactionRequestHeader.encode({
    producerGroup: "PG",
    tranStateTableOffset: Number(ext.tranStateTableOffset),
    commitLogOffset: Number(ext.commitLogOffset),
    commitOrRollback: 8,
    fromTransactionCheck: true,
    msgId: "U1",
  });
  await c.invokeOneway(h.addr, RemotingCommand.request(RequestCode.END_TRANSACTION, answer), 1000);
  const [committed] = await waitRecords(c, h.addr, "TTx", 1, 1);
  expect(committed!.properties.get("UNIQ_KEY")).toBe("U1");
});
