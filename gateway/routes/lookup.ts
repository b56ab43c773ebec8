/**
 * Message lookup: by id (the UNIQ_KEY a send answered, or the broker's offset id) and by key
 * (QUERY_MESSAGE on the index). Reading content needs the consume scope.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { authorize } from "../auth.ts";
import type { GatewayApp, GatewayDeps } from "../context.ts";
import { problems } from "../errors.ts";
import { encodeOutput } from "../message-codec.ts";
import {
  BodyEncodingQuery,
  MessageOutput,
  problemResponses,
  TopicName,
  UPSTREAM_STATUSES,
} from "../schemas.ts";

const byId = createRoute({
  method: "get",
  path: "/v1/topics/{topic}/messages/{msgId}",
  tags: ["lookup"],
  summary: "Look a message up by id",
  request: {
    params: z.object({
      topic: TopicName.openapi({ param: { name: "topic", in: "path" } }),
      msgId: z
        .string()
        .regex(/^[0-9A-Fa-f]{16,64}$/, "a message id is 16 to 64 hex digits")
        .openapi({ param: { name: "msgId", in: "path" } }),
    }),
    query: z.object({ bodyEncoding: BodyEncodingQuery }),
  },
  responses: {
    200: { description: "the message", content: { "application/json": { schema: MessageOutput } } },
    ...problemResponses(400, 404, ...UPSTREAM_STATUSES),
  },
});

const byKey = createRoute({
  method: "get",
  path: "/v1/topics/{topic}/messages",
  tags: ["lookup"],
  summary: "Look messages up by key",
  request: {
    params: z.object({ topic: TopicName.openapi({ param: { name: "topic", in: "path" } }) }),
    query: z.object({
      key: z.string().min(1).max(255),
      max: z.coerce.number().int().min(1).max(64).default(32),
      bodyEncoding: BodyEncodingQuery,
    }),
  },
  responses: {
    200: {
      description: "messages whose keys include key (possibly none)",
      content: { "application/json": { schema: z.object({ messages: z.array(MessageOutput) }) } },
    },
    ...problemResponses(400, 404, ...UPSTREAM_STATUSES),
  },
});

export function registerLookup(app: GatewayApp, deps: GatewayDeps): void {
  const { cluster } = deps;

  app.openapi(byId, async (c) => {
    const { topic, msgId } = c.req.valid("param");
    authorize(c.get("apiKey"), "consume", topic);
    const m = await cluster.messageById(topic, msgId.toUpperCase());
    if (!m || m.topic !== topic) throw problems.notFound(`no message ${msgId} in topic ${topic}`);
    return c.json(encodeOutput(m, c.req.valid("query").bodyEncoding), 200);
  });

  app.openapi(byKey, async (c) => {
    const { topic } = c.req.valid("param");
    const q = c.req.valid("query");
    authorize(c.get("apiKey"), "consume", topic);
    const found = await cluster.messagesByKey(topic, q.key, q.max);
    return c.json({ messages: found.map((m) => encodeOutput(m, q.bodyEncoding)) }, 200);
  });
}
