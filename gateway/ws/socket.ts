/**
 * The `/v1/ws` socket: publish frames acked one by one, subscriptions pushing leased messages while
 * they have credit, ack / nack / extend by receipt handle, errors as frames (a bad frame never closes
 * the socket nor crashes the gateway). Memory per socket is bounded: a frame is at most
 * requestBytesMax (Bun closes 1009 beyond), at most wsInflightMax publishes await the broker (more
 * are refused per frame with a 429 problem), at most wsSubscriptionsMax subscriptions of at most
 * wsCreditMax credit each, subscriptions pause while half of wsBufferedBytesMax is queued, and a
 * socket that does not read its answers is closed once wsBufferedBytesMax are queued towards it
 * (Bun's closeOnBackpressureLimit).
 */
import type { ServerWebSocket, WebSocketHandler } from "bun";
import { type ApiKey, authorize } from "../auth.ts";
import type { GatewayDeps } from "../context.ts";
import { GatewayProblem, problemBody, toProblem } from "../errors.ts";
import { Leases } from "../leases.ts";
import { decodeInput } from "../message-codec.ts";
import { parse } from "../message-input.ts";
import { sendAnswerOf } from "../produce-one.ts";
import { validationProblem } from "../validation.ts";
import {
  creditFrame,
  FrameHead,
  FrameId,
  type FrameIdValue,
  LEASE_FRAME_TYPES,
  PingFrame,
  PublishFrame,
  type ServerFrame,
  SettleFrame,
  subscribeFrame,
  UnsubscribeFrame,
} from "./frames.ts";
import { type FrameHeadValue, plainCreditFrame, plainFrameHead, plainSettleFrame } from "./plain-frames.ts";
import { SocketSubscriptions } from "./subscriptions.ts";

export interface WsData {
  apiKey: ApiKey | null;
  requestId: string;
  inflight: number;
  closed: boolean;
  /** Created when the socket opens. */
  subscriptions?: SocketSubscriptions;
  /** Subscriptions waiting for the socket's queue to drain. */
  drainWaiters?: (() => void)[];
}

export const WS_PATH = "/v1/ws";

export function createWsHandler(deps: GatewayDeps): WebSocketHandler<WsData> {
  const { options, metrics, log, cluster } = deps;
  const leases = new Leases(deps);
  const SubscribeFrame = subscribeFrame(options.wsCreditMax);
  const CreditFrame = creditFrame(options.wsCreditMax);

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
      send(ws, { type: "ack", id: parsed.data.id, result: sendAnswerOf(topic, r) });
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
    const { type, id } = plainFrameHead(frame) ?? frameHead(frame);
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
    if (type === "subscribe") return subscribe(ws, frame);
    if (type === "credit") return credit(ws, frame);
    if (type === "unsubscribe") return unsubscribe(ws, frame);
    if (type === "ack" || type === "nack" || type === "extend") {
      settle(ws, frame).catch((err: unknown) => fail(ws, id, err));
      return;
    }
    throw badFrame(
      `unknown frame type ${JSON.stringify(type)}; known: publish, ping, subscribe, credit, unsubscribe, ack, nack, extend`,
    );
  }

  /** The head of a frame the plain check left to zod; a 400 problem when it has none. */
  function frameHead(frame: unknown): FrameHeadValue {
    const head = FrameHead.safeParse(frame);
    if (!head.success) {
      metrics.wsFrames.inc({ type: "unknown" });
      throw validationProblem(head.error, "frame");
    }
    return head.data;
  }

  function subscribe(ws: ServerWebSocket<WsData>, frame: unknown) {
    const parsed = SubscribeFrame.safeParse(frame);
    if (!parsed.success) throw validationProblem(parsed.error, "frame");
    const f = parsed.data;
    authorize(ws.data.apiKey, "consume", f.topic);
    const sub = ws.data.subscriptions?.add(
      {
        group: f.group,
        topic: f.topic,
        invisibleMs: f.invisibleMs,
        bodyEncoding: f.bodyEncoding,
        ...(f.tags !== undefined ? { tags: f.tags } : {}),
        ...(f.sql !== undefined ? { sql: f.sql } : {}),
      },
      f.credit,
    );
    if (!sub)
      throw new GatewayProblem({
        status: 429,
        slug: "too-many-subscriptions",
        title: "Too many subscriptions",
        detail: `at most ${options.wsSubscriptionsMax} subscriptions per socket; unsubscribe one first`,
      });
    send(ws, withId({ type: "subscribed", subscription: sub.id, credit: sub.credit }, f.id));
  }

  function credit(ws: ServerWebSocket<WsData>, frame: unknown) {
    const f = plainCreditFrame(frame, options.wsCreditMax) ?? parse(CreditFrame, frame, "frame");
    const sub = ws.data.subscriptions?.get(f.subscription);
    if (!sub) throw noSubscription(f.subscription);
    const total = sub.addCredit(f.credit);
    send(ws, withId({ type: "credited", subscription: sub.id, credit: total }, f.id));
  }

  function unsubscribe(ws: ServerWebSocket<WsData>, frame: unknown) {
    const parsed = UnsubscribeFrame.safeParse(frame);
    if (!parsed.success) throw validationProblem(parsed.error, "frame");
    if (!ws.data.subscriptions?.remove(parsed.data.subscription))
      throw noSubscription(parsed.data.subscription);
    send(ws, withId({ type: "unsubscribed", subscription: parsed.data.subscription }, parsed.data.id));
  }

  /** ack / nack / extend: handles verified (a bad one refuses the frame), one result per handle. */
  async function settle(ws: ServerWebSocket<WsData>, frame: unknown) {
    const f = plainSettleFrame(frame) ?? parse(SettleFrame, frame, "frame");
    const handles = leases.verifyAll(f.receiptHandles ?? [f.receiptHandle!]);
    for (const h of handles) authorize(ws.data.apiKey, "consume", h.topic);
    const ms = f.type === "extend" ? f.invisibleMs : f.type === "nack" ? f.delayMs : 0;
    const results = await leases.settle(f.type, handles, ms, {
      instance: WS_PATH,
      requestId: ws.data.requestId,
    });
    send(ws, withId({ type: "result", op: f.type, results }, f.id));
  }

  return {
    maxPayloadLength: options.requestBytesMax,
    backpressureLimit: options.wsBufferedBytesMax,
    closeOnBackpressureLimit: true,
    // Idle sockets are pinged by Bun; a peer that never answers is dropped after this long.
    idleTimeout: 120,
    open(ws) {
      metrics.wsSockets.inc();
      const drainWaiters: (() => void)[] = [];
      ws.data.drainWaiters = drainWaiters;
      ws.data.subscriptions = new SocketSubscriptions(
        {
          ws,
          send: (frame) => send(ws, frame),
          drained: () => new Promise<void>((resolve) => drainWaiters.push(resolve)),
          get closed() {
            return ws.data.closed;
          },
          requestId: ws.data.requestId,
        },
        leases,
        deps,
      );
      send(ws, {
        type: "hello",
        inflightMax: options.wsInflightMax,
        frameBytesMax: options.requestBytesMax,
        requestId: ws.data.requestId,
        subscriptionsMax: options.wsSubscriptionsMax,
        creditMax: options.wsCreditMax,
      });
    },
    drain(ws) {
      for (const resolve of ws.data.drainWaiters?.splice(0) ?? []) resolve();
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
      ws.data.subscriptions?.closeAll();
      for (const resolve of ws.data.drainWaiters?.splice(0) ?? []) resolve();
      metrics.wsSockets.dec();
    },
  };
}

/** A frame with the client's id, when the client gave one. */
function withId<F extends ServerFrame>(frame: F, id: FrameIdValue | undefined): F {
  return id === undefined ? frame : { ...frame, id };
}

function noSubscription(id: string): GatewayProblem {
  return new GatewayProblem({
    status: 404,
    slug: "no-subscription",
    title: "No such subscription",
    detail: `this socket has no subscription ${JSON.stringify(id)}`,
  });
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
