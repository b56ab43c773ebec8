/**
 * The zod schemas shared by routes and WebSocket frames. They validate input and, through
 * @hono/zod-openapi, are the OpenAPI 3.1 document: one definition, so the docs cannot drift.
 */
import { z } from "@hono/zod-openapi";
import { groupNameProblem, topicNameProblem } from "../src/protocol/topic-names.ts";

/** RocketMQ's property string separators: a value holding one would split into other properties. */
const NAME_VALUE = "\u0001";
const PROPERTY = "\u0002";
export const hasSeparator = (s: string) => s.includes(NAME_VALUE) || s.includes(PROPERTY);

/** Java's Validators: legal characters, at most 127 characters. */
export const TopicName = z
  .string()
  .superRefine((t, ctx) => {
    const problem = topicNameProblem(t);
    if (problem !== null) ctx.addIssue({ code: "custom", message: problem });
  })
  .openapi({ example: "orders", description: "topic name: ^[%|a-zA-Z0-9_-]{1,127}$" });

export const GroupName = z
  .string()
  .superRefine((g, ctx) => {
    const problem = groupNameProblem(g);
    if (problem !== null) ctx.addIssue({ code: "custom", message: problem });
  })
  .openapi({ example: "billing" });

export const TopicParam = z.object({ topic: TopicName.openapi({ param: { name: "topic", in: "path" } }) });

const text = (what: string, max: number) =>
  z
    .string()
    .max(max)
    .refine((s) => !hasSeparator(s), { message: `${what} may not contain \\u0001 or \\u0002` });

/** A timestamp as epoch milliseconds or an ISO 8601 string. */
export const Instant = z
  .union([z.number().int().nonnegative(), z.iso.datetime({ offset: true })])
  .openapi({ example: "2026-01-01T12:00:00Z", description: "epoch milliseconds or ISO 8601" });

/** The same in a query string or header, where everything is text. */
export const InstantText = z
  .string()
  .refine((v) => /^\d{1,15}$/.test(v) || ISO_INSTANT.test(v), {
    message: "not epoch milliseconds or an ISO 8601 time",
  })
  .openapi({ example: "2026-01-01T12:00:00Z", description: "epoch milliseconds or ISO 8601" });

const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

export function instantMs(v: number | string): number {
  if (typeof v === "number") return v;
  return /^\d+$/.test(v) ? Number(v) : Date.parse(v);
}

/** The longest timer RocketMQ 5 accepts by default (timerMaxDelaySec = 3 days). */
export const TIMER_MAX_DELAY_MS = 3 * 24 * 3600 * 1000;

export const MessageInput = z
  .object({
    body: z.string().openapi({ example: "hello", description: "the body, as text or base64 (bodyEncoding)" }),
    bodyEncoding: z.enum(["text", "base64"]).default("text").openapi({
      description: "text: the body's UTF-8 bytes are sent; base64: the decoded bytes (binary bodies)",
    }),
    tags: text("tags", 255).optional().openapi({ example: "created" }),
    keys: z
      .union([text("a key", 255), z.array(text("a key", 255)).max(32)])
      .optional()
      .refine((k) => k === undefined || (typeof k === "string" ? [k] : k).every((x) => !/\s/.test(x)), {
        message: "keys may not contain whitespace (RocketMQ separates keys with spaces)",
      })
      .openapi({ example: ["order-42"], description: "one key or several; indexed for lookup by key" }),
    properties: z
      .record(text("a property name", 255).min(1), text("a property value", 32_767))
      .optional()
      .openapi({
        example: { region: "eu" },
        description: "user properties; RocketMQ's reserved names are refused",
      }),
    shardingKey: text("shardingKey", 255)
      .optional()
      .openapi({ description: "messages of one key go to one queue, in order" }),
    delayMs: z
      .number()
      .int()
      .min(0)
      .max(TIMER_MAX_DELAY_MS)
      .optional()
      .openapi({ description: "deliver this many ms after storing (RocketMQ 5 TIMER_DELAY_MS)" }),
    deliverAt: Instant.optional().openapi({
      description: "deliver at this time (RocketMQ 5 TIMER_DELIVER_MS)",
    }),
  })
  .refine((m) => m.delayMs === undefined || m.deliverAt === undefined, {
    message: "give delayMs or deliverAt, not both",
    path: ["deliverAt"],
  })
  .openapi("MessageInput");

export type MessageInput = z.infer<typeof MessageInput>;

export const SendResult = z
  .object({
    msgId: z.string().openapi({ example: "7F00000100002A9F0000000000000000" }),
    topic: z.string(),
    brokerName: z.string(),
    queueId: z.number().int(),
    queueOffset: z.number().int(),
    status: z
      .string()
      .openapi({ description: "SEND_OK, or FLUSH_DISK_TIMEOUT etc. when stored but not flushed" }),
  })
  .openapi("SendResult");

export const Problem = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    detail: z.string().optional(),
    instance: z.string().optional(),
    requestId: z.string().optional(),
    code: z
      .number()
      .int()
      .optional()
      .openapi({ description: "the RocketMQ response code behind the problem" }),
  })
  .catchall(z.unknown())
  .openapi("Problem");

export const MessageOutput = z
  .object({
    msgId: z.string(),
    offsetMsgId: z.string(),
    topic: z.string(),
    brokerName: z.string(),
    queueId: z.number().int(),
    queueOffset: z.number().int(),
    tags: z.string().optional(),
    keys: z.array(z.string()),
    properties: z.record(z.string(), z.string()).openapi({ description: "user properties" }),
    body: z.string(),
    bodyEncoding: z.enum(["text", "base64"]),
    bornTimestamp: z.number().int(),
    storeTimestamp: z.number().int(),
    bornHost: z.string(),
    storeHost: z.string(),
    reconsumeTimes: z.number().int(),
  })
  .openapi("Message");

export const BodyEncodingQuery = z.enum(["auto", "text", "base64"]).default("auto").openapi({
  description: "auto: text when the body is valid UTF-8, else base64; text replaces invalid bytes",
});

/** The problem responses every route may give, for the document. */
export function problemResponses(...statuses: number[]) {
  const out: Record<
    number,
    { description: string; content: { "application/problem+json": { schema: typeof Problem } } }
  > = {};
  for (const s of statuses) {
    out[s] = {
      description: PROBLEM_DESCRIPTIONS[s] ?? "problem",
      content: { "application/problem+json": { schema: Problem } },
    };
  }
  return out;
}

const PROBLEM_DESCRIPTIONS: Record<number, string> = {
  400: "invalid input",
  401: "an API key is required",
  403: "the API key lacks the scope, or the broker refused",
  404: "no such topic, queue, group or message",
  409: "exists already",
  413: "request too large",
  415: "unsupported content type",
  429: "the broker is busy: retry after Retry-After seconds",
  501: "needs a capability not built yet",
  502: "the broker failed",
  503: "the broker cannot be reached: retry after Retry-After seconds",
  504: "the broker did not answer in time",
};

/** Statuses any route reaching the broker can answer. */
export const UPSTREAM_STATUSES = [401, 403, 429, 502, 503, 504] as const;
