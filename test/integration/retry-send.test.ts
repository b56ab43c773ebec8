/**
 * The consumer's fallback (spec broker §9.3) as raw frames: when CONSUMER_SEND_MSG_BACK fails, a
 * Java consumer sends its copy to %RETRY%<group> itself, with DELAY = 3 + reconsumeTimes and the
 * counts in the header. The broker delays it like any DELAY message, sends it to %DLQ%<group>
 * once reconsumeTimes passes maxReconsumeTimes, needs the group to exist, refuses batches, and
 * creates the retry topic with the group's retryQueueNums.
 */
import { describe, expect, test } from "bun:test";
import { encodeBatch } from "../../src/protocol/message/index.ts";
import { RequestCode, ResponseCode, type SerializeType } from "../../src/remoting/index.ts";
import { SERIALIZE_TYPES, type SendSpec, sendRequest, startBroker } from "./harness.ts";
import { createGroup, propsOf, records, topicConfigOf, waitRecords } from "./redelivery-support.ts";

const LEVELS = { messageDelayLevel: "1s 1s 1s 1s 1s" };

/** A send to a retry topic with the header counts a Java consumer's fallback carries. */
function retrySend(spec: SendSpec, reconsumeTimes: number, maxReconsumeTimes: number, st: SerializeType) {
  const req = sendRequest(spec, st);
  const ext = req.extFields!;
  const long = spec.code === RequestCode.SEND_MESSAGE;
  ext[long ? "reconsumeTimes" : "j"] = String(reconsumeTimes);
  ext[long ? "maxReconsumeTimes" : "l"] = String(maxReconsumeTimes);
  return req;
}

describe.each(SERIALIZE_TYPES)("%s headers", (_name, st) => {
  test("a copy within the maximum waits its DELAY in the retry topic; one past it goes to the DLQ with DELAY −1", async () => {
    await using h = await startBroker(LEVELS);
    const c = h.client();
    await createGroup(c, h.addr, "GF", { retryQueueNums: 2 });
    const copy = (body: string, code?: number): SendSpec => ({
      topic: "%RETRY%GF",
      body,
      queueId: 0,
      code,
      properties: { RETRY_TOPIC: "TOrig", ORIGIN_MESSAGE_ID: "ID0", DELAY: "3" },
    });
    const sentAt = Date.now();
    const within = await c.invoke(h.addr, retrySend(copy("within"), 16, 16, st));
    const past = await c.invoke(h.addr, retrySend(copy("past", RequestCode.SEND_MESSAGE), 17, 16, st));
    expect([within.code, past.code]).toEqual([ResponseCode.SUCCESS, ResponseCode.SUCCESS]);
    expect((await records(c, h.addr, "%DLQ%GF")).map((m) => [propsOf(m).DELAY, m.reconsumeTimes])).toEqual([
      ["-1", 17],
    ]);
    const [retried] = await waitRecords(c, h.addr, "%RETRY%GF", 0, 1);
    expect({
      body: new TextDecoder().decode(retried!.body),
      reconsumeTimes: retried!.reconsumeTimes,
      retryTopic: propsOf(retried!).RETRY_TOPIC,
      waited: retried!.storeTimestamp - sentAt >= 1000,
    }).toEqual({ body: "within", reconsumeTimes: 16, retryTopic: "TOrig", waited: true });
    expect(await topicConfigOf(c, h.addr, "%RETRY%GF")).toMatchObject({
      readQueueNums: 2,
      writeQueueNums: 2,
    });
  });
});

test("a retry send for an unknown group, or as a batch, is refused", async () => {
  await using h = await startBroker({ ...LEVELS, autoCreateSubscriptionGroup: "false" });
  const c = h.client();
  await createGroup(c, h.addr, "GK");
  const answer = async (req: ReturnType<typeof sendRequest>) => {
    const r = await c.invoke(h.addr, req);
    return { code: r.code, remark: r.remark };
  };
  const batch = encodeBatch([{ flag: 0, body: new TextEncoder().encode("b"), properties: "" }]);
  expect({
    unknown: await answer(sendRequest({ topic: "%RETRY%NOPE", body: "x" })),
    batch: await answer(
      sendRequest({ topic: "%RETRY%GK", body: batch, batch: true, code: RequestCode.SEND_BATCH_MESSAGE }),
    ),
  }).toEqual({
    unknown: {
      code: ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST,
      remark: "subscription group not exist, NOPE",
    },
    batch: { code: ResponseCode.MESSAGE_ILLEGAL, remark: "batch request does not support retry group" },
  });
});
