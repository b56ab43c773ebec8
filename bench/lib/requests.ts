/** Requests the benchmarks make over the raw remoting client: setup, sends and pulls of 1 KiB bodies. */
import { PullSysFlag } from "../../src/protocol/headers/pull.ts";
import { SendMessageRequestHeaderV2 } from "../../src/protocol/headers/send.ts";
import { decodeRecord, encodeProperties } from "../../src/protocol/message/index.ts";
import { type RemotingClient, RemotingCommand, RequestCode } from "../../src/remoting/index.ts";

export const BODY = new Uint8Array(1024).fill(0x61);

/** The response, or an error naming the code and remark when it is not SUCCESS. */
export async function ok(p: Promise<RemotingCommand>): Promise<RemotingCommand> {
  const r = await p;
  if (r.code !== 0) throw new Error(`broker answered ${r.code} ${r.remark}`);
  return r;
}

/** Creates `topic` on the broker at `addr` with `queues` read and write queues. */
export async function createTopic(
  c: RemotingClient,
  addr: string,
  topic: string,
  queues: number,
): Promise<void> {
  await ok(
    c.invoke(
      addr,
      RemotingCommand.request(RequestCode.UPDATE_AND_CREATE_TOPIC, {
        topic,
        readQueueNums: String(queues),
        writeQueueNums: String(queues),
        perm: "6",
        topicFilterType: "SINGLE_TAG",
      }),
    ),
  );
}

export function sendRequest(
  topic: string,
  queueId: number,
  body: Uint8Array = BODY,
  batch = false,
  properties = encodeProperties(new Map([["TAGS", "bench"]])),
): RemotingCommand {
  const ext = SendMessageRequestHeaderV2.encode({
    producerGroup: "BENCH_PG",
    topic,
    defaultTopic: "TBW102",
    defaultTopicQueueNums: 4,
    queueId,
    sysFlag: 0,
    bornTimestamp: Date.now(),
    flag: 0,
    properties,
    reconsumeTimes: 0,
    unitMode: false,
    ...(batch ? { batch: true } : {}),
  });
  return RemotingCommand.request(RequestCode.SEND_MESSAGE_V2, ext, body);
}

export function pullRequest(topic: string, queueId: number, offset: number, suspendMs = 0): RemotingCommand {
  return RemotingCommand.request(RequestCode.PULL_MESSAGE, {
    consumerGroup: "BENCH_CG",
    topic,
    queueId: String(queueId),
    queueOffset: String(offset),
    maxMsgNums: "32",
    sysFlag: String(PullSysFlag.SUBSCRIPTION | (suspendMs > 0 ? PullSysFlag.SUSPEND : 0)),
    commitOffset: "0",
    suspendTimeoutMillis: String(suspendMs),
    subscription: "*",
    subVersion: "0",
    expressionType: "TAG",
  });
}

/** Every record of a pull body, decoded. */
export function decodeRecords(body: Uint8Array) {
  const out = [];
  for (let pos = 0; pos < body.length; ) {
    const r = decodeRecord(body, pos);
    out.push(r);
    pos += r.storeSize;
  }
  return out;
}
