/**
 * The gateway's Prometheus metrics, on a registry of its own (no prom-client global), served at
 * /metrics. Labels stay bounded: the route pattern, never the raw path or a topic name. What every
 * request touches (request counts, latencies, HTTP messages in) is tallied in plain numbers and
 * handed to prom-client when /metrics is scraped (request-metrics.ts).
 */
import { Counter, Gauge, Registry } from "prom-client";
import { RequestMetrics } from "./request-metrics.ts";

export class GatewayMetrics {
  readonly registry = new Registry();
  readonly requests: Counter<"method" | "route" | "status">;
  /** Request counts and the latency histogram, tallied per request and handed over at scrape time. */
  private readonly requestTallies: RequestMetrics;
  /** Messages accepted by the broker (in) and handed to readers (out), by transport. */
  readonly messagesIn: Counter<"transport">;
  readonly messagesOut: Counter<"transport">;
  readonly wsSockets: Gauge;
  readonly wsFrames: Counter<"type">;
  /** Lease operations (receive, ack, nack, extend; verify: handles refused) by outcome: ok, error, expired, refused. */
  readonly leaseOps: Counter<"op" | "outcome">;
  readonly wsSubscriptions: Gauge;
  /** Times a subscription stopped pushing because its socket had too much queued. */
  readonly wsBackpressurePauses: Counter;
  /** Messages from HTTP producers not yet added to messagesIn (added at scrape time). */
  private httpMessagesIn = 0;

  constructor() {
    const registers = [this.registry];
    this.requests = new Counter({
      name: "rocketbun_gateway_http_requests_total",
      help: "HTTP requests by method, route pattern and status",
      labelNames: ["method", "route", "status"],
      registers,
      collect: () => this.requestTallies.flush(),
    });
    this.requestTallies = new RequestMetrics(
      this.requests,
      {
        name: "rocketbun_gateway_http_request_duration_seconds",
        help: "HTTP request latency until the response starts",
        buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      },
      this.registry,
    );
    this.messagesIn = new Counter({
      name: "rocketbun_gateway_messages_in_total",
      help: "messages the broker accepted from gateway clients",
      labelNames: ["transport"],
      registers,
      collect: () => {
        if (this.httpMessagesIn === 0) return;
        this.messagesIn.inc({ transport: "http" }, this.httpMessagesIn);
        this.httpMessagesIn = 0;
      },
    });
    this.messagesOut = new Counter({
      name: "rocketbun_gateway_messages_out_total",
      help: "messages delivered to gateway clients",
      labelNames: ["transport"],
      registers,
    });
    this.wsSockets = new Gauge({
      name: "rocketbun_gateway_ws_sockets",
      help: "open WebSocket connections",
      registers,
    });
    this.wsFrames = new Counter({
      name: "rocketbun_gateway_ws_frames_total",
      help: "WebSocket frames received, by type (unknown for frames that did not parse)",
      labelNames: ["type"],
      registers,
    });
    this.leaseOps = new Counter({
      name: "rocketbun_gateway_lease_operations_total",
      help: "lease operations (receive, ack, nack, extend; verify for handles refused) by outcome (ok, error, expired, refused)",
      labelNames: ["op", "outcome"],
      registers,
    });
    this.wsSubscriptions = new Gauge({
      name: "rocketbun_gateway_ws_subscriptions",
      help: "WebSocket subscriptions open",
      registers,
    });
    this.wsBackpressurePauses = new Counter({
      name: "rocketbun_gateway_ws_backpressure_pauses_total",
      help: "times a WebSocket subscription paused because its socket had too many bytes queued",
      registers,
    });
  }

  /** Counts one request and its latency. Routes are patterns, so the tallies stay few. */
  observeRequest(method: string, route: string, status: number, seconds: number): void {
    this.requestTallies.observe(method, route, status, seconds);
  }

  /** Counts one message accepted from an HTTP producer (messagesIn, transport http). */
  httpMessageIn(): void {
    this.httpMessagesIn++;
  }
}
