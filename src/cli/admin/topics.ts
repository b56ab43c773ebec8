/**
 * Topic verbs: updateTopic, deleteTopic, topicList, topicRoute, topicStatus.
 */
import { DLQ_GROUP_TOPIC_PREFIX, RETRY_GROUP_TOPIC_PREFIX } from "../../client/message.ts";
import { compareMq } from "../../client/message-queue.ts";
import { DEFAULT_PERM, isValidPerm, MASTER_ID, type TopicRouteData } from "../../protocol/route/index.ts";
import {
  AdminFailure,
  type AdminVerb,
  boolOpt,
  intOpt,
  oneOf,
  opt,
  required,
  TOPIC_FLAG,
} from "./context.ts";
import { humanTime, table, toPlain } from "./format.ts";
import { groupsConsuming, targets, topicStatsTable } from "./requests.ts";

const TOPIC = TOPIC_FLAG;

const updateTopic: AdminVerb = {
  name: "updateTopic",
  summary: "Create a topic, or update its queues and permission, on a broker or a cluster's masters.",
  usage: "-t TOPIC (-b BROKER_ADDR | -c CLUSTER) [-r N] [-w N] [-p PERM] [-o true|false]",
  flags: [
    { long: "brokerAddr", short: "b", value: "ADDR", help: "create the topic on this broker" },
    {
      long: "clusterName",
      short: "c",
      value: "CLUSTER",
      help: "create the topic on every master of this cluster",
    },
    TOPIC,
    { long: "readQueueNums", short: "r", value: "N", help: "read queues (default 8)" },
    { long: "writeQueueNums", short: "w", value: "N", help: "write queues (default 8)" },
    {
      long: "perm",
      short: "p",
      value: "PERM",
      help: "permission: 2 write, 4 read, 6 read and write (default 6)",
    },
    { long: "order", short: "o", value: "BOOL", help: "ordered topic (true|false, default false)" },
  ],
  async run(ctx) {
    const topic = required(ctx, "topic");
    const where = oneOf(ctx, "brokerAddr", "clusterName");
    const readQueueNums = intOpt(ctx, "readQueueNums", 1, 1024) ?? 8;
    const writeQueueNums = intOpt(ctx, "writeQueueNums", 1, 1024) ?? 8;
    const perm = intOpt(ctx, "perm", 0, 7) ?? DEFAULT_PERM;
    if (!isValidPerm(perm)) throw new AdminFailure(`invalid permission ${perm}`);
    const order = boolOpt(ctx, "order") ?? false;
    const admin = await ctx.admin();
    let brokerNames: string[] | undefined;
    if (where.brokerAddr !== undefined) {
      const [target] = await targets(admin, where);
      if (!target?.brokerName)
        throw new AdminFailure(`broker ${where.brokerAddr} is not registered with the NameServer`);
      brokerNames = [target.brokerName];
    }
    const addrs = await admin.createTopic(topic, {
      readQueueNums,
      writeQueueNums,
      perm,
      order,
      ...(brokerNames ? { brokerNames } : {}),
      ...(where.clusterName !== undefined ? { clusterName: where.clusterName } : {}),
    });
    const config = { topicName: topic, readQueueNums, writeQueueNums, perm, order };
    ctx.print({ ...config, brokerAddrs: addrs }, () =>
      [
        ...addrs.map((a) => `topic ${topic} created or updated on broker ${a}`),
        `readQueueNums=${readQueueNums} writeQueueNums=${writeQueueNums} perm=${perm} order=${order}`,
      ].join("\n"),
    );
  },
};

const deleteTopic: AdminVerb = {
  name: "deleteTopic",
  summary: "Delete a topic from the brokers that serve it and from every NameServer.",
  usage: "-t TOPIC [-c CLUSTER]",
  flags: [
    TOPIC,
    { long: "clusterName", short: "c", value: "CLUSTER", help: "cluster of the topic (informational)" },
  ],
  async run(ctx) {
    const topic = required(ctx, "topic");
    const cluster = opt(ctx, "clusterName");
    const admin = await ctx.admin();
    await admin.deleteTopic(topic);
    ctx.print(
      { topic, deleted: true, ...(cluster ? { clusterName: cluster } : {}) },
      () =>
        `topic ${topic} deleted from its brokers${cluster ? ` in cluster ${cluster}` : ""} and from the NameServer`,
    );
  },
};

export function isGroupTopic(topic: string): boolean {
  return topic.startsWith(RETRY_GROUP_TOPIC_PREFIX) || topic.startsWith(DLQ_GROUP_TOPIC_PREFIX);
}

const topicList: AdminVerb = {
  name: "topicList",
  summary: "List every topic the NameServer knows; with -c, with its cluster and consumer groups.",
  usage: "[-c]",
  flags: [{ long: "clusterModel", short: "c", help: "show each topic's cluster and consumer groups" }],
  async run(ctx) {
    const admin = await ctx.admin();
    const topics = (await admin.client.namesrv.allTopics()).sort();
    if (!ctx.args.flags.has("clusterModel")) {
      ctx.print(topics, () => topics.join("\n"));
      return;
    }
    const rows: { clusterName: string; topic: string; consumerGroups: string[] }[] = [];
    for (const topic of topics.filter((t) => !isGroupTopic(t))) {
      const route = await admin.topicRoute(topic).catch(() => null);
      const groups = new Set<string>();
      for (const b of route?.brokerDatas ?? []) {
        const addr = b.brokerAddrs.get(MASTER_ID);
        if (addr === undefined) continue;
        for (const g of await groupsConsuming(admin, addr, topic).catch(() => [])) groups.add(g);
      }
      rows.push({
        clusterName: route?.brokerDatas[0]?.cluster ?? "",
        topic,
        consumerGroups: [...groups].sort(),
      });
    }
    ctx.print(rows, () =>
      table(
        ["#Cluster Name", "#Topic", "#Consumer Group"],
        rows.flatMap((r) =>
          (r.consumerGroups.length > 0 ? r.consumerGroups : [""]).map((g) => [r.clusterName, r.topic, g]),
        ),
      ),
    );
  },
};

function routeTable(route: TopicRouteData): string {
  const queues = new Map(route.queueDatas.map((q) => [q.brokerName, q]));
  const brokers = [...route.brokerDatas].sort((a, b) => a.brokerName.localeCompare(b.brokerName));
  let read = 0;
  let write = 0;
  const rows = brokers.map((b) => {
    const q = queues.get(b.brokerName);
    read += q?.readQueueNums ?? 0;
    write += q?.writeQueueNums ?? 0;
    const addrs = [...b.brokerAddrs].map(([id, addr]) => `${id}=${addr}`).join(", ");
    return [b.cluster, b.brokerName, `{${addrs}}`, q?.readQueueNums, q?.writeQueueNums, q?.perm];
  });
  return table(
    ["#ClusterName", "#BrokerName", "#BrokerAddrs", "#ReadQueue", "#WriteQueue", "#Perm"],
    [...rows, ["Total:", queues.size, "", read, write, ""]],
  );
}

const topicRoute: AdminVerb = {
  name: "topicRoute",
  summary: "Show a topic's route: its brokers and their queues (as JSON, or a table with -l).",
  usage: "-t TOPIC [-l]",
  flags: [TOPIC, { long: "list", short: "l", help: "print a table instead of the route JSON" }],
  async run(ctx) {
    const topic = required(ctx, "topic");
    const route = await (await ctx.admin()).topicRoute(topic);
    ctx.print(route, () =>
      ctx.args.flags.has("list") ? routeTable(route) : JSON.stringify(toPlain(route), null, 2),
    );
  },
};

const topicStatus: AdminVerb = {
  name: "topicStatus",
  summary: "Min and max offset and last store time of every queue of a topic.",
  usage: "-t TOPIC [-c CLUSTER]",
  flags: [TOPIC, { long: "cluster", short: "c", value: "CLUSTER", help: "only the brokers of this cluster" }],
  async run(ctx) {
    const topic = required(ctx, "topic");
    const cluster = opt(ctx, "cluster");
    const admin = await ctx.admin();
    const route = await admin.topicRoute(topic);
    const rows: {
      brokerName: string;
      queueId: number;
      minOffset: number;
      maxOffset: number;
      lastUpdateTimestamp: number;
    }[] = [];
    for (const b of route.brokerDatas) {
      const addr = b.brokerAddrs.get(MASTER_ID);
      if (addr === undefined || (cluster !== undefined && b.cluster !== cluster)) continue;
      for (const { mq, value } of await topicStatsTable(admin, addr, topic)) {
        rows.push({ brokerName: mq.brokerName || b.brokerName, queueId: mq.queueId, ...value });
      }
    }
    rows.sort((a, b) => compareMq({ topic, ...a }, { topic, ...b }));
    ctx.print(rows, () =>
      table(
        ["#Broker Name", "#QID", "#Min Offset", "#Max Offset", "#Last Updated"],
        rows.map((r) => [
          r.brokerName,
          r.queueId,
          r.minOffset,
          r.maxOffset,
          humanTime(r.lastUpdateTimestamp),
        ]),
      ),
    );
  },
};

export const topicVerbs: readonly AdminVerb[] = [
  updateTopic,
  deleteTopic,
  topicList,
  topicRoute,
  topicStatus,
];
