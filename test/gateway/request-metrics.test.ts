/**
 * Request metrics tallied per request and handed over at scrape time expose exactly what
 * prom-client's own Counter and Histogram expose for the same observations.
 */
import { expect, test } from "bun:test";
import { Counter, Histogram, Registry } from "prom-client";
import { GatewayMetrics } from "../../gateway/metrics.ts";

const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** What GatewayMetrics wrote when it called prom-client on every request. */
function reference() {
  const registry = new Registry();
  const requests = new Counter({
    name: "rocketbun_gateway_http_requests_total",
    help: "HTTP requests by method, route pattern and status",
    labelNames: ["method", "route", "status"],
    registers: [registry],
  });
  const latency = new Histogram({
    name: "rocketbun_gateway_http_request_duration_seconds",
    help: "HTTP request latency until the response starts",
    labelNames: ["method", "route"],
    buckets: BUCKETS,
    registers: [registry],
  });
  const messagesIn = new Counter({
    name: "rocketbun_gateway_messages_in_total",
    help: "messages the broker accepted from gateway clients",
    labelNames: ["transport"],
    registers: [registry],
  });
  return {
    observe(method: string, route: string, status: number, seconds: number) {
      requests.inc({ method, route, status: String(status) });
      latency.observe({ method, route }, seconds);
    },
    messageIn: (transport: string) => messagesIn.inc({ transport }),
    text: async () => registry.metrics(),
  };
}

/** The three metrics the reference has, cut from the gateway's whole exposition. */
async function cut(m: GatewayMetrics): Promise<string> {
  const text = await m.registry.metrics();
  const blocks = text.split("\n\n");
  return `${blocks
    .filter((b) =>
      /# HELP rocketbun_gateway_(http_requests_total|http_request_duration_seconds|messages_in_total) /.test(
        b,
      ),
    )
    .join("\n\n")}\n`;
}

test("the exposition matches prom-client's Counter and Histogram fed request by request", async () => {
  const ref = reference();
  const m = new GatewayMetrics();
  // Every bucket edge, between edges, above the last, repeated label sets (also back to back),
  // several routes and statuses.
  const latencies = [...BUCKETS, ...BUCKETS.map((b) => b * 0.7), 31, 1000, 0];
  const routes: [string, string, number][] = [
    ["POST", "/v1/topics/:topic/messages", 201],
    ["POST", "/v1/topics/:topic/messages", 400],
    ["GET", "/metrics", 200],
    ["GET", "/v1/topics/:topic/route", 404],
  ];
  const check = async () => expect(await cut(m)).toBe(await ref.text());
  await check();
  for (const [i, s] of latencies.entries()) {
    const [method, route, status] = routes[i % routes.length]!;
    // The same label set again right after (the tally observed last is kept), every other time.
    for (let n = i % 2 === 0 ? 2 : 1; n > 0; n--) {
      ref.observe(method, route, status, s);
      m.observeRequest(method, route, status, s);
    }
    if (i % 3 === 0) {
      ref.messageIn("http");
      m.httpMessageIn();
    }
    // Scrapes in between: pending counts are handed over once, never twice.
    if (i % 7 === 0) await check();
  }
  ref.messageIn("ws");
  m.messagesIn.inc({ transport: "ws" });
  await check();
  await check();
});
