/**
 * Transaction verbs (spec broker §10): pendingTransactions counts the half messages of a producer
 * group no commit or rollback has finished yet (read from each master's half and op queues from
 * the checker's CID_SYS_RMQ_TRANS offsets, as the check service reads them), with the oldest
 * one's age; discardedTransactions lists the half messages parked in TRANS_CHECK_MAX_TIME_TOPIC
 * after transactionCheckMax unanswered checks.
 */
import type { Admin, MessageExt } from "../../client/index.ts";
import { MessageConst } from "../../protocol/message/index.ts";
import {
  TRANS_CHECK_MAX_TIME_TOPIC,
  TRANS_HALF_TOPIC,
  TRANS_OP_HALF_TOPIC,
} from "../../protocol/topic-names.ts";
import { HALF_QUEUE_ID, OP_REMOVE_TAG, parseOpBody, TRANS_CHECK_GROUP } from "../../protocol/transaction.ts";
import { type AdminVerb, intOpt, opt } from "./context.ts";
import { humanTime, table } from "./format.ts";
import { type BrokerTarget, targets } from "./requests.ts";
import { readQueue, readTopic } from "./topic-reader.ts";

const GROUP = {
  long: "producerGroup",
  short: "g",
  value: "GROUP",
  help: "only this producer group",
} as const;

export interface PendingGroup {
  brokerName: string;
  producerGroup: string;
  /** Unfinished transactions (distinct transaction ids). */
  pending: number;
  /** Born time of the oldest, 0 when none. */
  oldestBornTimestamp: number;
  oldestAgeMs: number;
}

/** Where the checker stands on one queue: its committed offset, else the queue's minimum. */
async function checkerOffset(admin: Admin, addr: string, topic: string): Promise<number> {
  const api = admin.client.broker;
  const [committed, min] = await Promise.all([
    api.queryConsumerOffset(addr, TRANS_CHECK_GROUP, topic, HALF_QUEUE_ID),
    api.minOffset(addr, topic, HALF_QUEUE_ID),
  ]);
  return Math.max(committed, min);
}

/** The unfinished half messages of one broker. */
async function unfinishedHalves(admin: Admin, b: BrokerTarget): Promise<MessageExt[]> {
  const api = admin.client.broker;
  const q = (topic: string) => ({ topic, brokerName: b.brokerName, queueId: HALF_QUEUE_ID });
  const [halfFrom, opFrom, halfTo, opTo] = await Promise.all([
    checkerOffset(admin, b.addr, TRANS_HALF_TOPIC),
    checkerOffset(admin, b.addr, TRANS_OP_HALF_TOPIC),
    api.maxOffset(b.addr, TRANS_HALF_TOPIC, HALF_QUEUE_ID),
    api.maxOffset(b.addr, TRANS_OP_HALF_TOPIC, HALF_QUEUE_ID),
  ]);
  const finished = new Set<number>();
  for (const op of await readQueue(admin, b.addr, q(TRANS_OP_HALF_TOPIC), opFrom, opTo)) {
    if (op.tags !== OP_REMOVE_TAG) continue;
    for (const o of parseOpBody(new TextDecoder().decode(op.body))) finished.add(o);
  }
  const halves = await readQueue(admin, b.addr, q(TRANS_HALF_TOPIC), halfFrom, halfTo);
  return halves.filter((m) => !finished.has(m.queueOffset));
}

/** Pending transactions per broker and group: a checked message's copies count once. */
export function summarize(brokerName: string, halves: readonly MessageExt[], now: number): PendingGroup[] {
  const groups = new Map<string, { ids: Set<string>; oldest: number }>();
  for (const m of halves) {
    const group = m.properties[MessageConst.PGROUP] ?? "";
    const g = groups.get(group) ?? { ids: new Set<string>(), oldest: Number.POSITIVE_INFINITY };
    g.ids.add(m.msgId);
    g.oldest = Math.min(g.oldest, m.bornTimestamp);
    groups.set(group, g);
  }
  return [...groups]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([producerGroup, g]) => ({
      brokerName,
      producerGroup,
      pending: g.ids.size,
      oldestBornTimestamp: g.oldest,
      oldestAgeMs: now - g.oldest,
    }));
}

const pendingTransactions: AdminVerb = {
  name: "pendingTransactions",
  summary: "Half messages no commit or rollback has finished yet, per producer group: count and oldest age.",
  usage: "[-g GROUP] [-b BROKER_ADDR | -c CLUSTER]",
  flags: [
    GROUP,
    { long: "brokerAddr", short: "b", value: "ADDR", help: "only this broker" },
    { long: "clusterName", short: "c", value: "CLUSTER", help: "only the masters of this cluster" },
  ],
  async run(ctx) {
    const group = opt(ctx, "producerGroup");
    const brokerAddr = opt(ctx, "brokerAddr");
    const clusterName = opt(ctx, "clusterName");
    const admin = await ctx.admin();
    const rows: PendingGroup[] = [];
    const now = Date.now();
    for (const b of await targets(admin, { brokerAddr, clusterName })) {
      const all = summarize(b.brokerName, await unfinishedHalves(admin, b), now);
      if (group === undefined) rows.push(...all);
      else
        rows.push(
          all.find((r) => r.producerGroup === group) ?? {
            brokerName: b.brokerName,
            producerGroup: group,
            pending: 0,
            oldestBornTimestamp: 0,
            oldestAgeMs: 0,
          },
        );
    }
    ctx.print(rows, () =>
      table(
        ["#Broker Name", "#Producer Group", "#Pending", "#Oldest Born", "#Oldest Age(s)"],
        rows.map((r) => [
          r.brokerName,
          r.producerGroup,
          r.pending,
          humanTime(r.oldestBornTimestamp),
          r.pending > 0 ? Math.round(r.oldestAgeMs / 1000) : "",
        ]),
      ),
    );
  },
};

const discardedTransactions: AdminVerb = {
  name: "discardedTransactions",
  summary: "Half messages parked in TRANS_CHECK_MAX_TIME_TOPIC after transactionCheckMax unanswered checks.",
  usage: "[-g GROUP] [-c MAX]",
  flags: [GROUP, { long: "maxNum", short: "c", value: "MAX", help: "at most MAX messages (default 1000)" }],
  async run(ctx) {
    const group = opt(ctx, "producerGroup");
    const limit = intOpt(ctx, "maxNum", 1, 1_000_000) ?? 1000;
    const admin = await ctx.admin();
    const parked = (await readTopic(admin, TRANS_CHECK_MAX_TIME_TOPIC, Number.MAX_SAFE_INTEGER))
      .filter((m) => group === undefined || m.properties[MessageConst.PGROUP] === group)
      .slice(0, limit)
      .map((m) => ({
        brokerName: m.brokerName,
        producerGroup: m.properties[MessageConst.PGROUP] ?? "",
        msgId: m.msgId,
        realTopic: m.properties[MessageConst.REAL_TOPIC] ?? "",
        checkTimes: Number(m.properties[MessageConst.TRANSACTION_CHECK_TIMES] ?? 0),
        bornTimestamp: m.bornTimestamp,
        parkedTimestamp: m.storeTimestamp,
      }));
    ctx.print(parked, () =>
      table(
        ["#Broker Name", "#Producer Group", "#MsgId", "#Real Topic", "#Checks", "#Born", "#Parked"],
        parked.map((p) => [
          p.brokerName,
          p.producerGroup,
          p.msgId,
          p.realTopic,
          p.checkTimes,
          humanTime(p.bornTimestamp),
          humanTime(p.parkedTimestamp),
        ]),
      ),
    );
  },
};

export const transactionVerbs: readonly AdminVerb[] = [pendingTransactions, discardedTransactions];
