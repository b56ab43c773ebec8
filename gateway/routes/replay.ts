/**
 * Replay by offset, with no group state: read a queue from an offset (PULL_MESSAGE, long polling up
 * to pullWaitMsMax), and find the offsets of a point in time (SEARCH_OFFSET_BY_TIMESTAMP).
 */
import { createRoute, z } from "@hono/zod-openapi";
import { authorize } from "../auth.ts";
import type { GatewayApp, GatewayDeps } from "../context.ts";
import { encodeOutput } from "../message-codec.ts";
import {
  BodyEncodingQuery,
  InstantText,
  instantMs,
  MessageOutput,
  problemResponses,
  TopicName,
  UPSTREAM_STATUSES,
} from "../schemas.ts";

const QueueParams = z.object({
  topic: TopicName.openapi({ param: { name: "topic", in: "path" } }),
  // A string in the schema: a coerced number would be documented as optional (zod-to-openapi).
  queueId: z
    .string()
    .regex(/^\d{1,5}$/, "a queue id is an integer 0-65535")
    .refine((v) => Number(v) <= 65_535, "a queue id is an integer 0-65535")
    .openapi({ param: { name: "queueId", in: "path" }, example: "0" }),
});

const Broker = z
  .string()
  .min(1)
  .max(255)
  .optional()
  .openapi({ description: "broker name; needed when several brokers serve the topic" });

const readRoute = (pullWaitMsMax: number, pullMessagesMax: number) =>
  createRoute({
    method: "get",
    path: "/v1/topics/{topic}/queues/{queueId}/messages",
    tags: ["replay"],
    summary: "Read a queue from an offset",
    description:
      "No group state: nothing is committed. With waitMs the read is held until a message arrives or the time is up. " +
      "Continue with nextOffset. status OFFSET_MOVED means offset was outside [minOffset, maxOffset].",
    request: {
      params: QueueParams,
      query: z.object({
        offset: z.coerce
          .number()
          .int()
          .min(0)
          .max(Number.MAX_SAFE_INTEGER)
          .default(0)
          .openapi({ description: "first offset to read" }),
        max: z.coerce
          .number()
          .int()
          .min(1)
          .max(pullMessagesMax)
          .default(32)
          .openapi({ description: "most messages to return" }),
        waitMs: z.coerce
          .number()
          .int()
          .min(0)
          .max(pullWaitMsMax)
          .default(0)
          .openapi({ description: "hold the read up to this long when nothing is there yet" }),
        tags: z.string().max(4096).optional().openapi({ description: "tag expression, e.g. TagA || TagB" }),
        broker: Broker,
        bodyEncoding: BodyEncodingQuery,
      }),
    },
    responses: {
      200: {
        description: "a page of messages (possibly empty)",
        content: {
          "application/json": {
            schema: z
              .object({
                topic: z.string(),
                brokerName: z.string(),
                queueId: z.number().int(),
                status: z.enum(["FOUND", "NO_NEW_MSG", "NO_MATCHED_MSG", "OFFSET_MOVED"]),
                nextOffset: z.number().int(),
                minOffset: z.number().int(),
                maxOffset: z.number().int(),
                messages: z.array(MessageOutput),
              })
              .openapi("QueuePage"),
          },
        },
      },
      ...problemResponses(400, 404, ...UPSTREAM_STATUSES),
    },
  });

const offsetsRoute = createRoute({
  method: "get",
  path: "/v1/topics/{topic}/offsets",
  tags: ["replay"],
  summary: "Offsets of a point in time",
  description: "For each queue (or one), the first offset whose message was stored at or after timestamp.",
  request: {
    params: z.object({ topic: TopicName.openapi({ param: { name: "topic", in: "path" } }) }),
    query: z.object({
      timestamp: InstantText,
      queueId: z.coerce.number().int().min(0).max(65_535).optional(),
      broker: Broker,
    }),
  },
  responses: {
    200: {
      description: "offsets per queue",
      content: {
        "application/json": {
          schema: z.object({
            topic: z.string(),
            timestamp: z.number().int(),
            offsets: z.array(
              z.object({ brokerName: z.string(), queueId: z.number().int(), offset: z.number().int() }),
            ),
          }),
        },
      },
    },
    ...problemResponses(400, 404, ...UPSTREAM_STATUSES),
  },
});

export function registerReplay(app: GatewayApp, deps: GatewayDeps): void {
  const { cluster, options, metrics } = deps;

  app.openapi(readRoute(options.pullWaitMsMax, options.pullMessagesMax), async (c) => {
    const { topic } = c.req.valid("param");
    const queueId = Number(c.req.valid("param").queueId);
    const q = c.req.valid("query");
    authorize(c.get("apiKey"), "consume", topic);
    const page = await cluster.read({
      topic,
      queueId,
      offset: q.offset,
      maxMessages: q.max,
      waitMs: q.waitMs,
      ...(q.broker !== undefined ? { brokerName: q.broker } : {}),
      ...(q.tags !== undefined ? { tags: q.tags } : {}),
    });
    metrics.messagesOut.inc({ transport: "http" }, page.messages.length);
    return c.json(
      {
        topic,
        brokerName: page.brokerName,
        queueId,
        status:
          page.status === "OFFSET_ILLEGAL"
            ? ("OFFSET_MOVED" as const)
            : (page.status as "FOUND" | "NO_NEW_MSG" | "NO_MATCHED_MSG"),
        nextOffset: page.nextOffset,
        minOffset: page.minOffset,
        maxOffset: page.maxOffset,
        messages: page.messages.map((m) => encodeOutput(m, q.bodyEncoding)),
      },
      200,
    );
  });

  app.openapi(offsetsRoute, async (c) => {
    const { topic } = c.req.valid("param");
    const q = c.req.valid("query");
    authorize(c.get("apiKey"), "consume", topic);
    const timestamp = instantMs(q.timestamp);
    const queue =
      q.queueId === undefined
        ? undefined
        : { topic, queueId: q.queueId, ...(q.broker !== undefined ? { brokerName: q.broker } : {}) };
    const offsets = await cluster.offsetsAtTime(topic, timestamp, queue);
    return c.json({ topic, timestamp, offsets }, 200);
  });
}
