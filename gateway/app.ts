/**
 * createGateway: the Hono app of the HTTP/WebSocket edge. Middleware (request id and log, metrics,
 * CORS, size limit, API keys), the routes (produce, replay, lookup, admin, lease placeholders,
 * operations), the WebSocket upgrade, and one error path: everything thrown becomes problem+json.
 */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { GatewayApp, GatewayDeps, GatewayEnv } from "./context.ts";
import { problemResponse, problems, toProblem } from "./errors.ts";
import { apiKeyAuth, corsFor, requestContext, sizeLimit } from "./middleware.ts";
import { registerAdmin } from "./routes/admin.ts";
import { registerLease } from "./routes/lease.ts";
import { registerLookup } from "./routes/lookup.ts";
import { registerOps } from "./routes/ops.ts";
import { registerProduce } from "./routes/produce.ts";
import { registerReplay } from "./routes/replay.ts";
import { problemResponses } from "./schemas.ts";
import { validationHook } from "./validation.ts";
import { WS_PATH, type WsData } from "./ws/socket.ts";

const wsRoute = createRoute({
  method: "get",
  path: WS_PATH,
  tags: ["websocket"],
  summary: "WebSocket: publish with per-frame acks; subscriptions pushing leased messages",
  description:
    'Upgrade to a WebSocket. Publish: send {"type":"publish","id":1,"topic":"orders","message":{MessageInput}}; receive ' +
    '{"type":"ack","id":1,"result":{SendResult}} or {"type":"error","id":1,"problem":{Problem}}. ' +
    'Consume: {"type":"subscribe","id":2,"group":"billing","topic":"orders","tags":"*","credit":32,"invisibleMs":60000} ' +
    'answers {"type":"subscribed","id":2,"subscription":"s1","credit":32}; then {"type":"message","subscription":"s1",' +
    '"message":{LeasedMessage}} frames arrive while credit lasts (one credit per message). Top up with ' +
    '{"type":"credit","subscription":"s1","credit":16}; settle with {"type":"ack"|"nack"|"extend","id":3,' +
    '"receiptHandles":[...],"delayMs":0,"invisibleMs":60000}, answered {"type":"result","id":3,"op":"ack","results":[...]}; ' +
    'stop with {"type":"unsubscribe","subscription":"s1"}. Un-acked messages of a closed socket come back after ' +
    "their invisible time. Browsers pass the API key as ?access_token=.",
  request: { query: z.object({ access_token: z.string().optional() }) },
  responses: {
    101: { description: "switching protocols" },
    ...problemResponses(401, 426),
  },
});

export function createGateway(deps: GatewayDeps): GatewayApp {
  const app = new OpenAPIHono<GatewayEnv>({ defaultHook: validationHook });
  app.openAPIRegistry.registerComponent("securitySchemes", "ApiKey", { type: "http", scheme: "bearer" });

  app.use(requestContext(deps));
  const cors = corsFor(deps);
  if (cors) app.use(cors);
  app.use("/v1/*", sizeLimit(deps), apiKeyAuth(deps));

  registerProduce(app, deps);
  registerReplay(app, deps);
  registerLookup(app, deps);
  registerAdmin(app, deps);
  registerLease(app, deps);
  registerOps(app, deps);

  app.openapi(wsRoute, (c) => {
    const server = c.env?.server;
    if (c.req.header("upgrade")?.toLowerCase() !== "websocket" || server === undefined) {
      throw problems.upgradeRequired("this endpoint speaks WebSocket: send an Upgrade: websocket request");
    }
    const data: WsData = {
      apiKey: c.get("apiKey"),
      requestId: c.get("requestId"),
      inflight: 0,
      closed: false,
    };
    if (!server.upgrade(c.req.raw, { data })) throw problems.upgradeRequired("the WebSocket upgrade failed");
    // Bun answers the upgrade itself; this response is not sent.
    return new Response(null) as never;
  });

  app.notFound((c) =>
    problemResponse(
      toProblem(problems.notFound(`no route ${c.req.method} ${c.req.path}`), 0),
      c.req.path,
      c.get("requestId") ?? "",
    ),
  );
  app.onError((err, c) => errorResponse(deps, err, c.req.path, c.get("requestId") ?? ""));
  return app;
}

/** What a thrown error answers, as problem+json; failures the gateway cannot explain are logged. */
export function errorResponse(deps: GatewayDeps, err: unknown, path: string, requestId: string): Response {
  const p = toProblem(err, deps.options.retryAfterSeconds);
  if (p.status >= 500 && p.code === undefined) deps.log.error({ err, reqId: requestId }, "gateway error");
  return problemResponse(p, path, requestId);
}
