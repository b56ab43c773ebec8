/**
 * The `/v1/ws` socket: publish frames acked one by one, errors as frames (a bad frame never closes
 * the socket nor crashes the gateway). Memory per socket is bounded three ways: a frame is at most
 * requestBytesMax (Bun closes 1009 beyond), at most wsInflightMax publishes await the broker (more
 * are refused per frame with a 429 problem), and a socket that does not read its answers is closed
 * once wsBufferedBytesMax are queued towards it (Bun's closeOnBackpressureLimit).
 */
import type { ServerWebSocket, WebSocketHandler } from "bun";
import { type ApiKey, authorize } from "../auth.ts";
import type { GatewayDeps } from "../context.ts";
import { GatewayProblem, problemBody, toProblem } from "../errors.ts";
import { decodeInput } from "../message-codec.ts";
import { LEASE_CAPABILITY } from "../routes/lease.ts";
import { validationProblem } from "../validation.ts";
import {
  FrameHead,
  FrameId,
  type FrameIdValue,
  LEASE_FRAME_TYPES,
  PingFrame,
  PublishFrame,
  type ServerFrame,
} from "./frames.ts";

export interface WsData {
  apiKey: ApiKey | null;
  requestId: string;
  inflight: number;
  closed: boolean;
}

export const WS_PATH = "/v1/ws";

export function createWsHandler(deps: GatewayDeps): WebSocketHandler<WsData> {
  const { options, metrics, log, cluster } = deps;

  const send = (ws: ServerWebSocket<WsData>, frame: ServerFrame) => {
    if (!ws.data.closed) ws.send(JSON.stringify(frame));
  };

  const fail = (ws: ServerWebSocket<WsData>, id: FrameIdValue | undefined, err: unknown) => {
    const p = toProblem(err, options.retryAfterSeconds);
    if (p.status >= 500) log.warn({ err, reqId: ws.data.requestId }, "WebSocket frame failed");
    const problem = problemBody(p, WS_PATH, ws.data.requestId);
    send(ws, id === undefined ? { type: "error", problem } : { type: "error", id, problem });
  };

  async function publish(ws: ServerWebSocket<WsData>, frame: unknown) {
    const parsed = PublishFrame.safeParse(frame);
    if (!parsed.success) throw validationProblem(parsed.error, "frame");
    const { topic, message } = parsed.data;
    authorize(ws.data.apiKey, "produce", topic);
    if (ws.data.inflight >= options.wsInflightMax) {
      throw new GatewayProblem({
        status: 429,
        slug: "too-many-in-flight",
        title: "Too many publishes in flight",
        detail: `at most ${options.wsInflightMax} publishes of one socket await the broker; wait for acks`,
        retryAfterSeconds: options.retryAfterSeconds,
      });
    }
    const { msg, target } = decodeInput(message, options.messageBytesMax);
    ws.data.inflight++;
    try {
      const r = await cluster.send(topic, msg, target);
      metrics.messagesIn.inc({ transport: "ws" });
      send(ws, {
        type: "ack",
        id: parsed.data.id,
        result: {
          msgId: r.msgId,
          topic,
          brokerName: r.brokerName,
          queueId: r.queueId,
          queueOffset: r.queueOffset,
          status: r.status,
        },
      });
    } finally {
      ws.data.inflight--;
    }
  }

  function onFrame(ws: ServerWebSocket<WsData>, raw: string | Buffer) {
    if (typeof raw !== "string") {
      metrics.wsFrames.inc({ type: "binary" });
      throw badFrame("binary frames are not understood: send JSON text frames");
    }
    let frame: unknown;
    try {
      frame = JSON.parse(raw);
    } catch {
      metrics.wsFrames.inc({ type: "unknown" });
      throw badFrame("the frame is not JSON");
    }
    const head = FrameHead.safeParse(frame);
    if (!head.success) {
      metrics.wsFrames.inc({ type: "unknown" });
      throw validationProblem(head.error, "frame");
    }
    const { type, id } = head.data;
    metrics.wsFrames.inc({
      type: type === "publish" || type === "ping" || LEASE_FRAME_TYPES.has(type) ? type : "unknown",
    });
    if (type === "publish") {
      publish(ws, frame).catch((err: unknown) => fail(ws, id, err));
      return;
    }
    if (type === "ping") {
      const ping = PingFrame.safeParse(frame);
      send(
        ws,
        ping.success && ping.data.id !== undefined ? { type: "pong", id: ping.data.id } : { type: "pong" },
      );
      return;
    }
    if (LEASE_FRAME_TYPES.has(type))
      throw new GatewayProblem({
        status: 501,
        slug: "not-implemented",
        title: "Not implemented yet",
        detail: `${type} frames arrive with lease-based consumption, which is not built yet`,
        extra: { missingCapability: LEASE_CAPABILITY },
      });
    throw badFrame(`unknown frame type ${JSON.stringify(type)}; known: publish, ping`);
  }

  return {
    maxPayloadLength: options.requestBytesMax,
    backpressureLimit: options.wsBufferedBytesMax,
    closeOnBackpressureLimit: true,
    // Idle sockets are pinged by Bun; a peer that never answers is dropped after this long.
    idleTimeout: 120,
    open(ws) {
      metrics.wsSockets.inc();
      send(ws, {
        type: "hello",
        inflightMax: options.wsInflightMax,
        frameBytesMax: options.requestBytesMax,
        requestId: ws.data.requestId,
      });
    },
    message(ws, raw) {
      let id: FrameIdValue | undefined;
      try {
        onFrame(ws, raw);
      } catch (err) {
        id = idOf(raw);
        fail(ws, id, err);
      }
    },
    close(ws) {
      ws.data.closed = true;
      metrics.wsSockets.dec();
    },
  };
}

function badFrame(detail: string): GatewayProblem {
  return new GatewayProblem({ status: 400, slug: "bad-frame", title: "Bad frame", detail });
}

/** The id of a frame that failed before its head was read, when it has one. */
function idOf(raw: string | Buffer): FrameIdValue | undefined {
  if (typeof raw !== "string") return undefined;
  try {
    const id = FrameId.safeParse((JSON.parse(raw) as { id?: unknown } | null)?.id);
    return id.success ? id.data : undefined;
  } catch {
    return undefined;
  }
}
