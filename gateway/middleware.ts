/**
 * The middleware every request passes: request id, pino request log and metrics around it all;
 * CORS when configured; the request size limit; API-key authentication of /v1 routes.
 */
import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { cors } from "hono/cors";
import { authenticate, presentedToken } from "./auth.ts";
import type { GatewayDeps, GatewayEnv } from "./context.ts";
import { problems } from "./errors.ts";

/** An incoming x-request-id is kept when it looks like one (so ids follow a request across proxies). */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/** Ids are a per-gateway random prefix and a counter: unique, and cheaper than a UUID per request. */
function requestIds(): () => string {
  const prefix = crypto.randomUUID().slice(0, 8);
  let n = 0;
  return () => `${prefix}-${(++n).toString(36)}`;
}

const idsOfGateway = new WeakMap<GatewayDeps, () => string>();

/** The id sequence of one gateway, shared by the app and the fast path (fast-produce.ts). */
export function requestIdsOf(deps: GatewayDeps): () => string {
  let ids = idsOfGateway.get(deps);
  if (ids === undefined) {
    ids = requestIds();
    idsOfGateway.set(deps, ids);
  }
  return ids;
}

/** The request's id: an incoming x-request-id that looks like one, else a new one. */
export function requestIdOf(incoming: string | null | undefined, nextId: () => string): string {
  return incoming !== undefined && incoming !== null && REQUEST_ID.test(incoming) ? incoming : nextId();
}

export function requestContext(deps: GatewayDeps): MiddlewareHandler<GatewayEnv> {
  const nextId = requestIdsOf(deps);
  return async (c, next) => {
    const started = performance.now();
    const requestId = requestIdOf(c.req.header("x-request-id"), nextId);
    c.set("requestId", requestId);
    c.set("log", deps.log);
    await next();
    c.res.headers.set("x-request-id", requestId);
    // The route pattern, not the path: a label per topic or id would grow without bound.
    finishRequest(deps, c.req.method, c.req.path, c.req.routePath, c.res.status, requestId, started);
  };
}

/** Metrics and the request log line of one answered request (`started`: performance.now()). */
export function finishRequest(
  { metrics, log }: GatewayDeps,
  method: string,
  path: string,
  route: string,
  status: number,
  requestId: string,
  started: number,
): void {
  const seconds = (performance.now() - started) / 1000;
  metrics.observeRequest(method, route, status, seconds);
  if (log.isLevelEnabled("info")) {
    const line = { reqId: requestId, method, path, route, status, ms: Math.round(seconds * 1e4) / 10 };
    if (status >= 500) log.warn(line, "request failed");
    else log.info(line, "request");
  }
}

export function corsFor(deps: GatewayDeps): MiddlewareHandler<GatewayEnv> | null {
  const origins = deps.options.corsOrigins;
  if (origins === null) return null;
  return cors({
    origin: origins === "*" ? "*" : [...origins],
    allowHeaders: [
      "authorization",
      "content-type",
      "x-request-id",
      "mq-tags",
      "mq-keys",
      "mq-sharding-key",
      "mq-delay-ms",
      "mq-deliver-at",
      "mq-properties",
    ],
    exposeHeaders: ["x-request-id", "retry-after"],
    maxAge: 600,
  });
}

/**
 * Refuses a body over requestBytesMax before it is read whole (413 problem). A declared
 * Content-Length is checked from the header alone; only a body without one (chunked) is counted as
 * it streams, by hono's bodyLimit (touching `request.body` makes a stream, which costs).
 */
export function sizeLimit(deps: GatewayDeps): MiddlewareHandler<GatewayEnv> {
  const max = deps.options.requestBytesMax;
  const tooLarge = () => {
    throw problems.tooLarge(`the request body is larger than the ${max} bytes allowed`);
  };
  const streaming = bodyLimit({ maxSize: max, onError: tooLarge });
  return (c, next) => {
    const headers = c.req.raw.headers;
    const length = headers.get("content-length");
    if (length !== null && !headers.has("transfer-encoding")) {
      if (Number(length) > max) tooLarge();
      return next();
    }
    if (c.req.method === "GET" || c.req.method === "HEAD") return next();
    return streaming(c, next);
  };
}

/** Sets `apiKey` (null when no keys are configured); 401 problem without a known key. */
export function apiKeyAuth(deps: GatewayDeps): MiddlewareHandler<GatewayEnv> {
  return async (c, next) => {
    const token = presentedToken(c.req.header("authorization"), c.req.query("access_token"));
    c.set("apiKey", authenticate(deps.apiKeys, token));
    await next();
  };
}
