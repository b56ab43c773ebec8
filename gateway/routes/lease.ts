/**
 * Lease-based consume (receive / ack / nack / extend), reserved: the routes and their schemas are
 * in place and documented, and answer 501 naming the broker capability they wait for (POP). When
 * the broker grows POP, each handler calls the Cluster's receive/ack/changeInvisible and the
 * receipt handle is the broker's checkpoint (spec §10.5): nothing else here changes.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { authorize } from "../auth.ts";
import type { GatewayApp } from "../context.ts";
import { problems } from "../errors.ts";
import { GroupName, problemResponses, TopicName } from "../schemas.ts";

/** What the 501 answers name: the broker requests these routes are built on. */
export const LEASE_CAPABILITY =
  "POP consumption: POP_MESSAGE (200050), ACK_MESSAGE (200051), CHANGE_MESSAGE_INVISIBLETIME (200053)";

const GroupTopic = z.object({
  group: GroupName.openapi({ param: { name: "group", in: "path" } }),
  topic: TopicName.openapi({ param: { name: "topic", in: "path" } }),
});

const Handle = z.string().min(1).max(4096).openapi({ description: "a receipt handle from receive" });

const routes = [
  {
    verb: "receive",
    summary: "Receive messages under a lease (not yet: needs POP)",
    body: z.object({
      max: z.number().int().min(1).max(32).default(16),
      invisibleMs: z.number().int().min(1000).max(43_200_000).default(60_000),
      waitMs: z.number().int().min(0).max(30_000).default(0),
      tags: z.string().max(4096).optional(),
    }),
  },
  {
    verb: "ack",
    summary: "Acknowledge leased messages (not yet: needs POP)",
    body: z.object({ receiptHandles: z.array(Handle).min(1).max(64) }),
  },
  {
    verb: "nack",
    summary: "Give leased messages back for redelivery (not yet: needs POP)",
    body: z.object({
      receiptHandles: z.array(Handle).min(1).max(64),
      delayMs: z.number().int().min(0).default(0),
    }),
  },
  {
    verb: "extend",
    summary: "Extend the lease of messages (not yet: needs POP)",
    body: z.object({
      receiptHandles: z.array(Handle).min(1).max(64),
      invisibleMs: z.number().int().min(1000).max(43_200_000),
    }),
  },
] as const;

export function registerLease(app: GatewayApp): void {
  for (const r of routes) {
    const route = createRoute({
      method: "post",
      path: `/v1/groups/{group}/topics/{topic}/${r.verb}`,
      tags: ["consume (lease)"],
      summary: r.summary,
      request: {
        params: GroupTopic,
        body: { required: true, content: { "application/json": { schema: r.body } } },
      },
      responses: problemResponses(400, 401, 403, 501),
    });
    app.openapi(route, (c) => {
      authorize(c.get("apiKey"), "consume", c.req.valid("param").topic);
      throw problems.notImplemented(
        `${r.verb} needs lease-based consumption, which is not built yet`,
        LEASE_CAPABILITY,
      );
    });
  }
}
