/**
 * More topic verbs: topicClusterList, updateTopicPerm, allocateMQ, updateOrderConf (the
 * NameServer's ORDER_TOPIC_CONFIG KV namespace, which ordered producers of old clients read).
 */
import { allocateAveragely, deleteKvConfig, getKvConfig, putKvConfig } from "../../client/index.ts";
import type { MessageQueue } from "../../client/message-queue.ts";
import { MASTER_ID } from "../../protocol/route/index.ts";
import { UsageError } from "../args.ts";
import { AdminFailure, type AdminVerb, intOpt, oneOf, opt, required, TOPIC_FLAG } from "./context.ts";
import { targets } from "./requests.ts";

const TOPIC = TOPIC_FLAG;
/** The NameServer KV namespace of ordered topics' `brokerName:queueNums;...` configs. */
export const ORDER_TOPIC_CONFIG = "ORDER_TOPIC_CONFIG";

const topicClusterList: AdminVerb = {
  name: "topicClusterList",
  summary: "The clusters a topic is on, one per line.",
  usage: "-t TOPIC",
  flags: [TOPIC],
  async run(ctx) {
    const topic = required(ctx, "topic");
    const admin = await ctx.admin();
    const route = await admin.topicRoute(topic);
    const info = await admin.clusterList();
    const clusters = new Set<string>();
    for (const b of route.brokerDatas) {
      for (const [cluster, names] of info.clusterAddrTable)
        if (names.has(b.brokerName)) clusters.add(cluster);
    }
    const list = [...clusters].sort();
    ctx.print(list, () => list.join("\n"));
  },
};

const updateTopicPerm: AdminVerb = {
  name: "updateTopicPerm",
  summary: "Change a topic's permission (2 write, 4 read, 6 both) on a master or a cluster's masters.",
  usage: "-t TOPIC -p PERM (-b BROKER_ADDR | -c CLUSTER)",
  flags: [
    { long: "brokerAddr", short: "b", value: "ADDR", help: "the master to change it on" },
    { long: "clusterName", short: "c", value: "CLUSTER", help: "every master of this cluster" },
    TOPIC,
    { long: "perm", short: "p", value: "PERM", help: "new permission: 2 write, 4 read, 6 read and write" },
  ],
  async run(ctx) {
    const topic = required(ctx, "topic");
    const perm = intOpt(ctx, "perm", 0, 7) ?? Number(required(ctx, "perm"));
    const where = oneOf(ctx, "brokerAddr", "clusterName");
    const admin = await ctx.admin();
    const route = await admin.topicRoute(topic);
    const changed: { brokerAddr: string; brokerName: string; oldPerm: number }[] = [];
    for (const b of await targets(admin, where)) {
      const master = route.brokerDatas.find((d) => d.brokerAddrs.get(MASTER_ID) === b.addr);
      if (master === undefined) {
        if (where.brokerAddr !== undefined)
          throw new AdminFailure(`broker ${b.addr} is not a master serving topic ${topic}`);
        continue;
      }
      const queues = route.queueDatas.find((q) => q.brokerName === master.brokerName);
      if (queues === undefined) continue;
      if (queues.perm === perm && where.brokerAddr !== undefined) {
        ctx.print({ topic, perm, changed: [] }, () => "new perm equals to the old one!");
        return;
      }
      await admin.createTopic(topic, {
        readQueueNums: queues.readQueueNums,
        writeQueueNums: queues.writeQueueNums,
        perm,
        brokerNames: [master.brokerName],
      });
      changed.push({ brokerAddr: b.addr, brokerName: master.brokerName, oldPerm: queues.perm });
    }
    if (changed.length === 0)
      throw new AdminFailure(`no master of cluster ${where.clusterName} serves ${topic}`);
    ctx.print({ topic, perm, changed }, () =>
      changed
        .map((c) => `update topic perm from ${c.oldPerm} to ${perm} in ${c.brokerAddr} success.`)
        .join("\n"),
    );
  },
};

const allocateMQ: AdminVerb = {
  name: "allocateMQ",
  summary: "How a topic's queues would be shared by consumers with these ids (averagely, as clients do).",
  usage: "-t TOPIC -i ID[,ID...]",
  flags: [TOPIC, { long: "ipList", short: "i", value: "IDS", help: "consumer ids (IPs), comma separated" }],
  async run(ctx) {
    const topic = required(ctx, "topic");
    const ids = required(ctx, "ipList")
      .split(",")
      .map((s) => s.trim())
      .filter((s) => s !== "");
    if (ids.length === 0) throw new UsageError("flag '-i' names no consumer id");
    const route = await (await ctx.admin()).topicRoute(topic);
    const mqs: MessageQueue[] = route.queueDatas.flatMap((q) =>
      Array.from({ length: q.readQueueNums }, (_, queueId) => ({ topic, brokerName: q.brokerName, queueId })),
    );
    const result = Object.fromEntries(ids.map((id) => [id, allocateAveragely(id, mqs, ids)]));
    // mqadmin prints its RebalanceResult as JSON whatever the flags; so do we.
    ctx.print({ result }, () => JSON.stringify({ result }));
  },
};

const updateOrderConf: AdminVerb = {
  name: "updateOrderConf",
  summary: "Get, put or delete a topic's order conf (brokerName:queueNums;...) on every NameServer.",
  usage: "-t TOPIC -m get|put|delete [-v ORDER_CONF]",
  flags: [
    TOPIC,
    { long: "method", short: "m", value: "METHOD", help: "get, put or delete" },
    { long: "orderConf", short: "v", value: "CONF", help: "with put: brokerName1:num;brokerName2:num" },
  ],
  async run(ctx) {
    const topic = required(ctx, "topic");
    const method = required(ctx, "method").toLowerCase();
    const admin = await ctx.admin();
    if (method === "get") {
      const orderConf = await getKvConfig(admin, ORDER_TOPIC_CONFIG, topic);
      if (orderConf === null) throw new AdminFailure(`topic ${topic} has no order conf`);
      ctx.print(
        { topic, orderConf },
        () => `get orderConf success. topic=[${topic}], orderConf=[${orderConf}]`,
      );
    } else if (method === "put") {
      const orderConf = required(ctx, "orderConf");
      if (!/^[^:;]+:\d+(;[^:;]+:\d+)*;?$/.test(orderConf))
        throw new UsageError(
          `invalid value '${orderConf}' for flag '-v': expected brokerName:num[;brokerName:num...] (see rocketbun admin updateOrderConf --help)`,
        );
      await putKvConfig(admin, ORDER_TOPIC_CONFIG, topic, orderConf);
      ctx.print(
        { topic, orderConf },
        () => `update orderConf success. topic=[${topic}], orderConf=[${orderConf}]`,
      );
    } else if (method === "delete") {
      await deleteKvConfig(admin, ORDER_TOPIC_CONFIG, topic);
      ctx.print({ topic, deleted: true }, () => `delete orderConf success. topic=[${topic}]`);
    } else {
      throw new UsageError(
        `invalid value '${opt(ctx, "method")}' for flag '-m': expected get, put or delete (see rocketbun admin updateOrderConf --help)`,
      );
    }
  },
};

export const topicOpVerbs: readonly AdminVerb[] = [
  topicClusterList,
  updateTopicPerm,
  allocateMQ,
  updateOrderConf,
];
