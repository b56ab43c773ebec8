/**
 * More consumer group verbs: consumerStatus (each member's running info, through a broker),
 * getConsumerStatus (each member's offsets in memory of a topic, through a broker),
 * getConsumerConfig, brokerConsumeStats, skipAccumulatedMessage, cloneGroupOffset.
 */

import { fetchConsumerStatus } from "../../client/consumer-status.ts";
import type { Admin } from "../../client/index.ts";
import { compareMq } from "../../client/message-queue.ts";
import { fetchRunningInfo } from "../../client/running-info.ts";
import type { RunningInfoView } from "../../protocol/body/consumer-running-info.ts";
import {
  CloneGroupOffsetRequestHeader,
  GetSubscriptionGroupConfigRequestHeader,
} from "../../protocol/headers/admin-maintenance.ts";
import { MASTER_ID } from "../../protocol/route/index.ts";
import { RequestCode, ResponseCode } from "../../remoting/index.ts";
import { AdminFailure, type AdminVerb, boolOpt, intOpt, opt, required, TOPIC_FLAG } from "./context.ts";
import { humanTime, keyValues, table, versionDesc } from "./format.ts";
import { RUNNING_INFO_TIMEOUT_MS } from "./queue-owners.ts";
import { brokerCall, consumeStats, resetOffsetRows, subscriptionGroups, targets } from "./requests.ts";

/** mqadmin's `%-40s=  %s` config lines. */
const CONFIG_KEY_WIDTH = 40;

/** Orders [key, value] entries by key, as Java's TreeMap prints them (UTF-16 order, not locale). */
function byKey([a]: readonly [string, unknown], [b]: readonly [string, unknown]): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function runningInfoText(clientId: string, info: RunningInfoView): string {
  const queues = [...info.mqTable].sort(([a], [b]) => compareMq(a, b));
  return [
    `#Consumer Properties# ${clientId}`,
    keyValues(Object.entries(info.properties).sort(byKey), " : "),
    "",
    "#Consumer Subscription#",
    ...info.subscriptions.map(
      (s, i) => `${String(i + 1).padStart(3, "0")} Topic: ${s.topic} SubExpression: ${s.subString}`,
    ),
    "",
    "#Consumer Offset#",
    table(
      ["#Topic", "#Broker Name", "#QID", "#Consumer Offset", "#Locked"],
      queues.map(([mq, pq]) => [mq.topic, mq.brokerName, mq.queueId, pq.commitOffset, pq.locked]),
    ),
  ].join("\n");
}

const subscriptionKey = (info: RunningInfoView) =>
  info.subscriptions
    .map((s) => `${s.topic}\u0000${s.subString}`)
    .sort()
    .join("\u0001");

const consumerStatus: AdminVerb = {
  name: "consumerStatus",
  summary: "Each online member of a group: version, queues held, and whether the members agree.",
  usage: "-g GROUP [-i CLIENT_ID] [-b BROKER_ADDR] [-s]",
  flags: [
    { long: "consumerGroup", short: "g", value: "GROUP", help: "consumer group name" },
    { long: "clientId", short: "i", value: "ID", help: "only this member, in detail" },
    { long: "brokerAddr", short: "b", value: "ADDR", help: "accepted for mqadmin compatibility" },
    { long: "jstack", short: "s", help: "accepted for mqadmin compatibility (no Java stacks here)" },
  ],
  async run(ctx) {
    const group = required(ctx, "consumerGroup");
    const clientId = opt(ctx, "clientId");
    const admin = await ctx.admin();
    if (clientId !== undefined) {
      const info = await fetchRunningInfo(admin.client, group, clientId, RUNNING_INFO_TIMEOUT_MS);
      ctx.print({ clientId, ...info }, () => runningInfoText(clientId, info));
      return;
    }
    const cc = await admin.consumerConnections(group);
    const members: { clientId: string; version: number; info: RunningInfoView | null; error?: string }[] = [];
    for (const c of [...cc.connections].sort((a, b) => (a.clientId < b.clientId ? -1 : 1))) {
      try {
        members.push({
          clientId: c.clientId,
          version: c.version,
          info: await fetchRunningInfo(admin.client, group, c.clientId, RUNNING_INFO_TIMEOUT_MS),
        });
      } catch (err) {
        members.push({ clientId: c.clientId, version: c.version, info: null, error: (err as Error).message });
      }
    }
    const answered = members.flatMap((m) => (m.info ? [m.info] : []));
    const sameSubscription = new Set(answered.map(subscriptionKey)).size <= 1;
    // Every queue held by exactly one member: the group's rebalance agrees.
    const holders = new Map<string, number>();
    for (const info of answered)
      for (const [mq] of info.mqTable) {
        const key = `${mq.topic}\u0000${mq.brokerName}\u0000${mq.queueId}`;
        holders.set(key, (holders.get(key) ?? 0) + 1);
      }
    const rebalanceOk = sameSubscription && [...holders.values()].every((n) => n === 1);
    ctx.print({ group, members, sameSubscription, rebalanceOk }, () =>
      [
        table(
          ["#Index", "#ClientId", "#Version", "#Queues"],
          members.map((m, i) => [
            i + 1,
            m.clientId,
            versionDesc(m.version),
            m.info?.mqTable.length ?? m.error,
          ]),
        ),
        "",
        sameSubscription
          ? `Same subscription in the same group of consumer\n\nRebalance ${rebalanceOk ? "OK" : "Failed"}`
          : "WARN: Different subscription in the same group of consumer!!!",
      ].join("\n"),
    );
  },
};

const getConsumerConfig: AdminVerb = {
  name: "getConsumerConfig",
  summary: "A subscription group's settings on every broker that has it.",
  usage: "-g GROUP",
  flags: [{ long: "groupName", short: "g", value: "GROUP", help: "subscription group name" }],
  async run(ctx) {
    const group = required(ctx, "groupName");
    const admin = await ctx.admin();
    const found: { clusterName: string; brokerName: string; config: Record<string, unknown> }[] = [];
    for (const b of await targets(admin, {})) {
      const r = await brokerCall(
        admin,
        b.addr,
        RequestCode.GET_SUBSCRIPTIONGROUP_CONFIG,
        GetSubscriptionGroupConfigRequestHeader.encode({ group }),
      ).catch((err: { code?: number }) => {
        if (err.code === ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST) return null;
        throw err;
      });
      if (r?.body) {
        const config = JSON.parse(new TextDecoder().decode(r.body)) as Record<string, unknown>;
        found.push({ clusterName: b.cluster, brokerName: b.brokerName, config });
      }
    }
    if (found.length === 0)
      throw new AdminFailure(`subscription group ${group} does not exist on any master`);
    ctx.print(found, () =>
      found
        .map((f) =>
          [
            `=============================${f.clusterName}:${f.brokerName}=============================`,
            ...Object.entries(f.config).map(
              ([k, v]) =>
                `${k.padEnd(CONFIG_KEY_WIDTH)}=  ${v === null || v === undefined ? "" : typeof v === "object" ? JSON.stringify(v) : String(v)}`,
            ),
          ].join("\n"),
        )
        .join("\n"),
    );
  },
};

const brokerConsumeStats: AdminVerb = {
  name: "brokerConsumeStats",
  summary: "Every group's offsets and lag on one broker, queue by queue.",
  usage: "-b BROKER_ADDR [-l MIN_DIFF] [-o true|false] [-t TIMEOUT_MS]",
  flags: [
    { long: "brokerAddr", short: "b", value: "ADDR", help: "the broker" },
    { long: "timeoutMillis", short: "t", value: "MS", help: "accepted for mqadmin compatibility" },
    { long: "level", short: "l", value: "N", help: "only queues whose lag is at least N (default 0)" },
    { long: "order", short: "o", value: "BOOL", help: "only ordered topics (true|false, default false)" },
  ],
  async run(ctx) {
    const addr = required(ctx, "brokerAddr");
    const level = intOpt(ctx, "level") ?? 0;
    const orderOnly = boolOpt(ctx, "order") ?? false;
    intOpt(ctx, "timeoutMillis", 1);
    const admin = await ctx.admin();
    const ordered = orderOnly ? await orderedTopics(admin, addr) : null;
    const rows: {
      topic: string;
      group: string;
      brokerName: string;
      queueId: number;
      brokerOffset: number;
      consumerOffset: number;
      diff: number;
      lastTimestamp: number;
    }[] = [];
    for (const group of (await subscriptionGroups(admin, addr)).sort()) {
      for (const { mq, value } of await consumeStats(admin, addr, group)) {
        if (ordered && !ordered.has(mq.topic)) continue;
        const diff = value.brokerOffset - value.consumerOffset;
        if (diff < level) continue;
        rows.push({ topic: mq.topic, group, brokerName: mq.brokerName, queueId: mq.queueId, ...value, diff });
      }
    }
    rows.sort((a, b) => (a.group < b.group ? -1 : a.group > b.group ? 1 : compareMq(a, b)));
    const totalDiff = rows.reduce((n, r) => n + r.diff, 0);
    ctx.print({ brokerAddr: addr, rows, totalDiff }, () =>
      [
        table(
          [
            "#Topic",
            "#Group",
            "#Broker Name",
            "#QID",
            "#Broker Offset",
            "#Consumer Offset",
            "#Diff",
            "#LastTime",
          ],
          rows.map((r) => [
            r.topic,
            r.group,
            r.brokerName,
            r.queueId,
            r.brokerOffset,
            r.consumerOffset,
            r.diff,
            r.lastTimestamp > 0 ? humanTime(r.lastTimestamp) : "N/A",
          ]),
        ),
        "",
        `Diff Total: ${totalDiff}`,
      ].join("\n"),
    );
  },
};

async function orderedTopics(admin: Admin, addr: string) {
  const r = await brokerCall(admin, addr, RequestCode.GET_ALL_TOPIC_CONFIG, null);
  const body = JSON.parse(new TextDecoder().decode(r.body ?? new Uint8Array())) as {
    topicConfigTable?: Record<string, { order?: boolean }>;
  };
  return new Set(
    Object.entries(body.topicConfigTable ?? {})
      .filter(([, c]) => c.order === true)
      .map(([t]) => t),
  );
}

const skipAccumulatedMessage: AdminVerb = {
  name: "skipAccumulatedMessage",
  summary: "Move a group's offsets on a topic to the end of every queue: skip what is not consumed.",
  usage: "-g GROUP -t TOPIC [-f true|false] [-c CLUSTER]",
  flags: [
    { long: "group", short: "g", value: "GROUP", help: "consumer group" },
    { long: "topic", short: "t", value: "TOPIC", help: "topic" },
    { long: "force", short: "f", value: "BOOL", help: "accepted for mqadmin compatibility (default true)" },
    { long: "cluster", short: "c", value: "CLUSTER", help: "accepted for mqadmin compatibility" },
  ],
  async run(ctx) {
    const group = required(ctx, "group");
    const topic = required(ctx, "topic");
    const force = boolOpt(ctx, "force") ?? true;
    opt(ctx, "cluster");
    const admin = await ctx.admin();
    // -1: the queue's end, as mqadmin sends it.
    const offsets = resetOffsetRows(await admin.resetOffsetByTime(group, topic, -1, force));
    ctx.print({ group, topic, offsets }, () =>
      table(
        ["#brokerName", "#queueId", "#offset"],
        offsets.map((o) => [o.brokerName, o.queueId, o.offset]),
      ),
    );
  },
};

const cloneGroupOffset: AdminVerb = {
  name: "cloneGroupOffset",
  summary: "Copy a group's offsets on a topic to another group, on every master serving the topic.",
  usage: "-s SRC_GROUP -d DEST_GROUP -t TOPIC [-o true|false]",
  flags: [
    { long: "srcGroup", short: "s", value: "GROUP", help: "source consumer group" },
    { long: "destGroup", short: "d", value: "GROUP", help: "destination consumer group" },
    { long: "topic", short: "t", value: "TOPIC", help: "topic" },
    { long: "offline", short: "o", value: "BOOL", help: "the source group is offline (true|false)" },
  ],
  async run(ctx) {
    const srcGroup = required(ctx, "srcGroup");
    const destGroup = required(ctx, "destGroup");
    const topic = required(ctx, "topic");
    const offline = boolOpt(ctx, "offline") ?? false;
    const admin = await ctx.admin();
    const route = await admin.topicRoute(topic);
    const ext = CloneGroupOffsetRequestHeader.encode({ srcGroup, destGroup, topic, offline });
    const addrs = route.brokerDatas
      .map((b) => b.brokerAddrs.get(MASTER_ID))
      .filter((a): a is string => a !== undefined);
    for (const addr of addrs) await brokerCall(admin, addr, RequestCode.CLONE_GROUP_OFFSET, { ...ext });
    ctx.print(
      { srcGroup, destGroup, topic, brokerAddrs: addrs },
      () => `clone group offset success. srcGroup[${srcGroup}], destGroup=[${destGroup}], topic[${topic}]`,
    );
  },
};

/** Longer than the broker's 5 s wait for a silent consumer, so its answer still arrives. */
const CONSUMER_STATUS_TIMEOUT_MS = 6000;

const getConsumerStatus: AdminVerb = {
  name: "getConsumerStatus",
  summary: "Each consumer's offsets in memory of a topic's queues, asked through a broker (221 via 223).",
  usage: "-g GROUP -t TOPIC [-i CLIENT_ID]",
  flags: [
    { long: "group", short: "g", value: "GROUP", help: "consumer group name" },
    TOPIC_FLAG,
    { long: "originClientId", short: "i", value: "ID", help: "only this consumer" },
  ],
  async run(ctx) {
    const group = required(ctx, "group");
    const topic = required(ctx, "topic");
    const clientId = opt(ctx, "originClientId") ?? "";
    const admin = await ctx.admin();
    const status = await fetchConsumerStatus(
      admin.client,
      topic,
      group,
      clientId,
      CONSUMER_STATUS_TIMEOUT_MS,
    );
    const rows = [...status]
      .sort(byKey)
      .flatMap(([id, queues]) =>
        [...queues]
          .sort(([a], [b]) => compareMq(a, b))
          .map(([mq, offset]) => ({ clientId: id, ...mq, offset })),
      );
    ctx.print(rows, () =>
      [
        `get consumer status from client. group=${group}, topic=${topic}, originClientId=${clientId}`,
        table(
          ["#clientId", "#brokerName", "#queueId", "#offset"],
          rows.map((r) => [r.clientId, r.brokerName, r.queueId, r.offset]),
        ),
      ].join("\n"),
    );
  },
};

export const consumerOpVerbs: readonly AdminVerb[] = [
  consumerStatus,
  getConsumerStatus,
  getConsumerConfig,
  brokerConsumeStats,
  skipAccumulatedMessage,
  cloneGroupOffset,
];
