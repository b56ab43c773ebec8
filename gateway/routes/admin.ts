/**
 * Admin reads and basics: topics (list, create, route, stats), groups (list, lag per queue), the
 * cluster. Topic routes need an admin scope for the topic; cluster-wide ones an admin scope on `*`.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { authorize, authorizeSome, visibleTopics } from "../auth.ts";
import type { GatewayApp, GatewayDeps } from "../context.ts";
import { GroupName, problemResponses, TopicName, TopicParam, UPSTREAM_STATUSES } from "../schemas.ts";

const errs = problemResponses(400, 404, ...UPSTREAM_STATUSES);
const json = <T extends z.ZodType>(description: string, schema: T) => ({
  description,
  content: { "application/json": { schema } },
});

const BrokerAddrs = z
  .record(z.string(), z.string())
  .openapi({ description: "broker id → address (0 is the master)" });

const listTopics = createRoute({
  method: "get",
  path: "/v1/topics",
  tags: ["admin"],
  summary: "List topics",
  description: "Every topic the NameServer knows that the API key may administer.",
  responses: { 200: json("topic names", z.object({ topics: z.array(z.string()) })), ...errs },
});

const createTopic = createRoute({
  method: "post",
  path: "/v1/topics",
  tags: ["admin"],
  summary: "Create or update a topic on every master",
  request: {
    body: {
      required: true,
      content: {
        "application/json": {
          schema: z.object({
            topic: TopicName,
            queues: z
              .number()
              .int()
              .min(1)
              .max(1024)
              .default(8)
              .openapi({ description: "read and write queues per broker" }),
            order: z.boolean().default(false),
          }),
        },
      },
    },
  },
  responses: {
    201: json("created on these brokers", z.object({ topic: z.string(), brokers: z.array(z.string()) })),
    ...problemResponses(400, 409, 413, 415, ...UPSTREAM_STATUSES),
  },
});

const topicRoute = createRoute({
  method: "get",
  path: "/v1/topics/{topic}/route",
  tags: ["admin"],
  summary: "The topic's route: brokers and queues",
  request: { params: TopicParam },
  responses: {
    200: json(
      "the route",
      z.object({
        topic: z.string(),
        queues: z.array(
          z.object({
            brokerName: z.string(),
            readQueueNums: z.number().int(),
            writeQueueNums: z.number().int(),
            perm: z.number().int(),
          }),
        ),
        brokers: z.array(z.object({ cluster: z.string(), brokerName: z.string(), addrs: BrokerAddrs })),
        orderTopicConf: z.string().optional(),
      }),
    ),
    ...errs,
  },
});

const topicStats = createRoute({
  method: "get",
  path: "/v1/topics/{topic}/stats",
  tags: ["admin"],
  summary: "Min and max offset of every queue",
  request: { params: TopicParam },
  responses: {
    200: json(
      "per-queue offsets",
      z.object({
        topic: z.string(),
        messages: z.number().int().openapi({ description: "sum of maxOffset - minOffset" }),
        queues: z.array(
          z.object({
            brokerName: z.string(),
            queueId: z.number().int(),
            minOffset: z.number().int(),
            maxOffset: z.number().int(),
          }),
        ),
      }),
    ),
    ...errs,
  },
});

const listGroups = createRoute({
  method: "get",
  path: "/v1/groups",
  tags: ["admin"],
  summary: "List subscription groups",
  responses: { 200: json("group names", z.object({ groups: z.array(z.string()) })), ...errs },
});

const groupLag = createRoute({
  method: "get",
  path: "/v1/groups/{group}/lag",
  tags: ["admin"],
  summary: "A group's offsets and lag per queue",
  request: {
    params: z.object({ group: GroupName.openapi({ param: { name: "group", in: "path" } }) }),
    query: z.object({ topic: TopicName.optional() }),
  },
  responses: {
    200: json(
      "per-queue lag",
      z.object({
        group: z.string(),
        totalLag: z.number().int(),
        queues: z.array(
          z.object({
            topic: z.string(),
            brokerName: z.string(),
            queueId: z.number().int(),
            brokerOffset: z.number().int(),
            consumerOffset: z.number().int(),
            lag: z.number().int(),
            lastTimestamp: z.number().int(),
          }),
        ),
      }),
    ),
    ...errs,
  },
});

const cluster = createRoute({
  method: "get",
  path: "/v1/cluster",
  tags: ["admin"],
  summary: "Clusters and their brokers",
  responses: {
    200: json(
      "the cluster list",
      z.object({
        clusters: z.record(z.string(), z.array(z.string())),
        brokers: z.array(z.object({ cluster: z.string(), brokerName: z.string(), addrs: BrokerAddrs })),
      }),
    ),
    ...errs,
  },
});

const addrsOf = (m: Map<number, string>) => Object.fromEntries([...m].map(([id, a]) => [String(id), a]));

export function registerAdmin(app: GatewayApp, deps: GatewayDeps): void {
  const c0 = deps.cluster;

  app.openapi(listTopics, async (c) => {
    const key = c.get("apiKey");
    authorizeSome(key, "admin");
    return c.json({ topics: visibleTopics(key, await c0.topics()) }, 200);
  });

  app.openapi(createTopic, async (c) => {
    const body = c.req.valid("json");
    authorize(c.get("apiKey"), "admin", body.topic);
    const brokers = await c0.createTopic({ topic: body.topic, queues: body.queues, order: body.order });
    return c.json({ topic: body.topic, brokers }, 201);
  });

  app.openapi(topicRoute, async (c) => {
    const { topic } = c.req.valid("param");
    authorize(c.get("apiKey"), "admin", topic);
    const r = await c0.route(topic);
    return c.json(
      {
        topic,
        queues: r.queueDatas.map((q) => ({
          brokerName: q.brokerName,
          readQueueNums: q.readQueueNums,
          writeQueueNums: q.writeQueueNums,
          perm: q.perm,
        })),
        brokers: r.brokerDatas.map((b) => ({
          cluster: b.cluster,
          brokerName: b.brokerName,
          addrs: addrsOf(b.brokerAddrs),
        })),
        ...(r.orderTopicConf ? { orderTopicConf: r.orderTopicConf } : {}),
      },
      200,
    );
  });

  app.openapi(topicStats, async (c) => {
    const { topic } = c.req.valid("param");
    authorize(c.get("apiKey"), "admin", topic);
    const queues = await c0.topicStats(topic);
    const messages = queues.reduce((n, q) => n + q.maxOffset - q.minOffset, 0);
    return c.json({ topic, messages, queues }, 200);
  });

  app.openapi(listGroups, async (c) => {
    authorize(c.get("apiKey"), "admin");
    return c.json({ groups: await c0.groups() }, 200);
  });

  app.openapi(groupLag, async (c) => {
    const { group } = c.req.valid("param");
    const { topic } = c.req.valid("query");
    authorize(c.get("apiKey"), "admin", topic);
    const rows = await c0.groupLag(group, topic);
    const queues = rows.map((r) => ({
      topic: r.mq.topic,
      brokerName: r.mq.brokerName,
      queueId: r.mq.queueId,
      brokerOffset: r.brokerOffset,
      consumerOffset: r.consumerOffset,
      lag: r.lag,
      lastTimestamp: r.lastTimestamp,
    }));
    return c.json({ group, totalLag: queues.reduce((n, q) => n + q.lag, 0), queues }, 200);
  });

  app.openapi(cluster, async (c) => {
    authorize(c.get("apiKey"), "admin");
    const info = await c0.clusterInfo();
    return c.json(
      {
        clusters: Object.fromEntries(
          [...info.clusterAddrTable].map(([name, set]) => [name, [...set].sort()]),
        ),
        brokers: [...info.brokerAddrTable.values()].map((b) => ({
          cluster: b.cluster,
          brokerName: b.brokerName,
          addrs: addrsOf(b.brokerAddrs),
        })),
      },
      200,
    );
  });
}
