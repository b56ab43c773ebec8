/**
 * POP requests the benchmarks make over the raw remoting client: POP_MESSAGE, and the
 * BATCH_ACK_MESSAGE a Java client builds for a whole pop response (spec pop-timer-filter §A.8:
 * one entry per queue, a little-endian bit set of offsets from the batch's start offset).
 */
import {
  PopMessageRequestHeader,
  PopMessageResponseHeader,
  parseMsgOffsetInfo,
  parseStartOffsetInfo,
} from "../../src/protocol/headers/pop.ts";
import { RemotingCommand, RequestCode } from "../../src/remoting/index.ts";

export function popRequest(group: string, topic: string, invisibleTime: number, max = 32): RemotingCommand {
  return RemotingCommand.request(
    RequestCode.POP_MESSAGE,
    PopMessageRequestHeader.encode({
      consumerGroup: group,
      topic,
      queueId: -1,
      maxMsgNums: max,
      invisibleTime,
      pollTime: 0,
      bornTime: Date.now(),
      initMode: 0,
      expType: "TAG",
      exp: "*",
    }),
  );
}

/** Messages in a pop response, from its msgOffsetInfo (the body is not decoded). */
export function poppedCount(reply: RemotingCommand): number {
  const h = PopMessageResponseHeader.decode(reply.extFields);
  let n = 0;
  for (const offsets of parseMsgOffsetInfo(h.msgOffsetInfo ?? "").values()) n += offsets.length;
  return n;
}

/** One BATCH_ACK_MESSAGE acking every message of `reply`. */
export function batchAckRequest(group: string, topic: string, reply: RemotingCommand): RemotingCommand {
  const h = PopMessageResponseHeader.decode(reply.extFields);
  const starts = parseStartOffsetInfo(h.startOffsetInfo ?? "");
  const acks = [];
  for (const [key, offsets] of parseMsgOffsetInfo(h.msgOffsetInfo ?? "")) {
    const [flag, queueId] = key.split("@") as [string, string];
    const so = starts.get(key)!;
    const bits = new Uint8Array(((offsets[offsets.length - 1]! - so) >> 3) + 1);
    for (const o of offsets) bits[(o - so) >> 3]! |= 1 << ((o - so) & 7);
    acks.push({
      b: Buffer.from(bits).toString("base64"),
      c: group,
      it: h.invisibleTime,
      pt: h.popTime,
      q: Number(queueId),
      r: flag,
      rq: h.reviveQid,
      so,
      t: topic,
    });
  }
  const body = new TextEncoder().encode(JSON.stringify({ acks, brokerName: "broker-a" }));
  return RemotingCommand.request(RequestCode.BATCH_ACK_MESSAGE, {}, body);
}
