/**
 * Raw-frame POP helpers shared by the POP integration tests: a POP_MESSAGE request, the receipt
 * handles a Java client builds from a reply (§A.5.4), ACK_MESSAGE by handle, and a tagged send.
 */
import { expect } from "bun:test";
import {
  AckMessageRequestHeader,
  encodeReceiptHandle,
  PopMessageRequestHeader,
  PopMessageResponseHeader,
  parseMsgOffsetInfo,
  parseStartOffsetInfo,
} from "../../src/protocol/headers/pop.ts";
import { MessageConst } from "../../src/protocol/message/index.ts";
import { type RemotingClient, RequestCode, ResponseCode } from "../../src/remoting/index.ts";
import { decodeRecords, request, sendRequest } from "./harness.ts";

export const BROKER = "broker-it";

export interface PopSpec {
  group: string;
  topic: string;
  queueId?: number;
  max?: number;
  invisibleMs?: number;
  pollMs?: number;
  order?: boolean;
  attemptId?: string;
}

export function popRequest(p: PopSpec) {
  return request(
    RequestCode.POP_MESSAGE,
    PopMessageRequestHeader.encode({
      consumerGroup: p.group,
      topic: p.topic,
      queueId: p.queueId ?? -1,
      maxMsgNums: p.max ?? 32,
      invisibleTime: p.invisibleMs ?? 60_000,
      pollTime: p.pollMs ?? 0,
      bornTime: Date.now(),
      initMode: 0,
      expType: "TAG",
      exp: "*",
      ...(p.order !== undefined ? { order: p.order } : {}),
      ...(p.attemptId !== undefined ? { attemptId: p.attemptId } : {}),
    }),
  );
}

/** The handles a Java client builds from a POP response (§A.5.4), in body order. */
export function handlesOf(reply: { extFields?: Record<string, string> | null; body: Uint8Array | null }) {
  const h = PopMessageResponseHeader.decode(reply.extFields);
  const starts = parseStartOffsetInfo(h.startOffsetInfo ?? "");
  const msgOffsets = parseMsgOffsetInfo(h.msgOffsetInfo ?? "");
  return decodeRecords(reply.body).map((r) => {
    const ck = r.properties.get("POP_CK");
    if (ck) return { record: r, handle: ck };
    const key = `0@${r.queueId}`;
    return {
      record: r,
      handle: encodeReceiptHandle({
        ckQueueOffset: starts.get(key)!,
        popTime: h.popTime,
        invisibleTime: h.invisibleTime,
        reviveQid: h.reviveQid,
        retryFlag: "0",
        brokerName: BROKER,
        queueId: r.queueId,
        queueOffset: msgOffsets.get(key)!.find((o) => o === r.queueOffset)!,
      }),
    };
  });
}

export function ack(
  c: RemotingClient,
  addr: string,
  group: string,
  topic: string,
  queueId: number,
  handle: string,
) {
  const offset = Number(handle.split(" ")[7]);
  return c.invoke(
    addr,
    request(
      RequestCode.ACK_MESSAGE,
      AckMessageRequestHeader.encode({ consumerGroup: group, topic, queueId, extraInfo: handle, offset }),
    ),
  );
}

export async function send(c: RemotingClient, addr: string, topic: string, body: string) {
  const reply = await c.invoke(
    addr,
    sendRequest({
      topic,
      body,
      tags: "T",
      queueId: 0,
      properties: { [MessageConst.UNIQ_KEY]: `UNIQ-${body}` },
    }),
  );
  expect(reply.code).toBe(ResponseCode.SUCCESS);
  return reply;
}
