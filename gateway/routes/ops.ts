/**
 * Operations: liveness (/healthz), readiness (/readyz: the NameServer answers and knows a broker),
 * Prometheus metrics (/metrics), the OpenAPI 3.1 document (/openapi.json) and Swagger UI (/docs)
 * served from the swagger-ui-dist package: no CDN, so it works offline and behind firewalls.
 */
import { dirname, join } from "node:path";
import { createRoute, z } from "@hono/zod-openapi";
import type { GatewayApp, GatewayDeps } from "../context.ts";
import { GatewayProblem } from "../errors.ts";
import { problemResponses } from "../schemas.ts";

export const OPENAPI_INFO = {
  openapi: "3.1.0",
  info: {
    title: "RocketBun gateway",
    version: "1",
    description:
      "HTTP/WebSocket edge of RocketBun (Apache RocketMQ protocol). Errors are application/problem+json (RFC 9457). " +
      "When API keys are configured, send Authorization: Bearer <key>.",
  },
} as const;

const text = (description: string) => ({ description, content: { "text/plain": { schema: z.string() } } });

const healthz = createRoute({
  method: "get",
  path: "/healthz",
  tags: ["operations"],
  summary: "Liveness: the process serves HTTP",
  responses: {
    200: {
      description: "alive",
      content: { "application/json": { schema: z.object({ status: z.literal("ok") }) } },
    },
  },
});

const readyz = createRoute({
  method: "get",
  path: "/readyz",
  tags: ["operations"],
  summary: "Readiness: the NameServer answers and knows a broker",
  responses: {
    200: {
      description: "ready",
      content: {
        "application/json": { schema: z.object({ status: z.literal("ready"), detail: z.string() }) },
      },
    },
    ...problemResponses(503),
  },
});

const metricsRoute = createRoute({
  method: "get",
  path: "/metrics",
  tags: ["operations"],
  summary: "Prometheus metrics",
  responses: { 200: text("Prometheus text exposition format") },
});

const openapiRoute = createRoute({
  method: "get",
  path: "/openapi.json",
  tags: ["operations"],
  summary: "This document (OpenAPI 3.1)",
  responses: {
    200: {
      description: "the document",
      content: { "application/json": { schema: z.object({}).passthrough() } },
    },
  },
});

const docsRoute = createRoute({
  method: "get",
  path: "/docs",
  tags: ["operations"],
  summary: "Swagger UI over /openapi.json",
  responses: { 200: { description: "HTML page", content: { "text/html": { schema: z.string() } } } },
});

/** The only files of swagger-ui-dist that /docs/assets serves. */
const ASSETS: Readonly<Record<string, string>> = {
  "swagger-ui.css": "text/css; charset=utf-8",
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
  "swagger-ui-standalone-preset.js": "text/javascript; charset=utf-8",
  "favicon-32x32.png": "image/png",
};

const DOCS_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>RocketBun gateway API</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css"><link rel="icon" href="/docs/assets/favicon-32x32.png"></head>
<body><div id="ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/assets/swagger-ui-standalone-preset.js"></script>
<script>window.ui = SwaggerUIBundle({ url: "/openapi.json", dom_id: "#ui", deepLinking: true,
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset], layout: "StandaloneLayout" });</script>
</body></html>`;

const assetsDir = dirname(require.resolve("swagger-ui-dist/package.json"));

export function registerOps(app: GatewayApp, deps: GatewayDeps): void {
  app.openapi(healthz, (c) => c.json({ status: "ok" as const }, 200));

  app.openapi(readyz, async (c) => {
    const r = await deps.cluster.ready();
    if (!r.ok)
      throw new GatewayProblem({
        status: 503,
        slug: "not-ready",
        title: "Not ready",
        detail: r.detail,
        retryAfterSeconds: deps.options.retryAfterSeconds,
      });
    return c.json({ status: "ready" as const, detail: r.detail }, 200);
  });

  app.openapi(metricsRoute, async (c) => {
    const body = await deps.metrics.registry.metrics();
    return c.text(body, 200, { "content-type": deps.metrics.registry.contentType });
  });

  app.openapi(openapiRoute, (c) =>
    c.json(app.getOpenAPI31Document(OPENAPI_INFO) as unknown as Record<string, never>, 200),
  );

  app.openapi(docsRoute, (c) => c.html(DOCS_HTML, 200));

  // Static files of the page; not API routes, so not in the document.
  app.get("/docs/assets/:file", (c) => {
    const name = c.req.param("file");
    const type = ASSETS[name];
    if (type === undefined)
      throw new GatewayProblem({
        status: 404,
        slug: "not-found",
        title: "Not found",
        detail: `no asset ${name}`,
      });
    return new Response(Bun.file(join(assetsDir, name)), {
      headers: { "content-type": type, "cache-control": "public, max-age=86400" },
    });
  });
}
