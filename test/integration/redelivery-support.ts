/**
 * Raw-frame helpers for the redelivery tests (send-back, retry/DLQ topics, delay levels, timers):
 * one send, the records of a queue, a wait for them, CONSUMER_SEND_MSG_BACK and group creation.
 */
import { ConsumerSendMsgBackRequestHeader } from "../../src/protocol/headers/redelivery.ts";
import type { DecodedRecord } from "../../src/protocol/message/index.ts";
import {
  type ExtFields,
  type RemotingClient,
  type RemotingCommand,
  RequestCode,
  SerializeType,
} from "../../src/remoting/index.ts";
import { decodeRecords, json, pullRequest, request, type SendSpec, sendRequest, waitFor } from "./harness.ts";

const utf8 = new TextEncoder();

/** Sends one message; throws unless the broker answers SUCCESS. */
export async function sendOk(
  c: RemotingClient,
  addr: string,
  spec: SendSpec,
  st: SerializeType = SerializeType.JSON,
): Promise<ExtFields> {
  const r = await c.invoke(addr, sendRequest(spec, st));
  if (r.code !== 0) throw new Error(`send to ${spec.topic}: ${r.code} ${r.remark}`);
  return r.extFields ?? {};
}

/** Every record of one queue from `offset`, pulled page by page up to the queue's end (no wait). */
export async function records(
  c: RemotingClient,
  addr: string,
  topic: string,
  queueId = 0,
  offset = 0,
): Promise<DecodedRecord[]> {
  const out: DecodedRecord[] = [];
  for (let at = offset; ; ) {
    const r = await c.invoke(
      addr,
      pullRequest({ group: "IT_READER", topic, queueId, offset: at, maxMsgNums: 32 }),
    );
    if (r.code !== 0) return out;
    const page = decodeRecords(r.body);
    if (page.length === 0) return out;
    out.push(...page);
    at = page.at(-1)!.queueOffset + 1;
  }
}

/** Waits until the queue holds at least `n` records, then returns them all. */
export function waitRecords(
  c: RemotingClient,
  addr: string,
  topic: string,
  queueId: number,
  n: number,
  limitMs?: number,
): Promise<DecodedRecord[]> {
  return waitFor(
    `${n} record(s) in ${topic}/${queueId}`,
    async () => {
      const got = await records(c, addr, topic, queueId);
      return got.length >= n ? got : undefined;
    },
    limitMs,
  );
}

export interface SendBackSpec {
  offset: number | string;
  group: string;
  delayLevel: number;
  maxReconsumeTimes?: number;
  originMsgId?: string;
  originTopic?: string;
}

/** CONSUMER_SEND_MSG_BACK (36) as a Java consumer builds it. */
export function sendBackRequest(s: SendBackSpec, st: SerializeType = SerializeType.JSON): RemotingCommand {
  const ext = ConsumerSendMsgBackRequestHeader.encode({
    offset: 0,
    group: s.group,
    delayLevel: s.delayLevel,
    unitMode: false,
    ...(s.originMsgId ? { originMsgId: s.originMsgId } : {}),
    ...(s.originTopic ? { originTopic: s.originTopic } : {}),
    ...(s.maxReconsumeTimes !== undefined ? { maxReconsumeTimes: s.maxReconsumeTimes } : {}),
  });
  ext.offset = String(s.offset);
  return request(RequestCode.CONSUMER_SEND_MSG_BACK, ext, null, st);
}

/** UPDATE_AND_CREATE_SUBSCRIPTIONGROUP (200) with the given settings. */
export async function createGroup(
  c: RemotingClient,
  addr: string,
  groupName: string,
  settings: Record<string, unknown> = {},
): Promise<void> {
  const body = utf8.encode(JSON.stringify({ groupName, ...settings }));
  const r = await c.invoke(addr, request(RequestCode.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP, null, body));
  if (r.code !== 0) throw new Error(`create group ${groupName}: ${r.code} ${r.remark}`);
}

/** The broker's config of one topic, from GET_ALL_TOPIC_CONFIG. */
export async function topicConfigOf(c: RemotingClient, addr: string, topic: string): Promise<unknown> {
  const r = await c.invoke(addr, request(RequestCode.GET_ALL_TOPIC_CONFIG));
  return (json(r.body) as { topicConfigTable: Record<string, unknown> }).topicConfigTable[topic];
}

/** A record's properties as a plain object, for whole-object comparison. */
export function propsOf(r: DecodedRecord): Record<string, string> {
  return Object.fromEntries(r.properties);
}
