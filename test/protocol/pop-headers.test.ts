/**
 * POP wire formats against the spec's verified examples (pop-timer-filter §A.5.2, §A.6, §A.15):
 * receipt handles of 8 and 9 fields, the three offset-info strings, and the POP / ACK / CHANGE
 * headers through a whole frame in both header serializations.
 */
import { describe, expect, test } from "bun:test";
import {
  AckMessageRequestHeader,
  ChangeInvisibleTimeRequestHeader,
  ChangeInvisibleTimeResponseHeader,
  decodeReceiptHandle,
  encodeMsgOffsetInfo,
  encodeOrderCountInfo,
  encodeReceiptHandle,
  encodeStartOffsetInfo,
  NotificationResponseHeader,
  PollingInfoResponseHeader,
  PopMessageRequestHeader,
  PopMessageResponseHeader,
  parseMsgOffsetInfo,
  parseOrderCountInfo,
  parseStartOffsetInfo,
  popRetryTopicV1,
  popRetryTopicV2,
  ReceiptHandleError,
  realTopicOf,
  retryFlagOfTopic,
} from "../../src/protocol/headers/pop.ts";
import { decodeFrame, encodeFrame } from "../../src/remoting/frame.ts";
import { RemotingCommand, RequestCode, SerializeType } from "../../src/remoting/index.ts";
import { SERIALIZE_TYPES } from "../support/frames.ts";

describe("receipt handle", () => {
  test("the spec's original-topic handle decodes field by field and encodes back to the same text", () => {
    const text = "100 1700000000000 60000 3 0 broker-a 2 105";
    const h = decodeReceiptHandle(text);
    expect(h).toEqual({
      ckQueueOffset: 100,
      popTime: 1700000000000,
      invisibleTime: 60000,
      reviveQid: 3,
      retryFlag: "0",
      brokerName: "broker-a",
      queueId: 2,
      queueOffset: 105,
    });
    expect(encodeReceiptHandle(h)).toBe(text);
  });

  test("a V1 retry-copy handle names the retry topic as its real topic", () => {
    const h = decodeReceiptHandle("7 1700000000000 60000 3 1 broker-a 0 7");
    expect(realTopicOf(h.retryFlag, "TopicA", "GID_A")).toBe("%RETRY%GID_A_TopicA");
    expect(realTopicOf("2", "TopicA", "GID_A")).toBe("%RETRY%GID_A+TopicA");
    expect(realTopicOf("0", "TopicA", "GID_A")).toBe("TopicA");
  });

  test("a proxy's 9-field handle keeps the commit-log offset and round-trips; a 10th field is ignored", () => {
    const text = "100 1700000000000 60000 3 0 broker-a 2 105 123456";
    expect(decodeReceiptHandle(text).commitLogOffset).toBe(123456);
    expect(encodeReceiptHandle(decodeReceiptHandle(text))).toBe(text);
    expect(decodeReceiptHandle(`${text} extra`).queueOffset).toBe(105);
  });

  test("fewer than 8 fields or a non-number field is refused", () => {
    expect(() => decodeReceiptHandle("100 1700000000000 60000 3 0 broker-a 2")).toThrow(ReceiptHandleError);
    expect(() => decodeReceiptHandle("x 1700000000000 60000 3 0 broker-a 2 105")).toThrow(ReceiptHandleError);
    expect(() => decodeReceiptHandle("")).toThrow(ReceiptHandleError);
  });

  test("retry flags follow the topic name as the client derives them", () => {
    expect(retryFlagOfTopic("TopicA")).toBe("0");
    expect(retryFlagOfTopic(popRetryTopicV1("TopicA", "GID_A"))).toBe("1");
    expect(retryFlagOfTopic(popRetryTopicV2("TopicA", "GID_A"))).toBe("2");
  });
});

describe("offset infos", () => {
  const batch = [
    { flag: "1", queueId: 0, startOffset: 7, offsets: [7] },
    { flag: "0", queueId: 2, startOffset: 100, offsets: [100, 101, 103] },
  ];

  test("one retry message and three of queue 2 (102 filtered out) give the spec's strings", () => {
    expect(encodeStartOffsetInfo(batch)).toBe("1 0 7;0 2 100");
    expect(encodeMsgOffsetInfo(batch)).toBe("1 0 7;0 2 100,101,103");
  });

  test("parsing keys the entries by <flag>@<queueId>", () => {
    expect(parseStartOffsetInfo("1 0 7;0 2 100")).toEqual(
      new Map([
        ["1@0", 7],
        ["0@2", 100],
      ]),
    );
    expect(parseMsgOffsetInfo("1 0 7;0 2 100,101,103")).toEqual(
      new Map([
        ["1@0", [7]],
        ["0@2", [100, 101, 103]],
      ]),
    );
    expect(parseStartOffsetInfo("")).toEqual(new Map());
    expect(() => parseStartOffsetInfo("0 2")).toThrow(ReceiptHandleError);
  });

  test("orderCountInfo lists counts > 0 then the queue's minimum, as in the spec", () => {
    const info = encodeOrderCountInfo([
      {
        flag: "0",
        queueId: 2,
        counts: new Map([
          [100, 1],
          [101, 0],
        ]),
        minCount: 0,
      },
    ]);
    expect(info).toBe("0 qo2%100 1;0 2 0");
    expect(parseOrderCountInfo(info)).toEqual(
      new Map([
        ["0@qo2%100", 1],
        ["0@2", 0],
      ]),
    );
  });
});

describe.each(SERIALIZE_TYPES)("headers through a frame, %s header", (_name, serializeType) => {
  function roundTrip(cmd: RemotingCommand): RemotingCommand {
    cmd.serializeType = serializeType;
    return decodeFrame(encodeFrame(cmd).subarray(4));
  }

  test("POP response header keeps every field, offset infos included", () => {
    const h = {
      popTime: 1700000000000,
      invisibleTime: 60000,
      reviveQid: 3,
      restNum: 12,
      startOffsetInfo: "1 0 7;0 2 100",
      msgOffsetInfo: "1 0 7;0 2 100,101,103",
    };
    const got = roundTrip(RemotingCommand.response(0, "FOUND", PopMessageResponseHeader.encode(h)));
    expect(PopMessageResponseHeader.decode(got.extFields)).toEqual(h);
    expect(got.remark).toBe("FOUND");
  });

  test("CHANGE_MESSAGE_INVISIBLETIME response header", () => {
    const h = { popTime: 1700000000000, invisibleTime: 30000, reviveQid: 3 };
    const got = roundTrip(RemotingCommand.response(0, null, ChangeInvisibleTimeResponseHeader.encode(h)));
    expect(ChangeInvisibleTimeResponseHeader.decode(got.extFields)).toEqual(h);
  });

  test("an ordered POP response carries reviveQid 999 and orderCountInfo, byte for byte", () => {
    const h = {
      popTime: 1700000000000,
      invisibleTime: 60000,
      reviveQid: 999,
      restNum: 0,
      startOffsetInfo: "0 2 100",
      msgOffsetInfo: "0 2 100,101",
      orderCountInfo: "0 qo2%100 1;0 2 0",
    };
    const got = roundTrip(RemotingCommand.response(0, "FOUND", PopMessageResponseHeader.encode(h)));
    expect(got.extFields).toEqual({
      popTime: "1700000000000",
      invisibleTime: "60000",
      reviveQid: "999",
      restNum: "0",
      startOffsetInfo: "0 2 100",
      msgOffsetInfo: "0 2 100,101",
      orderCountInfo: "0 qo2%100 1;0 2 0",
    });
  });

  test("NOTIFICATION and POLLING_INFO response headers: booleans as true/false, counts in decimal", () => {
    const note = roundTrip(
      RemotingCommand.response(
        0,
        null,
        NotificationResponseHeader.encode({ hasMsg: true, pollingFull: false }),
      ),
    );
    const info = roundTrip(
      RemotingCommand.response(0, null, PollingInfoResponseHeader.encode({ pollingNum: 3 })),
    );
    expect({ note: note.extFields, info: info.extFields }).toEqual({
      note: { hasMsg: "true", pollingFull: "false" },
      info: { pollingNum: "3" },
    });
  });
});

describe("request headers (JSON: codes above 32767 never use the binary header)", () => {
  function roundTrip(cmd: RemotingCommand): RemotingCommand {
    cmd.serializeType = SerializeType.JSON;
    return decodeFrame(encodeFrame(cmd).subarray(4));
  }

  test("POP_MESSAGE as the proxy sends it", () => {
    const h = {
      consumerGroup: "GID_A",
      topic: "TopicA",
      queueId: -1,
      maxMsgNums: 32,
      invisibleTime: 60000,
      pollTime: 20000,
      bornTime: 0,
      initMode: 1,
      expType: "TAG",
      exp: "*",
      order: false,
    };
    const got = roundTrip(
      RemotingCommand.request(RequestCode.POP_MESSAGE, PopMessageRequestHeader.encode(h)),
    );
    expect(got.code).toBe(200050);
    expect(got.extFields?.order).toBe("false");
    expect(PopMessageRequestHeader.decode(got.extFields)).toEqual(h);
  });

  test("ACK_MESSAGE and CHANGE_MESSAGE_INVISIBLETIME carry the handle as extraInfo", () => {
    const ack = {
      consumerGroup: "GID_A",
      topic: "%RETRY%GID_A_TopicA",
      queueId: 0,
      extraInfo: "7 1700000000000 60000 3 1 broker-a 0 7",
      offset: 7,
    };
    const a = roundTrip(
      RemotingCommand.request(RequestCode.ACK_MESSAGE, AckMessageRequestHeader.encode(ack)),
    );
    expect(AckMessageRequestHeader.decode(a.extFields)).toEqual(ack);
    const change = { ...ack, invisibleTime: 10000 };
    const c = roundTrip(
      RemotingCommand.request(
        RequestCode.CHANGE_MESSAGE_INVISIBLETIME,
        ChangeInvisibleTimeRequestHeader.encode(change),
      ),
    );
    expect(c.code).toBe(200053);
    expect(ChangeInvisibleTimeRequestHeader.decode(c.extFields)).toEqual(change);
  });
});
