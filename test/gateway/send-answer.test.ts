/**
 * The fast path writes a produce's answer by hand (sendAnswerWriter); it must be the very text
 * JSON.stringify wrote for the SendAnswer object, whatever the cluster answered.
 */
import { expect, test } from "bun:test";
import type { SendOutcome } from "../../gateway/cluster.ts";
import { sendAnswerOf, sendAnswerWriter } from "../../gateway/produce-one.ts";

const OUTCOMES: SendOutcome[] = [
  {
    msgId: "7F0000010001B2C3D4E5F60708090A0B",
    brokerName: "broker-a",
    queueId: 3,
    queueOffset: 123456,
    status: "SEND_OK",
  },
  { msgId: "A,B,C", brokerName: "broker-a", queueId: 0, queueOffset: 0, status: "FLUSH_DISK_TIMEOUT" },
  {
    msgId: 'q"uote\\',
    brokerName: 'b"r\u0001\n',
    queueId: -1,
    queueOffset: Number.MAX_SAFE_INTEGER,
    status: "é\u2028",
  },
  { msgId: "", brokerName: "", queueId: -0, queueOffset: 1e21, status: "" },
  {
    msgId: "x",
    brokerName: "broker-b",
    queueId: Number.NaN,
    queueOffset: Number.POSITIVE_INFINITY,
    status: "SEND_OK",
  },
  { msgId: "y", brokerName: "broker-a", queueId: 1.5, queueOffset: -7, status: "SEND_OK" },
];

test("the hand-written answer is JSON.stringify of the SendAnswer, broker names and statuses changing between calls", () => {
  const write = sendAnswerWriter();
  for (const topic of ["orders", "%RETRY%g|a_b-c", "T"]) {
    for (const r of [...OUTCOMES, ...OUTCOMES.toReversed()]) {
      expect(write(topic, r)).toBe(JSON.stringify(sendAnswerOf(topic, r)));
    }
  }
});
