/** The store shape and deterministic messages shared by the crash-test child and parent. */
import type { MessageToStore } from "../../broker/store/message-store.ts";
import type { StoreOptions } from "../../broker/store/store-options.ts";
import { encodeProperties, hostAddress } from "../../src/protocol/message/index.ts";

export const CRASH_TOPIC = "Crash";
export const CRASH_QUEUES = 4;

export const CRASH_OPTIONS: Partial<StoreOptions> = {
  mappedFileSizeCommitLog: 16 * 1024,
  mappedFileSizeConsumeQueue: 64 * 20,
  maxHashSlotNum: 128,
  maxIndexNum: 512,
  flushIntervalCommitLog: 20,
  flushIntervalConsumeQueue: 30,
};

export function crashBody(round: number, seq: number): string {
  return `r${round}-s${seq}-${"x".repeat((seq * 37) % 300)}`;
}

/** The sequence number a `crashBody` carries. */
export function seqOfBody(body: string): number {
  return Number(body.slice(body.indexOf("-s") + 2, body.indexOf("-", body.indexOf("-s") + 2)));
}

export function crashMessage(round: number, seq: number): MessageToStore {
  const properties = new Map([
    ["KEYS", `r${round}s${seq}`],
    ["TAGS", `T${seq % 3}`],
  ]);
  return {
    topic: CRASH_TOPIC,
    queueId: seq % CRASH_QUEUES,
    flag: 0,
    body: new TextEncoder().encode(crashBody(round, seq)),
    properties,
    propertiesString: encodeProperties(properties),
    bornTimestamp: Date.now(),
    bornHost: hostAddress("127.0.0.1", 40000),
    storeHost: hostAddress("127.0.0.1", 10911),
    sysFlag: 0,
    reconsumeTimes: 0,
    preparedTransactionOffset: 0,
  };
}
