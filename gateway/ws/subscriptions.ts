/**
 * WebSocket subscriptions: each pops (long polling) for its group and topic and pushes `message`
 * frames while it has credit, one POP of at most min(credit, 32) at a time. Memory stays bounded:
 * a subscription pushes only what its credit allows, and before each frame (and each POP) it checks
 * its socket's queue: above half of wsBufferedBytesMax it waits for the socket to drain, holding at
 * most the rest of one batch (a client that stops reading stops getting messages; their leases
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

export interface SubscriptionSpec {
  group: string;
  topic: string;
  tags?: string;
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
  private running = false;
  private stopped = false;
  /** Received, not yet pushed: the rest of a batch while the socket's queue was too long. */
  private pending: LeasedOutput[] = [];
  private wake: (() => void) | null = null;

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
    this.start();
    return this.credit;
  }

  start(): void {
    if (this.running || this.stopped || this.credit <= 0) return;
    this.running = true;
    void this.loop()
      .catch((err: unknown) =>
        this.deps.log.error({ err, subscription: this.id }, "subscription loop failed"),
      )
      .finally(() => {
        this.running = false;
      });
  }

  stop(): void {
    this.stopped = true;
    this.wake?.();
  }

  private get live(): boolean {
    return !this.stopped && !this.socket.closed;
  }

  private async loop(): Promise<void> {
    const { options, metrics } = this.deps;
    const highWater = Math.floor(options.wsBufferedBytesMax / 2);
    while (this.live && (this.credit > 0 || this.pending.length > 0)) {
      if (this.socket.ws.getBufferedAmount() > highWater) {
        metrics.wsBackpressurePauses.inc();
        await this.socket.drained();
        continue;
      }
      const next = this.pending.shift();
      if (next !== undefined) {
        this.socket.send({ type: "message", subscription: this.id, message: next });
        continue;
      }
      let got: LeasedOutput[];
      try {
        got = await this.leases.receive(
          {
            group: this.spec.group,
            topic: this.spec.topic,
            maxMessages: Math.min(this.credit, RECEIVE_MAX),
            waitMs: Math.min(WS_POLL_MS, options.pullWaitMsMax),
            invisibleMs: this.spec.invisibleMs,
            ...(this.spec.tags !== undefined ? { tags: this.spec.tags } : {}),
          },
          this.spec.bodyEncoding,
          "ws",
        );
      } catch (err) {
        if (!(await this.failed(err))) return;
        continue;
      }
      if (!this.live) {
        await this.giveBack(got);
        return;
      }
      // Pushed one by one, re-checking the socket's queue before each (at most one batch waits here).
      this.pending = got;
      this.credit -= got.length;
    }
    if (!this.live) await this.giveBack(this.pending.splice(0));
  }

  /** Reports a failed POP; true when worth retrying (after a pause), false when the subscription ended. */
  private async failed(err: unknown): Promise<boolean> {
    const p = toProblem(err, this.deps.options.retryAfterSeconds);
    const retry = p.status === 429 || p.status >= 500;
    if (this.live)
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
      return false;
    }
    if (p.status >= 500)
      this.deps.log.warn({ err, subscription: this.id }, "subscription POP failed; retrying");
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, RETRY_DELAY_MS);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.wake = null;
    return this.live;
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
