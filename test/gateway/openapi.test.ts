/**
 * The contract: /openapi.json is a valid OpenAPI 3.1 document (checked against the official schema
 * by @seriousme/openapi-schema-validator), and every route the app serves is in it.
 */
import { expect, test } from "bun:test";
import { Validator } from "@seriousme/openapi-schema-validator";
import { testApp } from "./support.ts";

interface Doc {
  openapi: string;
  paths: Record<string, Record<string, unknown>>;
}

async function document(): Promise<{ doc: Doc; app: ReturnType<typeof testApp>["app"] }> {
  const { app } = testApp();
  const r = await app.request("/openapi.json");
  expect(r.status).toBe(200);
  return { doc: (await r.json()) as Doc, app };
}

test("/openapi.json validates as OpenAPI 3.1", async () => {
  const { doc } = await document();
  const validator = new Validator();
  const result = await validator.validate(doc as unknown as Parameters<Validator["validate"]>[0]);
  expect({ valid: result.valid, errors: result.errors ?? null, version: validator.version }).toEqual({
    valid: true,
    errors: null,
    version: "3.1",
  });
});

test("every route the app serves is in the document, with its method", async () => {
  const { doc, app } = await document();
  const served = app.routes
    // Middleware registrations (method ALL) are not routes; the Swagger UI's static files are not API.
    .filter((r) => r.method !== "ALL" && !r.path.startsWith("/docs/assets/"))
    .map((r) => `${r.method.toLowerCase()} ${r.path.replaceAll(/:([^/]+)/g, "{$1}")}`);
  const documented = Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.keys(ops).map((m) => `${m} ${path}`),
  );
  expect([...new Set(served)].sort()).toEqual([...new Set(documented)].sort());
  // Produce 2, replay 2, lookup 2, admin 7, lease 4, operations 5, WebSocket 1.
  expect(documented.length).toBeGreaterThanOrEqual(23);
});

test("every operation documents its problem answers as application/problem+json", async () => {
  const { doc } = await document();
  const missing: string[] = [];
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      const responses = (op as { responses: Record<string, { content?: Record<string, unknown> }> })
        .responses;
      for (const [status, r] of Object.entries(responses)) {
        if (Number(status) >= 400 && !r.content?.["application/problem+json"])
          missing.push(`${method} ${path} ${status}`);
      }
    }
  }
  expect(missing).toEqual([]);
});
