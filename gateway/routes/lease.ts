/**
 * Lease-based consume over HTTP (SQS words, POP underneath): receive messages under a lease with
 * long polling, then ack, nack (visible again after delayMs) or extend (fresh handle) batches of
 * signed receipt handles, one result per handle. Any gateway sharing the handle secret settles any
 * handle; a handle that does not verify, or names another group or topic, is refused with 400.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { authorize } from "../auth.ts";
import type { GatewayApp, GatewayDeps } from "../context.ts";
import { Leases, type SettleOp } from "../leases.ts";
import { HANDLE_CHARS_MAX } from "../receipt-handle.ts";
import {
  GroupName,
  MessageOutput,
  Problem,
  problemResponses,
  TopicName,
  UPSTREAM_STATUSES,
} from "../schemas.ts";

/** The broker's cap on one POP (spec pop §A.4.2). */
const RECEIVE_MAX = 32;
/** The proxy's maxInvisibleTimeMills: 12 h. */
const INVISIBLE_MS_MAX = 12 * 3600 * 1000;
const INVISIBLE_MS_MIN = 1000;
const HANDLES_MAX = 64;

const GroupTopic = z.object({
  group: GroupName.openapi({ param: { name: "group", in: "path" } }),
  topic: TopicName.openapi({ param: { name: "topic", in: "path" } }),
});

const Handles = z
  .array(z.string().min(1).max(HANDLE_CHARS_MAX).openapi({ description: "a receipt handle from receive" }))
  .min(1)
  .max(HANDLES_MAX);

const InvisibleMs = z.number().int().min(INVISIBLE_MS_MIN).max(INVISIBLE_MS_MAX);

export const LeasedMessageOutput = MessageOutput.extend({
  receiptHandle: z.string().openapi({ description: "opaque, signed; ack / nack / extend it" }),
  leaseExpiresAt: z
    .number()
    .int()
    .openapi({ description: "epoch ms when the lease ends and the message becomes visible again" }),
}).openapi("LeasedMessage");

const SettleResults = z
  .object({
    results: z.array(
      z.object({
        ok: z.boolean(),
        receiptHandle: z.string().optional().openapi({ description: "extend: the new handle" }),
        leaseExpiresAt: z.number().int().optional(),
        problem: Problem.optional(),
      }),
    ),
  })
  .openapi("LeaseResults", { description: "one result per handle, in request order" });

const receiveRoute = (waitMsMax: number) =>
  createRoute({
    method: "post",
    path: "/v1/groups/{group}/topics/{topic}/receive",
    tags: ["consume (lease)"],
    summary: "Receive messages under a lease",
    description:
      "POP: up to max messages become invisible to the group for invisibleMs; ack each before then or it is " +
      "delivered again (reconsumeTimes + 1). With waitMs the request is held until a message arrives or the time is up. " +
      "A group that has consumed nothing starts at the newest messages.",
    request: {
      params: GroupTopic,
      body: {
        required: true,
        content: {
          "application/json": {
            schema: z
              .object({
                max: z.number().int().min(1).max(RECEIVE_MAX).default(16),
                invisibleMs: InvisibleMs.default(60_000),
                waitMs: z.number().int().min(0).max(waitMsMax).default(0),
                tags: z
                  .string()
                  .max(4096)
                  .optional()
                  .openapi({ description: "tag expression, e.g. TagA || TagB" }),
                sql: z.string().max(4096).optional().openapi({
                  description:
                    "SQL92 over properties instead of tags, e.g. region = 'eu' (needs the broker's SQL92 filter)",
                }),
                ordered: z.boolean().default(false).openapi({
                  description: "ordered POP: a queue's next messages wait until these are settled",
                }),
                bodyEncoding: z.enum(["auto", "text", "base64"]).default("auto"),
              })
              .refine((b) => b.tags === undefined || b.sql === undefined, {
                message: "give tags or sql, not both",
                path: ["sql"],
              }),
          },
        },
      },
    },
    responses: {
      200: {
        description: "messages (possibly none)",
        content: {
          "application/json": {
            schema: z.object({ messages: z.array(LeasedMessageOutput) }).openapi("ReceiveResult"),
          },
        },
      },
      ...problemResponses(400, 404, 501, ...UPSTREAM_STATUSES),
    },
  });

const settleRoutes: { op: SettleOp; summary: string; description: string; body: z.ZodObject }[] = [
  {
    op: "ack",
    summary: "Acknowledge leased messages",
    description: "Each message is done and not delivered again.",
    body: z.object({ receiptHandles: Handles }),
  },
  {
    op: "nack",
    summary: "Give leased messages back",
    description: "Each message is delivered again after delayMs (0: at once), with reconsumeTimes + 1.",
    body: z.object({
      receiptHandles: Handles,
      delayMs: z.number().int().min(0).max(INVISIBLE_MS_MAX).default(0),
    }),
  },
  {
    op: "extend",
    summary: "Extend the lease of messages",
    description:
      "Each message stays invisible for invisibleMs from now; use the new handle of its result from then on " +
      "(the old one no longer acks).",
    body: z.object({ receiptHandles: Handles, invisibleMs: InvisibleMs }),
  },
];

export function registerLease(app: GatewayApp, deps: GatewayDeps): void {
  const leases = new Leases(deps);

  app.openapi(receiveRoute(deps.options.pullWaitMsMax), async (c) => {
    const { group, topic } = c.req.valid("param");
    const b = c.req.valid("json");
    authorize(c.get("apiKey"), "consume", topic);
    const messages = await leases.receive(
      {
        group,
        topic,
        maxMessages: b.max,
        waitMs: b.waitMs,
        invisibleMs: b.invisibleMs,
        ...(b.tags !== undefined ? { tags: b.tags } : {}),
        ...(b.sql !== undefined ? { sql: b.sql } : {}),
        ...(b.ordered ? { ordered: true } : {}),
      },
      b.bodyEncoding,
      "http",
    );
    // The client hung up during the long poll: nobody gets these, so they need not wait out their lease.
    if (c.req.raw.signal.aborted)
      void leases.giveBack(messages, { instance: c.req.path, requestId: c.get("requestId") });
    return c.json({ messages }, 200);
  });

  for (const r of settleRoutes) {
    const route = createRoute({
      method: "post",
      path: `/v1/groups/{group}/topics/{topic}/${r.op}`,
      tags: ["consume (lease)"],
      summary: r.summary,
      description: `${r.description} One result per handle; a handle that does not verify refuses the request (400).`,
      request: {
        params: GroupTopic,
        body: { required: true, content: { "application/json": { schema: r.body } } },
      },
      responses: {
        200: { description: "results", content: { "application/json": { schema: SettleResults } } },
        ...problemResponses(400, ...UPSTREAM_STATUSES),
      },
    });
    app.openapi(route, async (c) => {
      const scope = c.req.valid("param");
      const b = c.req.valid("json") as { receiptHandles: string[]; delayMs?: number; invisibleMs?: number };
      authorize(c.get("apiKey"), "consume", scope.topic);
      const handles = leases.verifyAll(b.receiptHandles, scope);
      const results = await leases.settle(r.op, handles, b.invisibleMs ?? b.delayMs ?? 0, {
        instance: c.req.path,
        requestId: c.get("requestId"),
      });
      return c.json({ results }, 200);
    });
  }
}
