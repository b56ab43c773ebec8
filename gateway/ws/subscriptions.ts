/**
 * WebSocket subscriptions: each pops (long polling) for its group and topic and pushes `message`
 * frames while it has credit, with up to two POPs of at most min(credit, 32) in flight. Memory stays
 * bounded: a subscription pushes only what its credit allows, and before each frame (and each POP)
 * it checks its socket's queue: above half of wsBufferedBytesMax it waits for the socket to drain,
 * holding at most two batches (a client that stops reading stops getting messages; their leases
 * expire and go to other consumers). Messages a POP brings after the socket or the
 * subscription closed are given back at once (nack 0) instead of waiting out their lease.
 */
import type { ServerWebSocket } from "bun";
import type { GatewayDeps } from "../context.ts";
import { problemBody, toProblem } from "../errors.ts";
import type { LeasedOutput, Leases } from "../leases.ts";
import type { BodyEncoding } from "../message-codec.ts";
import type { ServerFrame } from "./frames.ts";

/** Long-poll budget of one subscription POP (the proxy's longest is 20 s). */
export const WS_POLL_MS = 20_000;
/** Pause after a POP failed with a problem worth retrying (broker busy or away). */
const RETRY_DELAY_MS = 1000;
const RECEIVE_MAX = 32;
/** POPs one subscription keeps in flight: one batch is read while another is pushed. */
const POPS_INFLIGHT_MAX = 2;

export interface SubscriptionSpec {
  group: string;
  topic: string;
  tags?: string;
  sql?: string;
  invisibleMs: number;
  bodyEncoding: BodyEncoding;
}

/** What a subscription needs of its socket. */
export interface SocketSide {
  ws: ServerWebSocket<unknown>;
  send(frame: ServerFrame): void;
  /** Resolves when the socket drained its queue or closed. */
  drained(): Promise<void>;
  readonly closed: boolean;
  readonly requestId: string;
}

export class Subscription {
  private stopped = false;
  /** Received, not yet pushed: what arrived while the socket's queue was too long. */
  private readonly pending: LeasedOutput[] = [];
  /** POPs in flight, and the credit they took. */
  private inflight = 0;
  private reserved = 0;
  private waitingDrain = false;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    readonly id: string,
    readonly spec: SubscriptionSpec,
    public credit: number,
    private readonly socket: SocketSide,
    private readonly leases: Leases,
    private readonly deps: GatewayDeps,
    /** Called when the subscription ends itself (a problem not worth retrying). */
    private readonly ended: (id: string) => void,
  ) {}

  /** Adds credit, up to wsCreditMax in all; returns the credit now held. */
  addCredit(n: number): number {
    this.credit = Math.min(this.credit + n, this.deps.options.wsCreditMax);
    this.pump();
    return this.credit;
  }

  start(): void {
    this.pump();
  }

  /** Ends the subscription; what it holds unsent, and what POPs in flight bring, is given back. */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    void this.giveBack(this.pending.splice(0));
  }

  private get live(): boolean {
    return !this.stopped && !this.socket.closed;
  }

  /**
   * Pushes what is pending while the socket's queue is short, then starts POPs while credit not
   * yet taken remains (at most POPS_INFLIGHT_MAX at once, so one batch is read while another is
   * sent). Called again whenever something changes: a POP answered, credit, a drained socket.
   */
  private pump(): void {
    if (!this.live) return;
    const highWater = Math.floor(this.deps.options.wsBufferedBytesMax / 2);
    const ws = this.socket.ws;
    if (this.pending.length > 0) {
      // Corked: the frames of a batch leave in one write, not one syscall each.
      ws.cork(() => {
        while (this.pending.length > 0 && ws.getBufferedAmount() <= highWater)
          this.socket.send({ type: "message", subscription: this.id, message: this.pending.shift()! });
      });
    }
    if (ws.getBufferedAmount() > highWater) {
      if (!this.waitingDrain) {
        this.waitingDrain = true;
        this.deps.metrics.wsBackpressurePauses.inc();
        void this.socket.drained().then(() => {
          this.waitingDrain = false;
          this.pump();
        });
      }
      return;
    }
    while (this.retryTimer === null && this.inflight < POPS_INFLIGHT_MAX && this.credit - this.reserved > 0)
      this.pop(Math.min(this.credit - this.reserved, RECEIVE_MAX));
  }

  private pop(max: number): void {
    this.inflight++;
    this.reserved += max;
    const { options } = this.deps;
    this.leases
      .receive(
        {
          group: this.spec.group,
          topic: this.spec.topic,
          maxMessages: max,
          waitMs: Math.min(WS_POLL_MS, options.pullWaitMsMax),
          invisibleMs: this.spec.invisibleMs,
          ...(this.spec.tags !== undefined ? { tags: this.spec.tags } : {}),
          ...(this.spec.sql !== undefined ? { sql: this.spec.sql } : {}),
        },
        this.spec.bodyEncoding,
        "ws",
      )
      .then(
        (got) => {
          this.settled(max);
          if (!this.live) return this.giveBack(got);
          this.pending.push(...got);
          this.credit -= got.length;
          this.pump();
        },
        (err: unknown) => {
          this.settled(max);
          this.failed(err);
        },
      )
      .catch((err: unknown) => this.deps.log.error({ err, subscription: this.id }, "subscription failed"));
  }

  private settled(max: number): void {
    this.inflight--;
    this.reserved -= max;
  }

  /** Reports a failed POP; a problem worth retrying (busy, away) pauses the POPs, any other ends the subscription. */
  private failed(err: unknown): void {
    if (!this.live) return;
    const p = toProblem(err, this.deps.options.retryAfterSeconds);
    const retry = p.status === 429 || p.status >= 500;
    this.socket.send({
      type: "error",
      subscription: this.id,
      problem: problemBody(
        retry ? p : { ...p, detail: `${p.detail ?? p.title}; the subscription is closed` },
        "/v1/ws",
        this.socket.requestId,
      ),
    });
    if (!retry) {
      this.ended(this.id);
      return;
    }
    if (p.status >= 500)
      this.deps.log.warn({ err, subscription: this.id }, "subscription POP failed; retrying");
    this.retryTimer ??= setTimeout(() => {
      this.retryTimer = null;
      this.pump();
    }, RETRY_DELAY_MS);
  }

  private async giveBack(got: LeasedOutput[]): Promise<void> {
    if (got.length === 0) return;
    const handles = got
      .map((m) => this.deps.handles.verify(m.receiptHandle))
      .filter((h) => typeof h !== "string");
    await this.leases.settle("nack", handles, 0, { instance: "/v1/ws", requestId: this.socket.requestId });
  }
}

/** The subscriptions of one socket, at most wsSubscriptionsMax. */
export class SocketSubscriptions {
  private readonly subs = new Map<string, Subscription>();
  private next = 1;

  constructor(
    private readonly socket: SocketSide,
    private readonly leases: Leases,
    private readonly deps: GatewayDeps,
  ) {}

  get size(): number {
    return this.subs.size;
  }

  get(id: string): Subscription | undefined {
    return this.subs.get(id);
  }

  /** A new subscription, pushing at once if it has credit; undefined when the socket holds its maximum. */
  add(spec: SubscriptionSpec, credit: number): Subscription | undefined {
    if (this.subs.size >= this.deps.options.wsSubscriptionsMax) return undefined;
    const id = `s${this.next++}`;
    const sub = new Subscription(id, spec, credit, this.socket, this.leases, this.deps, (ended) =>
      this.remove(ended),
    );
    this.subs.set(id, sub);
    this.deps.metrics.wsSubscriptions.inc();
    sub.start();
    return sub;
  }

  remove(id: string): boolean {
    const sub = this.subs.get(id);
    if (!sub) return false;
    sub.stop();
    this.subs.delete(id);
    this.deps.metrics.wsSubscriptions.dec();
    return true;
  }

  closeAll(): void {
    for (const id of [...this.subs.keys()]) this.remove(id);
  }
}
