/**
 * Admin and operations routes, API keys and scopes, CORS, the 501 lease routes, and the one table
 * from RocketMQ response codes to HTTP statuses (429 with Retry-After when the broker is busy),
 * through app.request() against a scripted cluster.
 */
import { describe, expect, test } from "bun:test";
import { RESPONSE_CODE_HTTP } from "../../gateway/errors.ts";
import { ResponseCode } from "../../src/remoting/index.ts";
import { bearer, brokerError, json, KEYS, TEST_API_KEYS, testApp } from "./support.ts";

describe("admin routes", () => {
  test("topics: list, create, route, stats", async () => {
    const { app, cluster } = testApp();
    const list = await (await app.request("/v1/topics")).json();
    const created = await app.request("/v1/topics", json({ topic: "orders", queues: 4 }));
    const route = await (await app.request("/v1/topics/orders/route")).json();
    const stats = await (await app.request("/v1/topics/orders/stats")).json();
    expect({ list, created: [created.status, await created.json()], route, stats }).toEqual({
      list: { topics: ["audit", "orders", "orders-eu"] },
      created: [201, { topic: "orders", brokers: ["127.0.0.1:10911"] }],
      route: {
        topic: "orders",
        queues: [{ brokerName: "b1", readQueueNums: 4, writeQueueNums: 4, perm: 6 }],
        brokers: [{ cluster: "c1", brokerName: "b1", addrs: { "0": "127.0.0.1:10911" } }],
      },
      stats: {
        topic: "orders",
        messages: 4,
        queues: [
          { brokerName: "b1", queueId: 0, minOffset: 0, maxOffset: 3 },
          { brokerName: "b1", queueId: 1, minOffset: 1, maxOffset: 2 },
        ],
      },
    });
    expect(cluster.calls.find((c) => c.method === "createTopic")?.args).toEqual([
      { topic: "orders", queues: 4, order: false },
    ]);
  });

  test("groups, lag per queue and the cluster", async () => {
    const { app, cluster } = testApp();
    const groups = await (await app.request("/v1/groups")).json();
    const lag = await (await app.request("/v1/groups/billing/lag?topic=orders")).json();
    const info = await (await app.request("/v1/cluster")).json();
    expect({ groups, lag, info }).toEqual({
      groups: { groups: ["billing"] },
      lag: {
        group: "billing",
        totalLag: 6,
        queues: [
          {
            topic: "orders",
            brokerName: "b1",
            queueId: 0,
            brokerOffset: 10,
            consumerOffset: 4,
            lag: 6,
            lastTimestamp: 5,
          },
        ],
      },
      info: {
        clusters: { c1: ["b1"] },
        brokers: [{ cluster: "c1", brokerName: "b1", addrs: { "0": "127.0.0.1:10911" } }],
      },
    });
    expect(cluster.calls.find((c) => c.method === "groupLag")?.args).toEqual(["billing", "orders"]);
  });

  test("creating a topic with a bad name or queue count is a validation problem", async () => {
    const { app, cluster } = testApp();
    const statuses = [
      (await app.request("/v1/topics", json({ topic: "a b" }))).status,
      (await app.request("/v1/topics", json({ topic: "ok", queues: 0 }))).status,
      (await app.request("/v1/topics", json({}))).status,
    ];
    expect({ statuses, calls: cluster.calls.length }).toEqual({ statuses: [400, 400, 400], calls: 0 });
  });
});

describe("operations", () => {
  test("healthz, readyz (200 and 503 with Retry-After), metrics, docs and its assets", async () => {
    const { app, cluster } = testApp();
    const health = await app.request("/healthz");
    const ready = await app.request("/readyz");
    cluster.readyAnswer = { ok: false, detail: "the NameServer knows no broker yet" };
    const notReady = await app.request("/readyz");
    await app.request("/v1/topics/orders/messages", json({ body: "a" }));
    const metrics = await (await app.request("/metrics")).text();
    const docs = await app.request("/docs");
    const css = await app.request("/docs/assets/swagger-ui.css");
    const other = await app.request("/docs/assets/package.json");
    expect({
      health: [health.status, await health.json()],
      ready: [ready.status, await ready.json()],
      notReady: [notReady.status, notReady.headers.get("retry-after"), notReady.headers.get("content-type")],
      sendCounted:
        /rocketbun_gateway_http_requests_total\{method="POST",route="\/v1\/topics\/:topic\/messages",status="201"\} 1/.test(
          metrics,
        ),
      messagesIn: /rocketbun_gateway_messages_in_total\{transport="http"\} 1/.test(metrics),
      docs: [docs.status, (await docs.text()).includes("/docs/assets/swagger-ui-bundle.js")],
      css: [css.status, css.headers.get("content-type")],
      other: other.status,
    }).toEqual({
      health: [200, { status: "ok" }],
      ready: [200, { status: "ready", detail: "1 broker(s) registered" }],
      notReady: [503, "3", "application/problem+json"],
      sendCounted: true,
      messagesIn: true,
      docs: [200, true],
      css: [200, "text/css; charset=utf-8"],
      other: 404,
    });
  });

  test("every answer carries a request id; a sane incoming one is kept", async () => {
    const { app } = testApp();
    const own = await app.request("/healthz", { headers: { "x-request-id": "abc-123" } });
    const odd = await app.request("/healthz", { headers: { "x-request-id": "no spaces allowed" } });
    expect(own.headers.get("x-request-id")).toBe("abc-123");
    expect(odd.headers.get("x-request-id")).toMatch(/^[0-9a-f]{8}-[0-9a-z]+$/);
  });

  test("an unknown route is a 404 problem", async () => {
    const { app } = testApp();
    const r = await app.request("/v2/nothing");
    expect([
      r.status,
      r.headers.get("content-type"),
      ((await r.json()) as { detail: string }).detail,
    ]).toEqual([404, "application/problem+json", "no route GET /v2/nothing"]);
  });

  test("GET /v1/ws without an upgrade is 426", async () => {
    const { app } = testApp();
    expect((await app.request("/v1/ws")).status).toBe(426);
  });
});

describe("broker answers become HTTP statuses through one table", () => {
  const cases: [string, number, number, string | null][] = [
    ["SYSTEM_BUSY", ResponseCode.SYSTEM_BUSY, 429, "3"],
    ["FLOW_CONTROL", ResponseCode.FLOW_CONTROL, 429, "3"],
    ["SERVICE_NOT_AVAILABLE", ResponseCode.SERVICE_NOT_AVAILABLE, 503, "3"],
    ["RPC_SEND_TO_CHANNEL_FAILED", ResponseCode.RPC_SEND_TO_CHANNEL_FAILED, 503, "3"],
    ["TOPIC_NOT_EXIST", ResponseCode.TOPIC_NOT_EXIST, 404, null],
    ["NO_PERMISSION", ResponseCode.NO_PERMISSION, 403, null],
    ["MESSAGE_ILLEGAL", ResponseCode.MESSAGE_ILLEGAL, 400, null],
    ["INVALID_PARAMETER", ResponseCode.INVALID_PARAMETER, 400, null],
    ["RPC_TIME_OUT", ResponseCode.RPC_TIME_OUT, 504, null],
    ["SYSTEM_ERROR", ResponseCode.SYSTEM_ERROR, 502, null],
    ["an unlisted code", 777, 502, null],
  ];
  for (const [name, code, status, retryAfter] of cases) {
    test(`${name} (${code}) on a send is ${status}${retryAfter ? " with Retry-After" : ""}`, async () => {
      const { app, cluster } = testApp();
      cluster.failWith = brokerError(code, `remark of ${name}`);
      const r = await app.request("/v1/topics/orders/messages", json({ body: "a" }));
      const p = (await r.json()) as Record<string, unknown>;
      expect({
        status: r.status,
        retryAfter: r.headers.get("retry-after"),
        code: p.code,
        detail: p.detail,
      }).toEqual({
        status,
        retryAfter,
        code,
        detail: `remark of ${name}`,
      });
    });
  }

  test("a flooded send lane (SYSTEM_BUSY) in a batch marks the items 429 and the others still go", async () => {
    const { app, cluster } = testApp();
    let n = 0;
    const send = cluster.send.bind(cluster);
    cluster.send = (...args) =>
      ++n % 2 === 0
        ? Promise.reject(brokerError(ResponseCode.SYSTEM_BUSY, "[REJECTREQUEST]"))
        : send(...args);
    const r = await app.request(
      "/v1/topics/orders/messages/batch",
      json({ messages: [{ body: "a" }, { body: "b" }, { body: "c" }, { body: "d" }] }),
    );
    const out = (await r.json()) as {
      results: { ok: boolean; problem?: { status: number; retryAfterSeconds?: number } }[];
    };
    expect(out.results.map((x) => x.problem?.status ?? 201)).toEqual([201, 429, 201, 429]);
  });

  test("every mapped status is a 4xx or 5xx, and retry is only offered on 429 and 503", () => {
    for (const m of RESPONSE_CODE_HTTP.values()) {
      expect(m.status >= 400 && m.status < 600).toBe(true);
      if (m.retry) expect([429, 503]).toContain(m.status);
    }
  });

  test("a bug in the gateway is a 500 problem that does not leak the error", async () => {
    const { app, cluster } = testApp();
    cluster.failWith = new TypeError("secret internals");
    const r = await app.request("/v1/topics", { method: "GET" });
    const p = (await r.json()) as { detail: string };
    expect([r.status, p.detail.includes("secret")]).toEqual([500, false]);
  });
});

describe("API keys and scopes", () => {
  const keyed = () => testApp({ apiKeys: TEST_API_KEYS() });

  test("no key or an unknown key is 401; a malformed Authorization header too", async () => {
    const { app } = keyed();
    const statuses = [
      (await app.request("/v1/topics")).status,
      (await app.request("/v1/topics", { headers: bearer("wrong-key-0123456789") })).status,
      (await app.request("/v1/topics", { headers: { authorization: "Basic abc" } })).status,
    ];
    expect(statuses).toEqual([401, 401, 401]);
  });

  test("operations routes need no key", async () => {
    const { app } = keyed();
    expect([(await app.request("/healthz")).status, (await app.request("/openapi.json")).status]).toEqual([
      200, 200,
    ]);
  });

  test("produce, consume and admin scopes hold per topic pattern", async () => {
    const { app } = keyed();
    const send = (key: string, topic: string) =>
      app.request(`/v1/topics/${topic}/messages`, json({ body: "a" }, bearer(key)));
    const read = (key: string, topic: string) =>
      app.request(`/v1/topics/${topic}/queues/0/messages`, { headers: bearer(key) });
    const statuses = {
      producerOrders: (await send(KEYS.producer, "orders")).status,
      producerOrdersEu: (await send(KEYS.producer, "orders-eu")).status,
      producerAudit: (await send(KEYS.producer, "audit")).status,
      producerReads: (await read(KEYS.producer, "orders")).status,
      readerReads: (await read(KEYS.reader, "orders")).status,
      readerOtherTopic: (await read(KEYS.reader, "orders-eu")).status,
      readerSends: (await send(KEYS.reader, "orders")).status,
      adminCluster: (await app.request("/v1/cluster", { headers: bearer(KEYS.admin) })).status,
      ordersAdminCluster: (await app.request("/v1/cluster", { headers: bearer(KEYS.ordersAdmin) })).status,
      ordersAdminRoute: (await app.request("/v1/topics/orders/route", { headers: bearer(KEYS.ordersAdmin) }))
        .status,
      ordersAdminAuditRoute: (
        await app.request("/v1/topics/audit/route", { headers: bearer(KEYS.ordersAdmin) })
      ).status,
      producerTopics: (await app.request("/v1/topics", { headers: bearer(KEYS.producer) })).status,
    };
    expect(statuses).toEqual({
      producerOrders: 201,
      producerOrdersEu: 201,
      producerAudit: 403,
      producerReads: 403,
      readerReads: 200,
      readerOtherTopic: 403,
      readerSends: 403,
      adminCluster: 200,
      ordersAdminCluster: 403,
      ordersAdminRoute: 200,
      ordersAdminAuditRoute: 403,
      producerTopics: 403,
    });
  });

  test("a topic admin lists only the topics its patterns cover", async () => {
    const { app } = keyed();
    const r = await app.request("/v1/topics", { headers: bearer(KEYS.ordersAdmin) });
    expect(await r.json()).toEqual({ topics: ["orders", "orders-eu"] });
  });

  test("a 403 names the key and the scope it lacks", async () => {
    const { app } = keyed();
    const r = await app.request("/v1/topics/audit/messages", json({ body: "a" }, bearer(KEYS.producer)));
    expect(((await r.json()) as { detail: string }).detail).toBe(
      "API key producer has no produce scope for topic audit",
    );
  });
});

describe("CORS", () => {
  test("configured origins get CORS headers and preflights pass without a key", async () => {
    const { app } = testApp({ options: { corsOrigins: ["https://app.example"] }, apiKeys: TEST_API_KEYS() });
    const pre = await app.request("/v1/topics/orders/messages", {
      method: "OPTIONS",
      headers: { origin: "https://app.example", "access-control-request-method": "POST" },
    });
    const other = await app.request("/healthz", { headers: { origin: "https://evil.example" } });
    expect([
      pre.status,
      pre.headers.get("access-control-allow-origin"),
      other.headers.get("access-control-allow-origin"),
    ]).toEqual([204, "https://app.example", null]);
  });

  test("without configured origins no CORS header is sent", async () => {
    const { app } = testApp();
    const r = await app.request("/healthz", { headers: { origin: "https://app.example" } });
    expect(r.headers.get("access-control-allow-origin")).toBe(null);
  });
});
