/**
 * Read-only admin requests beyond Admin's (what the gateway's admin routes need): every topic the
 * NameServer knows, the subscription groups of every master, and a group's per-queue offsets and
 * lag from GET_CONSUME_STATS (which needs no online consumer, unlike Admin.consumerProgress).
 */
import { decodeQueueKeyedTable } from "../protocol/body/queue-keyed.ts";
import { GetConsumeStatsRequestHeader } from "../protocol/headers/admin.ts";
import { MASTER_ID } from "../protocol/route/index.ts";
import { RequestCode } from "../remoting/index.ts";
import type { ClientInstance } from "./client-instance.ts";
import { decodeAnswer } from "./errors.ts";
import { compareMq, type MessageQueue } from "./message-queue.ts";
import { call } from "./rpc.ts";

export interface QueueLag {
  mq: MessageQueue;
  brokerOffset: number;
  consumerOffset: number;
  lag: number;
  /** Store time of the last consumed message, 0 when none was. */
  lastTimestamp: number;
}

const decoder = new TextDecoder();

/** Every master broker the NameServer lists, by name. */
export async function masterBrokers(client: ClientInstance): Promise<{ brokerName: string; addr: string }[]> {
  const info = await client.namesrv.clusterInfo();
  const out: { brokerName: string; addr: string }[] = [];
  for (const [brokerName, b] of info.brokerAddrTable) {
    const addr = b.brokerAddrs.get(MASTER_ID);
    if (addr !== undefined) out.push({ brokerName, addr });
  }
  return out.sort((a, b) => a.brokerName.localeCompare(b.brokerName));
}

/** The names of the subscription groups on every master (GET_ALL_SUBSCRIPTIONGROUP_CONFIG), merged. */
export async function subscriptionGroupNames(client: ClientInstance): Promise<string[]> {
  const names = new Set<string>();
  for (const { addr } of await masterBrokers(client)) {
    const code = RequestCode.GET_ALL_SUBSCRIPTIONGROUP_CONFIG;
    const r = await call(client.remoting, addr, code, null, null, client.options.mqClientApiTimeoutMs);
    const table = decodeAnswer(addr, code, () => {
      const o = JSON.parse(decoder.decode(r.body ?? new Uint8Array())) as {
        subscriptionGroupTable?: unknown;
      };
      const t = o.subscriptionGroupTable;
      return t !== null && typeof t === "object" ? Object.keys(t) : [];
    });
    for (const n of table) names.add(n);
  }
  return [...names].sort();
}

/** Per-queue offsets and lag of `group` on every master, on `topic` or on every topic it has offsets for. */
export async function groupLag(client: ClientInstance, group: string, topic?: string): Promise<QueueLag[]> {
  const out: QueueLag[] = [];
  const ext = GetConsumeStatsRequestHeader.encode(
    topic === undefined ? { consumerGroup: group } : { consumerGroup: group, topic },
  );
  for (const { brokerName, addr } of await masterBrokers(client)) {
    const code = RequestCode.GET_CONSUME_STATS;
    const r = await call(client.remoting, addr, code, ext, null, client.options.mqClientApiTimeoutMs);
    const rows = decodeAnswer(addr, code, () => decodeQueueKeyedTable(r.body ?? new Uint8Array()));
    for (const [key, value] of rows) {
      const v = (value ?? {}) as { brokerOffset?: number; consumerOffset?: number; lastTimestamp?: number };
      const brokerOffset = Number(v.brokerOffset ?? 0);
      const consumerOffset = Number(v.consumerOffset ?? 0);
      out.push({
        // The broker writes its own name; trust the NameServer's when it left it out.
        mq: { topic: key.topic, brokerName: key.brokerName || brokerName, queueId: key.queueId },
        brokerOffset,
        consumerOffset,
        lag: Math.max(0, brokerOffset - Math.max(consumerOffset, 0)),
        lastTimestamp: Number(v.lastTimestamp ?? 0),
      });
    }
  }
  return out.sort((a, b) => compareMq(a.mq, b.mq));
}
