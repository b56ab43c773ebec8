/**
 * What every route and socket handler receives: the cluster, the resolved options, the API keys,
 * the receipt-handle signer, metrics and logger (style habit 13: passed in, never global), and the Hono env typing them.
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Server } from "bun";
import type { Logger } from "pino";
import type { GatewayConfig } from "../src/config/gateway-config.ts";
import type { ApiKey, ApiKeys } from "./auth.ts";
import type { Cluster } from "./cluster.ts";
import type { GatewayMetrics } from "./metrics.ts";
import type { HandleSigner } from "./receipt-handle.ts";

export interface GatewayOptions {
  requestBytesMax: number;
  messageBytesMax: number;
  batchItemsMax: number;
  pullWaitMsMax: number;
  pullMessagesMax: number;
  retryAfterSeconds: number;
  /** null: no CORS headers; "*": any origin; else the allowed origins. */
  corsOrigins: null | "*" | readonly string[];
  wsInflightMax: number;
  wsBufferedBytesMax: number;
  wsSubscriptionsMax: number;
  wsCreditMax: number;
}

export function optionsFromConfig(c: GatewayConfig): GatewayOptions {
  const origins = c.gatewayCorsOrigins.trim();
  return {
    requestBytesMax: c.gatewayRequestBytesMax,
    messageBytesMax: c.gatewayMessageBytesMax,
    batchItemsMax: c.gatewayBatchItemsMax,
    pullWaitMsMax: c.gatewayPullWaitMsMax,
    pullMessagesMax: c.gatewayPullMessagesMax,
    retryAfterSeconds: c.gatewayRetryAfterSeconds,
    corsOrigins: origins === "" ? null : origins === "*" ? "*" : origins.split(",").map((o) => o.trim()),
    wsInflightMax: c.gatewayWsInflightMax,
    wsBufferedBytesMax: c.gatewayWsBufferedBytesMax,
    wsSubscriptionsMax: c.gatewayWsSubscriptionsMax,
    wsCreditMax: c.gatewayWsCreditMax,
  };
}

export interface GatewayDeps {
  cluster: Cluster;
  options: GatewayOptions;
  /** null: no keys configured, every request is allowed. */
  apiKeys: ApiKeys | null;
  metrics: GatewayMetrics;
  log: Logger;
  /** Signs and verifies the receipt handles of leases. */
  handles: HandleSigner;
}

export type GatewayEnv = {
  Bindings: { server?: Server<unknown> };
  Variables: { requestId: string; apiKey: ApiKey | null; log: Logger };
};

export type GatewayApp = OpenAPIHono<GatewayEnv>;
