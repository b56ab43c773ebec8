/**
 * The fast path of JSON produce answers exactly what the Hono app answers (status, headers that
 * matter, body bytes, what reaches the cluster, metrics), for valid and invalid requests alike,
 * and leaves every unusual request to the app.
 */
import { describe, expect, test } from "bun:test";
import { createGateway } from "../../gateway/app.ts";
import { fastProduce } from "../../gateway/fast-produce.ts";
import { plainMessageInput } from "../../gateway/message-input.ts";
import { MessageInput } from "../../gateway/schemas.ts";
import { startGateway } from "../../gateway/server.ts";
import { gatewayConfig } from "../../src/config/gateway-config.ts";
import { defaultsOf } from "../../src/config/schema.ts";
import { ResponseCode } from "../../src/remoting/index.ts";
import { silent } from "../support/silent.ts";
import { brokerError, FakeCluster, KEYS, TEST_API_KEYS, testDeps } from "./support.ts";

const BASE = "http://gw.test";
const PATH = "/v1/topics/orders/messages";

interface Case {
  name: string;
  body: string;
  path?: string;
  headers?: Record<string, string>;
  /** Makes the cluster fail the send with this. */
  failWith?: unknown;
}

const j = (v: unknown) => JSON.stringify(v);
const big = (n: number) => "x".repeat(n);

const VALID: Case[] = [
  { name: "text body", body: j({ body: "hello" }) },
  {
    name: "every plain field",
    body: j({ body: "aGk=", bodyEncoding: "base64", tags: "t", keys: ["a", "b"] }),
  },
  {
    name: "properties and sharding key",
    body: j({ body: "x", properties: { region: "eu" }, shardingKey: "s1" }),
  },
  { name: "one key as a string, delayMs", body: j({ body: "x", keys: "k", delayMs: 1000 }) },
  { name: "deliverAt (zod's path)", body: j({ body: "x", deliverAt: "2020-01-01T00:00:00Z" }) },
  { name: "unknown fields are ignored (zod's path)", body: j({ body: "x", extra: 1 }) },
  {
    name: "a +json content type",
    body: j({ body: "x" }),
    headers: { "content-type": "application/cloudevents+json" },
  },
  {
    name: "a charset",
    body: j({ body: "x" }),
    headers: { "content-type": "application/json; charset=utf-8" },
  },
  { name: "empty strings", body: j({ body: "x", tags: "", keys: [], properties: {} }) },
  { name: "a __proto__ property (zod's path)", body: '{"body":"x","properties":{"__proto__":"v"}}' },
  { name: "limits exactly", body: j({ body: "x", tags: big(255), keys: Array(32).fill("k") }) },
];

const INVALID: Case[] = [
  { name: "malformed JSON", body: "{" },
  { name: "empty body", body: "" },
  { name: "null", body: "null" },
  { name: "an array", body: "[]" },
  { name: "a string", body: '"body"' },
  { name: "no body field", body: j({ tags: "t" }) },
  { name: "body not a string", body: j({ body: 1 }) },
  { name: "empty message body", body: j({ body: "" }) },
  { name: "body over messageBytesMax", body: j({ body: big(20_000) }) },
  { name: "bad base64", body: j({ body: "***", bodyEncoding: "base64" }) },
  { name: "unknown encoding", body: j({ body: "x", bodyEncoding: "utf16" }) },
  { name: "tags too long", body: j({ body: "x", tags: big(256) }) },
  { name: "tags with a separator", body: j({ body: "x", tags: "a\u0001b" }) },
  { name: "tags not a string", body: j({ body: "x", tags: 5 }) },
  { name: "a key with whitespace", body: j({ body: "x", keys: "a b" }) },
  { name: "33 keys", body: j({ body: "x", keys: Array(33).fill("k") }) },
  { name: "keys of numbers", body: j({ body: "x", keys: [1, 2] }) },
  { name: "a property with an empty name", body: j({ body: "x", properties: { "": "v" } }) },
  { name: "a property value not a string", body: j({ body: "x", properties: { a: 1 } }) },
  { name: "properties as an array", body: j({ body: "x", properties: ["a"] }) },
  { name: "a property value too long", body: j({ body: "x", properties: { a: big(32_768) } }) },
  { name: "sharding key too long", body: j({ body: "x", shardingKey: big(256) }) },
  { name: "delayMs negative", body: j({ body: "x", delayMs: -1 }) },
  { name: "delayMs fractional", body: j({ body: "x", delayMs: 1.5 }) },
  { name: "delayMs beyond the timer", body: j({ body: "x", delayMs: 4 * 24 * 3600 * 1000 }) },
  { name: "delayMs as text", body: j({ body: "x", delayMs: "5" }) },
  { name: "delayMs and deliverAt", body: j({ body: "x", delayMs: 5, deliverAt: 5 }) },
  { name: "deliverAt too far", body: j({ body: "x", deliverAt: Date.now() + 10 * 24 * 3600 * 1000 }) },
  { name: "several problems at once", body: j({ body: 1, tags: 2, keys: 3, delayMs: "x" }) },
  { name: "an illegal topic", body: j({ body: "x" }), path: "/v1/topics/bad!topic/messages" },
  { name: "a topic too long", body: j({ body: "x" }), path: `/v1/topics/${big(300)}/messages` },
  { name: "the broker is busy", body: j({ body: "x" }), failWith: brokerError(ResponseCode.SYSTEM_BUSY) },
  { name: "no such topic", body: j({ body: "x" }), failWith: brokerError(ResponseCode.TOPIC_NOT_EXIST) },
  { name: "a gateway bug", body: j({ body: "x" }), failWith: new Error("boom") },
];

function requestOf(c: Case, extraHeaders: Record<string, string> = {}): Request {
  return new Request(BASE + (c.path ?? PATH), {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "content-length": String(Buffer.byteLength(c.body)),
      "x-request-id": "req-1",
      ...c.headers,
      ...extraHeaders,
    },
    body: c.body,
  });
}

/** The same requests through the app and through the fast path, each on a cluster of its own. */
function pair(over: Parameters<typeof testDeps>[0] = {}) {
  const appDeps = testDeps(over);
  const fastDeps = testDeps(over);
  const app = createGateway(appDeps);
  const fast = fastProduce(fastDeps);
  if (fast === null) throw new Error("no fast path");
  const viaApp = async (req: Request) => app.fetch(req);
  const viaFast = async (req: Request) => {
    const res = fast(req);
    if (res === null) throw new Error(`the fast path did not take ${req.method} ${req.url}`);
    return res;
  };
  return {
    appDeps,
    fastDeps,
    app,
    fast,
    viaApp,
    viaFast,
    appCluster: appDeps.cluster as FakeCluster,
    fastCluster: fastDeps.cluster as FakeCluster,
  };
}

async function answer(res: Response) {
  return {
    status: res.status,
    type: res.headers.get("content-type"),
    requestId: res.headers.get("x-request-id"),
    retryAfter: res.headers.get("retry-after"),
    body: await res.text(),
  };
}

/** Request counts and message counts of a metrics registry (latency sums vary with time). */
async function counts(deps: ReturnType<typeof testDeps>): Promise<string[]> {
  const text = await deps.metrics.registry.metrics();
  return text
    .split("\n")
    .filter((l) =>
      /^rocketbun_gateway_(http_requests_total|messages_in_total|http_request_duration_seconds_count)/.test(
        l,
      ),
    );
}

describe("the hand check of MessageInput", () => {
  test("accepts only what zod accepts, as zod parses it; refuses every invalid body", () => {
    let handled = 0;
    for (const c of VALID) {
      const v = JSON.parse(c.body);
      const plain = plainMessageInput(v);
      if (plain === null) continue;
      handled++;
      expect({ case: c.name, parsed: plain }).toEqual({ case: c.name, parsed: MessageInput.parse(v) });
    }
    expect(handled).toBeGreaterThanOrEqual(VALID.length - 4);
    for (const c of INVALID) {
      let v: unknown;
      try {
        v = JSON.parse(c.body);
      } catch {
        continue;
      }
      if (
        c.failWith !== undefined ||
        c.path !== undefined ||
        c.name.includes("messageBytesMax") ||
        c.name.includes("base64") ||
        c.name.includes("empty message") ||
        c.name.includes("deliverAt too far")
      )
        continue;
      expect({ case: c.name, plain: plainMessageInput(v) }).toEqual({ case: c.name, plain: null });
      expect({ case: c.name, zod: MessageInput.safeParse(v).success }).toEqual({ case: c.name, zod: false });
    }
  });
});

describe("the fast path of JSON produce", () => {
  test("answers valid and invalid requests byte for byte as the app does, and sends the same", async () => {
    const p = pair();
    for (const c of [...VALID, ...INVALID]) {
      p.appCluster.failWith = c.failWith ?? null;
      p.fastCluster.failWith = c.failWith ?? null;
      const a = await answer(await p.viaApp(requestOf(c)));
      const f = await answer(await p.viaFast(requestOf(c)));
      expect({ case: c.name, ...f }).toEqual({ case: c.name, ...a });
      if (VALID.includes(c))
        expect({ case: c.name, status: f.status }).toEqual({ case: c.name, status: 201 });
      else
        expect({ case: c.name, problem: f.type }).toEqual({
          case: c.name,
          problem: "application/problem+json",
        });
    }
    expect(p.fastCluster.sent).toEqual(p.appCluster.sent);
    expect(p.fastCluster.sent.length).toBe(VALID.length);
    expect(await counts(p.fastDeps)).toEqual(await counts(p.appDeps));
  });

  test("a request without x-request-id gets the next id of the gateway's one sequence, as from the app", async () => {
    const deps = testDeps();
    const app = createGateway(deps);
    const fast = fastProduce(deps)!;
    const req = () =>
      new Request(BASE + PATH, {
        method: "POST",
        headers: { "content-type": "application/json", "content-length": "14" },
        body: '{"body":"abc"}',
      });
    const ids = [];
    for (const serve of [
      (r: Request) => app.fetch(r),
      (r: Request) => fast(r)!,
      (r: Request) => app.fetch(r),
    ]) {
      const res = await serve(req());
      expect(res.status).toBe(201);
      ids.push(res.headers.get("x-request-id"));
    }
    const prefix = ids[0]?.split("-")[0];
    expect(prefix).toMatch(/^[0-9a-f]{8}$/);
    expect(ids).toEqual([`${prefix}-1`, `${prefix}-2`, `${prefix}-3`]);
  });

  test("with API keys: a key with the produce scope sends, one without it gets the app's 403", async () => {
    const p = pair({ apiKeys: TEST_API_KEYS() });
    const ok = { name: "allowed", body: j({ body: "x" }) };
    const denied = { name: "denied", body: j({ body: "x" }), path: "/v1/topics/payments/messages" };
    for (const [c, key, status] of [
      [ok, KEYS.producer, 201],
      [denied, KEYS.producer, 403],
      [ok, KEYS.reader, 403],
    ] as const) {
      const headers = { authorization: `Bearer ${key}` };
      const a = await answer(await p.viaApp(requestOf(c, headers)));
      const f = await answer(await p.viaFast(requestOf(c, headers)));
      expect(f).toEqual(a);
      expect(f.status).toBe(status);
    }
  });

  test("unusual requests are left to the app, before their body is read", () => {
    const p = pair({ apiKeys: TEST_API_KEYS() });
    const body = j({ body: "x" });
    const auth = { authorization: `Bearer ${KEYS.producer}` };
    const base = { "content-type": "application/json", "content-length": String(body.length), ...auth };
    const left: [string, Request][] = [
      ["a query string", new Request(`${BASE}${PATH}?x=1`, { method: "POST", headers: base, body })],
      [
        "a percent-encoded topic",
        new Request(`${BASE}/v1/topics/or%64ers/messages`, { method: "POST", headers: base, body }),
      ],
      ["a trailing slash", new Request(`${BASE}${PATH}/`, { method: "POST", headers: base, body })],
      ["the batch route", new Request(`${BASE}${PATH}/batch`, { method: "POST", headers: base, body })],
      ["another route", new Request(`${BASE}/v1/topics`, { method: "POST", headers: base, body })],
      ["GET", new Request(BASE + PATH, { headers: auth })],
      [
        "a raw body",
        new Request(BASE + PATH, {
          method: "POST",
          headers: { ...base, "content-type": "text/plain" },
          body,
        }),
      ],
      [
        "no content type",
        new Request(BASE + PATH, { method: "POST", headers: { "content-length": "1", ...auth }, body: "x" }),
      ],
      [
        "no Content-Length (streamed)",
        new Request(BASE + PATH, {
          method: "POST",
          headers: { "content-type": "application/json", ...auth },
          body: new Blob([body]).stream(),
        }),
      ],
      [
        "a body over the limit",
        new Request(BASE + PATH, {
          method: "POST",
          headers: { ...base, "content-length": String(1 << 20) },
          body,
        }),
      ],
      [
        "no API key",
        new Request(BASE + PATH, {
          method: "POST",
          headers: { "content-type": "application/json", "content-length": String(body.length) },
          body,
        }),
      ],
      [
        "an unknown API key",
        new Request(BASE + PATH, {
          method: "POST",
          headers: { ...base, authorization: "Bearer nope-nope-nope" },
          body,
        }),
      ],
    ];
    for (const [what, req] of left) {
      expect({ what, taken: p.fast(req) !== null }).toEqual({ what, taken: false });
      expect({ what, bodyUsed: req.bodyUsed }).toEqual({ what, bodyUsed: false });
    }
    expect(p.fast(new Request(BASE + PATH, { method: "POST", headers: base, body }))).not.toBeNull();
  });

  test("with CORS configured there is no fast path", () => {
    expect(fastProduce(testDeps({ options: { corsOrigins: "*" } }))).toBeNull();
  });

  test("over real HTTP, Bun.serve sends JSON produce through it and everything else through the app", async () => {
    const cluster = new FakeCluster();
    const config = {
      ...defaultsOf(gatewayConfig),
      gatewayPort: 0,
      gatewayBindAddress: "127.0.0.1",
      gatewayHandleSecret: "fast-produce-test",
    };
    const gw = await startGateway(config, { log: silent, cluster });
    try {
      const sent = await fetch(`${gw.url}${PATH}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: j({ body: "hi", tags: "t" }),
      });
      expect(sent.status).toBe(201);
      expect(await sent.json()).toMatchObject({
        msgId: "ID1",
        topic: "orders",
        queueOffset: 0,
        status: "SEND_OK",
      });
      const bad = await fetch(`${gw.url}${PATH}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{",
      });
      expect(bad.status).toBe(400);
      expect(((await bad.json()) as { detail: string }).detail).toBe("Malformed JSON in request body");
      const raw = await fetch(`${gw.url}${PATH}`, {
        method: "POST",
        headers: { "content-type": "text/plain", "mq-tags": "r" },
        body: "raw",
      });
      expect(raw.status).toBe(201);
      expect(cluster.sent.map((s) => s.msg.tags)).toEqual(["t", "r"]);
      const metrics = await (await fetch(`${gw.url}/metrics`)).text();
      expect(metrics).toContain(
        'rocketbun_gateway_http_requests_total{method="POST",route="/v1/topics/:topic/messages",status="201"} 2',
      );
      expect(metrics).toContain(
        'rocketbun_gateway_http_requests_total{method="POST",route="/v1/topics/:topic/messages",status="400"} 1',
      );
    } finally {
      await gw.stop();
    }
  });
});
