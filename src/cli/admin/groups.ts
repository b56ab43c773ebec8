/**
 * Consumer and producer group verbs: updateSubGroup, deleteSubGroup, consumerProgress,
 * consumerConnection, producerConnection, resetOffsetByTime.
 */
import type { Admin, SubscriptionGroupConfig } from "../../client/index.ts";
import { compareMq } from "../../client/message-queue.ts";
import {
  type AdminContext,
  AdminFailure,
  type AdminVerb,
  boolOpt,
  intOpt,
  oneOf,
  opt,
  required,
  timestampOpt,
} from "./context.ts";
import { humanTime, table, versionDesc } from "./format.ts";
import { holderIndex, queueKey, queueOwners } from "./queue-owners.ts";
import {
  consumeStats,
  deleteSubscriptionGroupAt,
  producerConnections,
  type QueueOffset,
  resetOffsetRows,
  subscriptionGroups,
  targets,
} from "./requests.ts";

const GROUP = { long: "groupName", short: "g", value: "GROUP", help: "consumer group name" } as const;

/** updateSubGroup's value flags: [long, short, help, kind] in mqadmin's letters. */
const SUB_GROUP_FIELDS = [
  ["consumeEnable", "s", "consume enabled (true|false)", "bool"],
  ["consumeFromMinEnable", "m", "consume from the min offset (true|false)", "bool"],
  ["consumeBroadcastEnable", "d", "broadcast consumption allowed (true|false)", "bool"],
  ["consumeMessageOrderly", "o", "orderly consumption (true|false)", "bool"],
  ["retryQueueNums", "q", "retry queues", "int"],
  ["retryMaxTimes", "r", "max retries before the DLQ", "int"],
  ["brokerId", "i", "consume from this broker id", "int"],
  ["whichBrokerWhenConsumeSlowly", "w", "broker id to consume from when slow", "int"],
  ["notifyConsumerIdsChangedEnable", "a", "notify consumers when the group changes (true|false)", "bool"],
] as const;

const updateSubGroup: AdminVerb = {
  name: "updateSubGroup",
  summary: "Create a subscription group, or update its settings, on a broker or a cluster's masters.",
  usage:
    "-g GROUP (-b BROKER_ADDR | -c CLUSTER) [-s|-m|-d|-o true|false] [-q N] [-r N] [-i ID] [-w ID] [-a BOOL]",
  flags: [
    { long: "brokerAddr", short: "b", value: "ADDR", help: "create the group on this broker" },
    {
      long: "clusterName",
      short: "c",
      value: "CLUSTER",
      help: "create the group on every master of this cluster",
    },
    GROUP,
    ...SUB_GROUP_FIELDS.map(([long, short, help, kind]) => ({
      long,
      short,
      help,
      value: kind === "bool" ? "BOOL" : "N",
      ...(long === "notifyConsumerIdsChangedEnable" ? { aliases: ["notifyConsumerIdsChanged"] } : {}),
    })),
  ],
  async run(ctx) {
    const group = required(ctx, "groupName");
    const where = oneOf(ctx, "brokerAddr", "clusterName");
    const init: Partial<Record<string, number | boolean>> = {};
    for (const [long, , , kind] of SUB_GROUP_FIELDS) {
      const v = kind === "bool" ? boolOpt(ctx, long) : intOpt(ctx, long, 0, 65535);
      if (v !== undefined) init[long] = v;
    }
    const admin = await ctx.admin();
    const brokers = await targets(admin, where);
    const names = brokers.map((b) => b.brokerName).filter((n) => n !== "");
    if (names.length === 0)
      throw new AdminFailure(`broker ${where.brokerAddr} is not registered with the NameServer`);
    await admin.createSubscriptionGroup(group, init as Partial<SubscriptionGroupConfig>, {
      brokerNames: names,
    });
    const addrs = brokers.map((b) => b.addr);
    ctx.print({ groupName: group, ...init, brokerAddrs: addrs }, () =>
      addrs.map((a) => `subscription group ${group} created or updated on broker ${a}`).join("\n"),
    );
  },
};

const deleteSubGroup: AdminVerb = {
  name: "deleteSubGroup",
  summary: "Delete a subscription group from a broker, a cluster's masters, or every master.",
  usage: "-g GROUP [-b BROKER_ADDR | -c CLUSTER] [-r true|false]",
  flags: [
    { long: "brokerAddr", short: "b", value: "ADDR", help: "delete from this broker" },
    { long: "clusterName", short: "c", value: "CLUSTER", help: "delete from every master of this cluster" },
    GROUP,
    { long: "removeOffset", short: "r", value: "BOOL", help: "also remove the group's offsets (true|false)" },
  ],
  async run(ctx) {
    const group = required(ctx, "groupName");
    const brokerAddr = opt(ctx, "brokerAddr");
    const clusterName = opt(ctx, "clusterName");
    const removeOffset = boolOpt(ctx, "removeOffset") ?? false;
    const admin = await ctx.admin();
    const brokers = await targets(admin, {
      ...(brokerAddr !== undefined ? { brokerAddr } : {}),
      ...(clusterName !== undefined ? { clusterName } : {}),
    });
    for (const b of brokers) await deleteSubscriptionGroupAt(admin, b.addr, group, removeOffset);
    const addrs = brokers.map((b) => b.addr);
    ctx.print({ groupName: group, removeOffset, brokerAddrs: addrs }, () =>
      addrs.map((a) => `subscription group ${group} deleted from broker ${a}`).join("\n"),
    );
  },
};

interface ProgressRow {
  topic: string;
  brokerName: string;
  queueId: number;
  brokerOffset: number;
  consumerOffset: number;
  diff: number;
  lastTimestamp: number;
}

async function groupProgress(
  admin: Admin,
  group: string,
  topic?: string,
  cluster?: string,
): Promise<ProgressRow[]> {
  const rows: ProgressRow[] = [];
  for (const b of await targets(admin, cluster !== undefined ? { clusterName: cluster } : {})) {
    for (const { mq, value } of await consumeStats(admin, b.addr, group, topic)) {
      rows.push({
        topic: mq.topic,
        brokerName: mq.brokerName || b.brokerName,
        queueId: mq.queueId,
        brokerOffset: value.brokerOffset,
        consumerOffset: value.consumerOffset,
        diff: value.brokerOffset - value.consumerOffset,
        lastTimestamp: value.lastTimestamp,
      });
    }
  }
  return rows.sort(compareMq);
}

/**
 * mqadmin fails, rather than print an empty table, when no broker has consume stats for the group.
 * A broker answers every queue of a named topic whatever the group, so with -t a group that no
 * master has a subscription group or an offset for is refused too.
 */
async function mustExist(admin: Admin, group: string, rows: readonly ProgressRow[], cluster?: string) {
  if (rows.length === 0)
    throw new AdminFailure(
      `no consume stats for group ${group}: no broker has offsets for it (unknown group, or it has consumed nothing)`,
    );
  if (rows.some((r) => r.consumerOffset > 0)) return;
  for (const b of await targets(admin, cluster !== undefined ? { clusterName: cluster } : {}))
    if ((await subscriptionGroups(admin, b.addr)).includes(group)) return;
  throw new AdminFailure(
    `consumer group ${group} does not exist: no master has a subscription group or offsets for it`,
  );
}

interface GroupSummary {
  group: string;
  count: number;
  version: string;
  consumeType: string;
  messageModel: string;
  diffTotal: number;
}

async function groupSummaries(ctx: AdminContext, admin: Admin, cluster?: string) {
  const brokers = await targets(admin, cluster !== undefined ? { clusterName: cluster } : {});
  const groups = new Set<string>();
  for (const b of brokers) for (const g of await subscriptionGroups(admin, b.addr)) groups.add(g);
  const out: GroupSummary[] = [];
  for (const group of [...groups].sort()) {
    const rows = await groupProgress(admin, group, undefined, cluster).catch(() => []);
    const cc = await admin.consumerConnections(group).catch(() => null);
    const versions = cc?.connections.map((c) => c.version) ?? [];
    out.push({
      group,
      count: cc?.connections.length ?? 0,
      version: versions.length > 0 ? versionDesc(Math.min(...versions)) : "OFFLINE",
      consumeType: cc?.consumeType ?? "",
      messageModel: cc?.messageModel ?? "",
      diffTotal: rows.reduce((sum, r) => sum + r.diff, 0),
    });
  }
  ctx.print(out, () =>
    table(
      ["#Group", "#Count", "#Version", "#Type", "#Model", "#Diff Total"],
      out.map((g) => [g.group, g.count, g.version, g.consumeType, g.messageModel, g.diffTotal]),
    ),
  );
}

const consumerProgress: AdminVerb = {
  name: "consumerProgress",
  summary: "A group's broker offset, consumer offset and lag per queue; without -g, every group's total lag.",
  usage: "[-g GROUP [-t TOPIC]] [-c CLUSTER]",
  flags: [
    GROUP,
    { long: "topicName", short: "t", value: "TOPIC", help: "only this topic" },
    { long: "cluster", short: "c", value: "CLUSTER", help: "only the brokers of this cluster" },
  ],
  async run(ctx) {
    const group = opt(ctx, "groupName");
    const topic = opt(ctx, "topicName");
    const cluster = opt(ctx, "cluster");
    const admin = await ctx.admin();
    if (group === undefined) {
      await groupSummaries(ctx, admin, cluster);
      return;
    }
    const rows = await groupProgress(admin, group, topic, cluster);
    await mustExist(admin, group, rows, cluster);
    const diffTotal = rows.reduce((sum, r) => sum + r.diff, 0);
    // An orderly group also shows which member holds each queue's lock.
    const cc = await admin.consumerConnections(group).catch(() => null);
    const owners = cc ? await queueOwners(admin, group, cc) : null;
    const holders = owners?.orderly ? holderIndex(owners) : null;
    const lockedBy = (r: ProgressRow) => holders?.get(queueKey(r)) ?? "N/A";
    const queues = holders ? rows.map((r) => ({ ...r, lockedBy: lockedBy(r) })) : rows;
    ctx.print({ groupName: group, queues, diffTotal }, () =>
      [
        table(
          [
            "#Topic",
            "#Broker Name",
            "#QID",
            "#Broker Offset",
            "#Consumer Offset",
            "#Diff",
            "#LastTime",
            ...(holders ? ["#Locked By"] : []),
          ],
          rows.map((r) => [
            r.topic,
            r.brokerName,
            r.queueId,
            r.brokerOffset,
            r.consumerOffset,
            r.diff,
            r.lastTimestamp > 0 ? humanTime(r.lastTimestamp) : "N/A",
            ...(holders ? [lockedBy(r)] : []),
          ]),
        ),
        "",
        `Consume Diff Total: ${diffTotal}`,
        // SQL92 subscriptions are named, since their lag counts messages the filter may skip.
        ...(cc?.subscriptions ?? [])
          .filter((s) => s.expressionType !== "TAG")
          .map((s) => `Filter: ${s.topic} ${s.expressionType} ${s.subString}`),
      ].join("\n"),
    );
  },
};

const consumerConnection: AdminVerb = {
  name: "consumerConnection",
  summary: "The online consumers of a group: client ids, addresses, versions and subscriptions.",
  usage: "-g GROUP",
  flags: [
    { long: "consumerGroup", short: "g", value: "GROUP", help: "consumer group name" },
    {
      long: "brokerAddr",
      short: "b",
      value: "ADDR",
      help: "accepted for mqadmin compatibility; every master is asked",
    },
  ],
  async run(ctx) {
    const group = required(ctx, "consumerGroup");
    const admin = await ctx.admin();
    const cc = await admin.consumerConnections(group);
    const owners = await queueOwners(admin, group, cc);
    const locks = owners.orderly ? owners.locks : null;
    ctx.print(locks ? { ...cc, queueLocks: locks } : cc, () =>
      [
        table(
          ["#ClientId", "#ClientAddr", "#Language", "#Version"],
          cc.connections.map((c) => [c.clientId, c.clientAddr, c.language, versionDesc(c.version)]),
        ),
        "",
        // The expression type is shown when a subscription is not a tag expression (SQL92).
        cc.subscriptions.some((s) => s.expressionType !== "TAG")
          ? table(
              ["#Topic", "#SubExpression", "#ExpressionType"],
              cc.subscriptions.map((s) => [s.topic, s.subString, s.expressionType]),
            )
          : table(
              ["#Topic", "#SubExpression"],
              cc.subscriptions.map((s) => [s.topic, s.subString]),
            ),
        "",
        `ConsumeType: ${cc.consumeType ?? ""}`,
        `MessageModel: ${cc.messageModel ?? ""}`,
        `ConsumeFromWhere: ${cc.consumeFromWhere ?? ""}`,
        ...(locks
          ? [
              "",
              "Orderly: queue locks held",
              table(
                ["#Topic", "#Broker Name", "#QID", "#Locked By"],
                locks.map((l) => [l.topic, l.brokerName, l.queueId, l.clientId]),
              ),
            ]
          : []),
      ].join("\n"),
    );
  },
};

const producerConnection: AdminVerb = {
  name: "producerConnection",
  summary: "The connected producers of a group on the brokers of a topic.",
  usage: "-g GROUP -t TOPIC",
  flags: [
    { long: "producerGroup", short: "g", value: "GROUP", help: "producer group name" },
    { long: "topic", short: "t", value: "TOPIC", help: "a topic the group sends to" },
  ],
  async run(ctx) {
    const group = required(ctx, "producerGroup");
    const topic = required(ctx, "topic");
    const conns = await producerConnections(await ctx.admin(), group, topic);
    ctx.print(conns, () =>
      table(
        ["#No", "#ClientId", "#ClientAddr", "#Language", "#Version"],
        conns.map((c, i) => [
          String(i + 1).padStart(4, "0"),
          c.clientId,
          c.clientAddr,
          c.language,
          versionDesc(c.version),
        ]),
      ),
    );
  },
};

const resetOffsetByTime: AdminVerb = {
  name: "resetOffsetByTime",
  summary: "Move a group's offsets on a topic to the first message stored at or after a time.",
  usage: "-g GROUP -t TOPIC -s TIME [-f true|false] [-b BROKER_ADDR -q QUEUE_ID [-o OFFSET]]",
  flags: [
    { long: "group", short: "g", value: "GROUP", help: "consumer group" },
    { long: "topic", short: "t", value: "TOPIC", help: "topic" },
    {
      long: "timestamp",
      short: "s",
      value: "TIME",
      help: "now, milliseconds, or yyyy-MM-dd#HH:mm:ss:SSS (local time)",
    },
    {
      long: "force",
      short: "f",
      value: "BOOL",
      help: "also move offsets forward (true|false, default true)",
    },
    { long: "broker", short: "b", value: "ADDR", help: "with -q: reset one queue on this broker" },
    { long: "queue", short: "q", value: "ID", help: "with -b: the queue id" },
    {
      long: "offset",
      short: "o",
      value: "OFFSET",
      help: "with -b and -q: this offset instead of a time lookup",
    },
    { long: "cluster", short: "c", value: "CLUSTER", help: "accepted for mqadmin compatibility" },
  ],
  async run(ctx) {
    const group = required(ctx, "group");
    const topic = required(ctx, "topic");
    const timestamp = timestampOpt(ctx, "timestamp");
    if (timestamp === undefined) required(ctx, "timestamp");
    const ts = timestamp as number;
    const force = boolOpt(ctx, "force") ?? true;
    const broker = opt(ctx, "broker");
    const queueId = intOpt(ctx, "queue", 0, 65535);
    const offset = intOpt(ctx, "offset");
    const admin = await ctx.admin();
    let offsets: QueueOffset[];
    if (broker !== undefined && queueId !== undefined) {
      const target = offset ?? (await admin.client.broker.searchOffset(broker, topic, queueId, ts));
      await admin.client.broker.updateConsumerOffset(broker, group, topic, queueId, target, false);
      const [known] = await targets(admin, { brokerAddr: broker });
      offsets = [{ brokerName: known?.brokerName || broker, queueId, offset: target }];
    } else {
      offsets = resetOffsetRows(await admin.resetOffsetByTime(group, topic, ts, force));
    }
    ctx.print({ group, topic, timestamp: ts, force, offsets }, () =>
      [
        `offsets of group ${group} on topic ${topic} reset to ${humanTime(ts)} (${ts}), force=${force}`,
        table(
          ["#brokerName", "#queueId", "#offset"],
          offsets.map((o) => [o.brokerName, o.queueId, o.offset]),
        ),
      ].join("\n"),
    );
  },
};

export const groupVerbs: readonly AdminVerb[] = [
  updateSubGroup,
  deleteSubGroup,
  consumerProgress,
  consumerConnection,
  producerConnection,
  resetOffsetByTime,
];
