/**
 * Broker maintenance and statistics verbs: statsAll, queryCq, cleanExpiredCQ,
 * deleteExpiredCommitLog, cleanUnusedTopic. The clean-ups go to one broker (-b) or every master of a
 * cluster (-c), or every master, and print mqadmin's `success` / `false`.
 */
import type { Admin } from "../../client/index.ts";
import { QueryConsumeQueueRequestHeader } from "../../protocol/headers/admin-maintenance.ts";
import { MASTER_ID } from "../../protocol/route/index.ts";
import { RequestCode } from "../../remoting/index.ts";
import { AdminFailure, type AdminVerb, intOpt, opt, required } from "./context.ts";
import { table } from "./format.ts";
import { brokerCall, consumeStats, groupsConsuming, targets } from "./requests.ts";
import { isGroupTopic } from "./topics.ts";

const decoder = new TextDecoder();

/** Java's BrokerStatsManager names: messages put to a topic, got by `topic@group`. */
const TOPIC_PUT_NUMS = "TOPIC_PUT_NUMS";
const GROUP_GET_NUMS = "GROUP_GET_NUMS";

interface StatsFigures {
  tps: number;
  /** Messages in the last 24 hours. */
  day: number;
}

/**
 * VIEW_BROKER_STATS_DATA summed over `addrs`; null when no broker has such a statistic (nothing put
 * to the topic, or got by the group, since it started), so the table says N/A rather than a made-up 0.
 */
async function brokerStats(admin: Admin, addrs: readonly string[], statsName: string, statsKey: string) {
  let known = false;
  const sum: StatsFigures = { tps: 0, day: 0 };
  for (const addr of addrs) {
    try {
      const r = await brokerCall(admin, addr, RequestCode.VIEW_BROKER_STATS_DATA, { statsName, statsKey });
      const body = JSON.parse(decoder.decode(r.body ?? new Uint8Array())) as {
        statsMinute?: { tps?: number; sum?: number };
        statsHour?: { sum?: number };
        statsDay?: { sum?: number };
      };
      sum.tps += Number(body.statsMinute?.tps ?? 0);
      // mqadmin's compute24HourSum: the day's sum, else the hour's, else the minute's (a new item
      // has no day or hour samples until those windows' next tick).
      sum.day += Number(body.statsDay?.sum || body.statsHour?.sum || body.statsMinute?.sum || 0);
      known = true;
    } catch {
      // Not kept there: this broker adds nothing, as mqadmin counts it.
    }
  }
  return known ? sum : null;
}

interface StatsRow {
  topic: string;
  group: string;
  accumulation: number;
  inTps: number | null;
  outTps: number | null;
  inMsg24Hour: number | null;
  outMsg24Hour: number | null;
}

const fixed = (n: number | null) => (n === null ? "N/A" : n.toFixed(2));
const count = (n: number | null) => (n === null ? "N/A" : n);

const statsAll: AdminVerb = {
  name: "statsAll",
  summary: "Per topic and consumer group: accumulation, in and out TPS, messages in the last 24 hours.",
  usage: "[-t TOPIC] [-a]",
  flags: [
    { long: "topic", short: "t", value: "TOPIC", help: "only this topic" },
    { long: "activeTopic", short: "a", help: "only topics with traffic in the last 24 hours" },
  ],
  async run(ctx) {
    const only = opt(ctx, "topic");
    const active = ctx.args.flags.has("activeTopic");
    const admin = await ctx.admin();
    const topics =
      only !== undefined
        ? [only]
        : (await admin.client.namesrv.allTopics()).filter((t) => !isGroupTopic(t)).sort();
    const rows: StatsRow[] = [];
    for (const topic of topics) {
      const route = await admin.topicRoute(topic).catch((err) => {
        if (only !== undefined) throw err;
        return null;
      });
      if (route === null) continue;
      const masters = route.brokerDatas.flatMap((b) => b.brokerAddrs.get(MASTER_ID) ?? []);
      const put = await brokerStats(admin, masters, TOPIC_PUT_NUMS, topic);
      const groups = new Set<string>();
      for (const addr of masters)
        for (const g of await groupsConsuming(admin, addr, topic).catch(() => [])) groups.add(g);
      if (groups.size === 0) {
        if (!active || (put?.day ?? 0) > 0)
          rows.push({
            topic,
            group: "",
            accumulation: 0,
            inTps: put?.tps ?? null,
            outTps: null,
            inMsg24Hour: put?.day ?? null,
            outMsg24Hour: null,
          });
        continue;
      }
      for (const group of [...groups].sort()) {
        const got = await brokerStats(admin, masters, GROUP_GET_NUMS, `${topic}@${group}`);
        let accumulation = 0;
        for (const addr of masters)
          for (const { value } of await consumeStats(admin, addr, group, topic).catch(() => []))
            accumulation += value.brokerOffset - value.consumerOffset;
        if (active && (put?.day ?? 0) === 0 && (got?.day ?? 0) === 0) continue;
        rows.push({
          topic,
          group,
          accumulation: Math.max(0, accumulation),
          inTps: put?.tps ?? null,
          outTps: got?.tps ?? null,
          inMsg24Hour: put?.day ?? null,
          outMsg24Hour: got?.day ?? null,
        });
      }
    }
    ctx.print(rows, () =>
      table(
        ["#Topic", "#Consumer Group", "#Accumulation", "#InTPS", "#OutTPS", "#InMsg24Hour", "#OutMsg24Hour"],
        rows.map((r) => [
          r.topic,
          r.group,
          r.accumulation,
          fixed(r.inTps),
          r.group === "" ? "" : fixed(r.outTps),
          count(r.inMsg24Hour),
          r.group === "" ? "NO_CONSUMER" : count(r.outMsg24Hour),
        ]),
      ),
    );
  },
};

interface QueueDataRow {
  physicOffset: number;
  physicSize: number;
  tagsCode: number;
}

/** QueryConsumeQueueResponseBody, with the broker that answered and its remark. */
interface ConsumeQueueAnswer {
  brokerAddr: string;
  maxQueueIndex: number;
  minQueueIndex: number;
  queueData: QueueDataRow[];
  subscriptionData?: unknown;
  filterData?: string;
  remark: string | null;
}

const queryCq: AdminVerb = {
  name: "queryCq",
  summary: "Units of a consume queue: physical offset, size and tag hash of each, from an index.",
  usage: "-t TOPIC -q QUEUE_ID -i INDEX [-c COUNT] [-b BROKER_ADDR] [-g GROUP]",
  flags: [
    { long: "topic", short: "t", value: "TOPIC", help: "topic name" },
    { long: "queue", short: "q", value: "ID", help: "queue id" },
    { long: "index", short: "i", value: "INDEX", help: "first queue index (offset)" },
    { long: "count", short: "c", value: "N", help: "how many units (default 10)" },
    { long: "broker", short: "b", value: "ADDR", help: "broker address (default: each master of the topic)" },
    { long: "consumer", short: "g", value: "GROUP", help: "also show this group's subscription" },
  ],
  async run(ctx) {
    const topic = required(ctx, "topic");
    const queueId = intOpt(ctx, "queue", 0, 65_535) ?? Number(required(ctx, "queue"));
    const index = intOpt(ctx, "index") ?? Number(required(ctx, "index"));
    const count = intOpt(ctx, "count", 1, 1024) ?? 10;
    const broker = opt(ctx, "broker");
    const group = opt(ctx, "consumer");
    const admin = await ctx.admin();
    const addrs =
      broker !== undefined
        ? [broker]
        : (await admin.topicRoute(topic)).brokerDatas.flatMap((b) => b.brokerAddrs.get(MASTER_ID) ?? []);
    const ext = QueryConsumeQueueRequestHeader.encode({
      topic,
      queueId,
      index,
      count,
      ...(group !== undefined ? { consumerGroup: group } : {}),
    });
    const results: ConsumeQueueAnswer[] = [];
    for (const addr of addrs) {
      const r = await brokerCall(admin, addr, RequestCode.QUERY_CONSUME_QUEUE, { ...ext });
      const body = JSON.parse(decoder.decode(r.body ?? new Uint8Array())) as {
        maxQueueIndex: number;
        minQueueIndex: number;
        queueData?: QueueDataRow[];
        subscriptionData?: unknown;
        filterData?: string;
      };
      results.push({ brokerAddr: addr, ...body, queueData: body.queueData ?? [], remark: r.remark ?? null });
    }
    ctx.print(results, () =>
      results
        .map((b) =>
          [
            `============${b.brokerAddr}============`,
            ...(group !== undefined
              ? [
                  `Subscription data: \n${JSON.stringify(b.subscriptionData ?? null, null, 2)}`,
                  `Filter data: \n${b.filterData ?? ""}`,
                ]
              : []),
            `Queue data: \nmax: ${b.maxQueueIndex}, min: ${b.minQueueIndex}`,
            ...(b.remark ? [b.remark] : []),
            table(
              ["#idx", "#PhysicOffset", "#PhysicSize", "#TagsCode"],
              b.queueData.map((u, i) => [index + i, u.physicOffset, u.physicSize, u.tagsCode]),
            ),
          ].join("\n"),
        )
        .join("\n\n"),
    );
  },
};

/** A clean-up verb: one request to each broker of -b / -c (default every master). */
function cleanupVerb(name: string, code: number, summary: string): AdminVerb {
  return {
    name,
    summary,
    usage: "[-b BROKER_ADDR | -c CLUSTER]",
    flags: [
      { long: "brokerAddr", short: "b", value: "ADDR", help: "this broker" },
      { long: "cluster", short: "c", value: "CLUSTER", help: "every master of this cluster" },
    ],
    async run(ctx) {
      const brokerAddr = opt(ctx, "brokerAddr");
      const clusterName = opt(ctx, "cluster");
      const admin = await ctx.admin();
      const brokers = await targets(admin, {
        ...(brokerAddr !== undefined ? { brokerAddr } : {}),
        ...(clusterName !== undefined ? { clusterName } : {}),
      });
      const results: { brokerAddr: string; ok: boolean; error?: string }[] = [];
      for (const b of brokers) {
        try {
          await brokerCall(admin, b.addr, code, null);
          results.push({ brokerAddr: b.addr, ok: true });
        } catch (err) {
          results.push({ brokerAddr: b.addr, ok: false, error: (err as Error).message });
        }
      }
      const ok = results.every((r) => r.ok);
      ctx.print({ success: ok, results }, () => (ok ? "success" : "false"));
      if (!ok)
        throw new AdminFailure(
          results
            .filter((r) => !r.ok)
            .map((r) => `${r.brokerAddr}: ${r.error}`)
            .join("; "),
        );
    },
  };
}

export const brokerOpVerbs: readonly AdminVerb[] = [
  statsAll,
  queryCq,
  cleanupVerb(
    "cleanExpiredCQ",
    RequestCode.CLEAN_EXPIRED_CONSUMEQUEUE,
    "Drop consume-queue files whose messages the CommitLog no longer holds.",
  ),
  cleanupVerb(
    "deleteExpiredCommitLog",
    RequestCode.DELETE_EXPIRED_COMMITLOG,
    "Delete expired CommitLog files now instead of at deleteWhen's hour.",
  ),
  cleanupVerb(
    "cleanUnusedTopic",
    RequestCode.CLEAN_UNUSED_TOPIC,
    "Drop the consume queues of topics the broker has no config for.",
  ),
];
