/**
 * WebSocket frames: JSON text, one object per frame. Client → gateway: `publish` (acked one by one),
 * `ping`; `subscribe`, `credit`, `ack`, `nack`, `extend` are reserved for lease-based consume (POP)
 * and answered with an error frame naming the missing capability. Gateway → client: `hello`,
 * `ack`, `error`, `pong`. Every client frame may carry an `id`, echoed in the answer.
 */
import { z } from "@hono/zod-openapi";
import { MessageInput, TopicName } from "../schemas.ts";

export const FrameId = z.union([z.string().max(128), z.number().int()]);

export const PublishFrame = z.object({
  type: z.literal("publish"),
  id: FrameId,
  topic: TopicName,
  message: MessageInput,
});

export const PingFrame = z.object({ type: z.literal("ping"), id: FrameId.optional() });

/** Frame types that arrive with lease-based consume. */
export const LEASE_FRAME_TYPES = new Set(["subscribe", "unsubscribe", "credit", "ack", "nack", "extend"]);

/** Just enough of any frame to answer it: its type and id. */
export const FrameHead = z.object({ type: z.string().max(64), id: FrameId.optional() });

export type FrameIdValue = z.infer<typeof FrameId>;

/** What the gateway sends. */
export type ServerFrame =
  | { type: "hello"; inflightMax: number; frameBytesMax: number; requestId: string }
  | {
      type: "ack";
      id: FrameIdValue;
      result: {
        msgId: string;
        topic: string;
        brokerName: string;
        queueId: number;
        queueOffset: number;
        status: string;
      };
    }
  | { type: "error"; id?: FrameIdValue; problem: Record<string, unknown> }
  | { type: "pong"; id?: FrameIdValue };
