/**
 * Produce: one message as JSON or as a raw body with `mq-*` headers, and batches whose items
 * succeed or fail one by one (one failed item never fails the rest).
 */
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { authorize } from "../auth.ts";
import type { GatewayApp, GatewayDeps, GatewayEnv } from "../context.ts";
import { GatewayProblem, problemBody, toProblem } from "../errors.ts";
import { rawHeadersToInput } from "../message-codec.ts";
import { checkTopic, isJson, parse, parseMessageInput, readJson } from "../message-input.ts";
import { produceOne } from "../produce-one.ts";
import {
  MessageInput,
  Problem,
  problemResponses,
  SendResult,
  TopicParam,
  UPSTREAM_STATUSES,
} from "../schemas.ts";
import { validationProblem } from "../validation.ts";

const RawHeaders = z.object({
  "mq-tags": z.string().optional().openapi({ description: "raw body: the tags" }),
  "mq-keys": z.string().optional().openapi({ description: "raw body: keys separated by commas or spaces" }),
  "mq-sharding-key": z.string().optional().openapi({ description: "raw body: the sharding key" }),
  "mq-delay-ms": z.string().optional().openapi({ description: "raw body: delayMs" }),
  "mq-deliver-at": z
    .string()
    .optional()
    .openapi({ description: "raw body: deliverAt (epoch ms or ISO 8601)" }),
  "mq-properties": z
    .string()
    .optional()
    .openapi({ description: "raw body: properties as a=1&b=2 (URL encoded)" }),
});

const sendOne = createRoute({
  method: "post",
  path: "/v1/topics/{topic}/messages",
  tags: ["produce"],
  summary: "Send one message",
  description:
    "JSON (application/json, MessageInput) or a raw body (application/octet-stream or text/plain) whose options come in mq-* headers.",
  request: {
    params: TopicParam,
    headers: RawHeaders,
    body: {
      // Not `required`: a required JSON body would be demanded of raw bodies too (zod-openapi).
      required: false,
      content: {
        "application/json": { schema: MessageInput },
        "application/octet-stream": { schema: z.string().openapi({ format: "binary" }) },
        "text/plain": { schema: z.string() },
      },
    },
  },
  responses: {
    201: { description: "stored", content: { "application/json": { schema: SendResult } } },
    ...problemResponses(400, 404, 413, 415, ...UPSTREAM_STATUSES),
  },
});

const BatchItemResult = z
  .object({
    index: z.number().int(),
    ok: z.boolean(),
    result: SendResult.optional(),
    problem: Problem.optional(),
  })
  .openapi("BatchItemResult");

const sendBatch = createRoute({
  method: "post",
  path: "/v1/topics/{topic}/messages/batch",
  tags: ["produce"],
  summary: "Send several messages, each on its own",
  description:
    "Each item is a MessageInput, validated and sent on its own: the answer lists a result or a problem per item, in order.",
  request: {
    params: TopicParam,
    body: {
      required: true,
      content: {
        "application/json": {
          schema: z.object({
            messages: z
              .array(z.unknown().openapi({ description: "a MessageInput" }))
              .min(1)
              .openapi({ description: "MessageInput items" }),
          }),
        },
      },
    },
  },
  responses: {
    200: {
      description: "every item was tried",
      content: {
        "application/json": {
          schema: z.object({
            succeeded: z.number().int(),
            failed: z.number().int(),
            results: z.array(BatchItemResult),
          }),
        },
      },
    },
    ...problemResponses(400, 413, 415, 401, 403),
  },
});

/** Sends of one batch in flight at once: enough to keep a broker busy, few enough to be fair. */
const BATCH_CONCURRENCY = 16;

export function registerProduce(app: GatewayApp, deps: GatewayDeps): void {
  const { options } = deps;
  const send = produceOne(deps);

  // The hottest route is validated by hand against the same schemas (synchronously, and only the
  // parts the content type needs), not through zod-openapi's chain of async validators, which
  // cost about as much as the rest of the request. The route is documented like every other.
  app.openAPIRegistry.registerPath(sendOne);
  app.post(sendOne.getRoutingPath(), async (c) => {
    const topic = checkTopic(c.req.param("topic"));
    authorize(c.get("apiKey"), "produce", topic);
    const contentType = c.req.header("content-type");
    let input: MessageInput;
    let raw: Uint8Array | undefined;
    if (isJson(contentType)) {
      input = parseMessageInput(await readJson(c.req.raw));
    } else if (contentType === undefined || RAW_TYPES.has(essence(contentType))) {
      const headers = parse(RawHeaders, rawHeaderValues(c.req.raw.headers), "header");
      input = parse(MessageInput, rawHeadersToInput(headers), "header");
      raw = new Uint8Array(await c.req.arrayBuffer());
      if (contentType === undefined && raw.length > 0) throw unsupportedType();
    } else {
      throw unsupportedType();
    }
    const result = await send(topic, input, raw);
    return c.json(result, 201);
  });

  app.openapi(sendBatch, async (c) => {
    const { topic } = c.req.valid("param");
    authorize(c.get("apiKey"), "produce", topic);
    const items = c.req.valid("json").messages;
    if (items.length > options.batchItemsMax)
      throw validationProblem(
        null,
        "json",
        `a batch holds at most ${options.batchItemsMax} messages, not ${items.length}`,
      );
    const results = new Array<z.infer<typeof BatchItemResult>>(items.length);
    let next = 0;
    const worker = async () => {
      while (next < items.length) {
        const index = next++;
        results[index] = await sendItem(c, topic, index, items[index], send, options.retryAfterSeconds);
      }
    };
    await Promise.all(Array.from({ length: Math.min(BATCH_CONCURRENCY, items.length) }, worker));
    const succeeded = results.filter((r) => r.ok).length;
    return c.json({ succeeded, failed: results.length - succeeded, results }, 200);
  });
}

async function sendItem(
  c: Context<GatewayEnv>,
  topic: string,
  index: number,
  item: unknown,
  send: (topic: string, input: MessageInput) => Promise<z.infer<typeof SendResult>>,
  retryAfterSeconds: number,
) {
  try {
    const parsed = MessageInput.safeParse(item);
    if (!parsed.success) throw validationProblem(parsed.error, `messages[${index}]`);
    return { index, ok: true, result: await send(topic, parsed.data) };
  } catch (err) {
    const p = toProblem(err, retryAfterSeconds);
    if (p.status >= 500) c.get("log").warn({ err, index }, "batch item failed");
    return {
      index,
      ok: false,
      problem: problemBody(p, c.req.path, c.get("requestId")) as z.infer<typeof Problem>,
    };
  }
}

const RAW_TYPES = new Set(["application/octet-stream", "text/plain"]);
const RAW_HEADER_NAMES = [
  "mq-tags",
  "mq-keys",
  "mq-sharding-key",
  "mq-delay-ms",
  "mq-deliver-at",
  "mq-properties",
] as const;

function essence(contentType: string): string {
  return contentType.split(";")[0]!.trim().toLowerCase();
}

function rawHeaderValues(h: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of RAW_HEADER_NAMES) {
    const v = h.get(name);
    if (v !== null) out[name] = v;
  }
  return out;
}

function unsupportedType(): GatewayProblem {
  return new GatewayProblem({
    status: 415,
    slug: "unsupported-media-type",
    title: "Unsupported media type",
    detail: "send application/json, or a raw body as application/octet-stream or text/plain",
  });
}
