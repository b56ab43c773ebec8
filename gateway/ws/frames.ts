/**
 * WebSocket frames: JSON text, one object per frame. Client → gateway: `publish` (acked one by one),
 * `ping`, and lease-based consume: `subscribe` (group, topic, tags, credit), `credit` top-ups,
 * `unsubscribe`, and `ack` / `nack` / `extend` of receipt handles. Gateway → client: `hello`, `ack`
 * (of a publish), `subscribed`, `credited`, `unsubscribed`, `message` (pushed while credit lasts),
 * `result` (of ack / nack / extend, one per handle), `error`, `pong`. Every client frame may carry
 * an `id`, echoed in its answer.
 */
import { z } from "@hono/zod-openapi";
import type { LeasedOutput, SettleResult } from "../leases.ts";
import type { SendAnswer } from "../produce-one.ts";
import { HANDLE_CHARS_MAX } from "../receipt-handle.ts";
import { GroupName, MessageInput, TopicName } from "../schemas.ts";

/** Frame limits, shared with the schema-free reading of common frames (plain-frames.ts). */
export const FRAME_LIMITS = {
  idChars: 128,
  typeChars: 64,
  subscriptionChars: 64,
  handlesPerFrame: 64,
  invisibleMsMin: 1000,
  invisibleMsMax: 12 * 3600 * 1000,
  invisibleMsDefault: 60_000,
} as const;
const L = FRAME_LIMITS;

export const FrameId = z.union([z.string().max(L.idChars), z.number().int()]);

export const PublishFrame = z.object({
  type: z.literal("publish"),
  id: FrameId,
  topic: TopicName,
  message: MessageInput,
});

export const PingFrame = z.object({ type: z.literal("ping"), id: FrameId.optional() });

/** Frame types of lease-based consume. */
export const LEASE_FRAME_TYPES = new Set(["subscribe", "unsubscribe", "credit", "ack", "nack", "extend"]);

const SubscriptionId = z.string().min(1).max(L.subscriptionChars);
const InvisibleMs = z
  .number()
  .int()
  .min(L.invisibleMsMin)
  .max(L.invisibleMsMax)
  .default(L.invisibleMsDefault);

export const subscribeFrame = (creditMax: number) =>
  z.object({
    type: z.literal("subscribe"),
    id: FrameId.optional(),
    group: GroupName,
    topic: TopicName,
    tags: z.string().max(4096).optional(),
    sql: z.string().max(4096).optional(),
    credit: z.number().int().min(0).max(creditMax),
    invisibleMs: InvisibleMs,
    bodyEncoding: z.enum(["auto", "text", "base64"]).default("auto"),
  });

export const creditFrame = (creditMax: number) =>
  z.object({
    type: z.literal("credit"),
    id: FrameId.optional(),
    subscription: SubscriptionId,
    credit: z.number().int().min(1).max(creditMax),
  });

export const UnsubscribeFrame = z.object({
  type: z.literal("unsubscribe"),
  id: FrameId.optional(),
  subscription: SubscriptionId,
});

const Handles = z.array(z.string().min(1).max(HANDLE_CHARS_MAX)).min(1).max(L.handlesPerFrame);

/** `receiptHandle` for one, `receiptHandles` for several. */
export const SettleFrame = z
  .object({
    type: z.enum(["ack", "nack", "extend"]),
    id: FrameId.optional(),
    receiptHandle: z.string().min(1).max(HANDLE_CHARS_MAX).optional(),
    receiptHandles: Handles.optional(),
    delayMs: z.number().int().min(0).max(L.invisibleMsMax).default(0),
    invisibleMs: InvisibleMs,
  })
  .refine((f) => (f.receiptHandle === undefined) !== (f.receiptHandles === undefined), {
    message: "give receiptHandle or receiptHandles",
    path: ["receiptHandles"],
  });

/** Just enough of any frame to answer it: its type and id. */
export const FrameHead = z.object({ type: z.string().max(L.typeChars), id: FrameId.optional() });

export type FrameIdValue = z.infer<typeof FrameId>;

/** What the gateway sends. */
export type ServerFrame =
  | {
      type: "hello";
      inflightMax: number;
      frameBytesMax: number;
      requestId: string;
      subscriptionsMax: number;
      creditMax: number;
    }
  | {
      type: "ack";
      id: FrameIdValue;
      result: SendAnswer;
    }
  | { type: "error"; id?: FrameIdValue; subscription?: string; problem: Record<string, unknown> }
  | { type: "pong"; id?: FrameIdValue }
  | { type: "subscribed"; id?: FrameIdValue; subscription: string; credit: number }
  | { type: "credited"; id?: FrameIdValue; subscription: string; credit: number }
  | { type: "unsubscribed"; id?: FrameIdValue; subscription: string }
  | { type: "message"; subscription: string; message: LeasedOutput }
  | { type: "result"; id?: FrameIdValue; op: "ack" | "nack" | "extend"; results: SettleResult[] };
