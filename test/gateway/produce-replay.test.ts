/**
 * Produce, replay and lookup routes through app.request() against a scripted cluster: what each
 * route sends to the cluster, what it answers, and the problem every bad input gets.
 */
import { describe, expect, test } from "bun:test";
import { json, message, testApp } from "./support.ts";

const problemOf = async (r: Response) => ({
  status: r.status,
  type: r.headers.get("content-type"),
  body: (await r.json()) as Record<string, unknown>,
});

describe("POST /v1/topics/{topic}/messages", () => {
  test("a JSON message reaches the cluster with tags, keys, properties, sharding key and timer; 201 with its place", async () => {
    const { app, cluster } = testApp();
    const deliverAt = Date.now() + 60_000;
    const r = await app.request(
      "/v1/topics/orders/messages",
      json({
        body: "hi ✓",
        tags: "created",
        keys: ["k1", "k2"],
        properties: { region: "eu" },
        shardingKey: "user-1",
        deliverAt,
      }),
    );
    expect(r.status).toBe(201);
    expect(await r.json()).toEqual({
      msgId: "ID1",
      topic: "orders",
      brokerName: "b1",
      queueId: 0,
      queueOffset: 0,
      status: "SEND_OK",
    });
    expect(cluster.sent).toEqual([
      {
        topic: "orders",
        msg: {
          body: new TextEncoder().encode("hi ✓"),
          tags: "created",
          keys: ["k1", "k2"],
          properties: { region: "eu" },
          deliverAtMs: deliverAt,
        },
        target: { shardingKey: "user-1" },
      },
    ]);
  });

  test("a base64 body is sent as its bytes, delayMs as TIMER_DELAY_MS", async () => {
    const { app, cluster } = testApp();
    const bytes = new Uint8Array([0, 255, 1, 254, 0x80]);
    const r = await app.request(
      "/v1/topics/orders/messages",
      json({ body: Buffer.from(bytes).toString("base64"), bodyEncoding: "base64", delayMs: 5000 }),
    );
    expect(r.status).toBe(201);
    expect(cluster.sent[0]?.msg).toEqual({ body: bytes, delayMs: 5000 });
  });

  test("a raw body takes its options from mq-* headers", async () => {
    const { app, cluster } = testApp();
    const bytes = new Uint8Array([1, 2, 3, 0]);
    const r = await app.request("/v1/topics/orders/messages", {
      method: "POST",
      headers: {
        "content-type": "application/octet-stream",
        "mq-tags": "bin",
        "mq-keys": "a, b",
        "mq-sharding-key": "s",
        "mq-delay-ms": "1500",
        "mq-properties": "x=1&y=two%20words",
      },
      body: bytes,
    });
    expect(r.status).toBe(201);
    expect(cluster.sent[0]).toEqual({
      topic: "orders",
      msg: {
        body: bytes,
        tags: "bin",
        keys: ["a", "b"],
        properties: { x: "1", y: "two words" },
        delayMs: 1500,
      },
      target: { shardingKey: "s" },
    });
  });

  test("a deliverAt in the past sends an ordinary message", async () => {
    const { app, cluster } = testApp();
    await app.request("/v1/topics/orders/messages", json({ body: "x", deliverAt: "2001-01-01T00:00:00Z" }));
    expect(cluster.sent[0]?.msg).toEqual({ body: new TextEncoder().encode("x") });
  });

  const bad: [string, RequestInit, number, string][] = [
    [
      "malformed JSON",
      { method: "POST", headers: { "content-type": "application/json" }, body: "{" },
      400,
      "bad-request",
    ],
    ["no body field", json({ tags: "a" }), 400, "validation"],
    ["an empty body", json({ body: "" }), 400, "bad-request"],
    ["bad base64", json({ body: "@@@", bodyEncoding: "base64" }), 400, "bad-request"],
    ["an unknown bodyEncoding", json({ body: "a", bodyEncoding: "hex" }), 400, "validation"],
    ["both delayMs and deliverAt", json({ body: "a", delayMs: 1, deliverAt: 2 }), 400, "validation"],
    ["a negative delay", json({ body: "a", delayMs: -1 }), 400, "validation"],
    ["a delay beyond 3 days", json({ body: "a", delayMs: 4 * 24 * 3600 * 1000 }), 400, "validation"],
    [
      "deliverAt beyond 3 days",
      json({ body: "a", deliverAt: Date.now() + 4 * 24 * 3600 * 1000 }),
      400,
      "bad-request",
    ],
    ["a key with a space", json({ body: "a", keys: "a b" }), 400, "validation"],
    [
      "a property separator in a value",
      json({ body: "a", properties: { a: "x\u0001y" } }),
      400,
      "validation",
    ],
    ["a body over messageBytesMax", json({ body: "x".repeat(17 * 1024) }), 413, "too-large"],
    ["a request over requestBytesMax", json({ body: "x".repeat(70 * 1024) }), 413, "too-large"],
    [
      "an unsupported content type",
      { method: "POST", headers: { "content-type": "image/png" }, body: "x" },
      415,
      "unsupported-media-type",
    ],
    [
      "a raw body with a bad mq-delay-ms",
      { method: "POST", headers: { "content-type": "text/plain", "mq-delay-ms": "soon" }, body: "x" },
      400,
      "bad-request",
    ],
    [
      "an empty raw body",
      { method: "POST", headers: { "content-type": "application/octet-stream" }, body: "" },
      400,
      "bad-request",
    ],
  ];
  for (const [what, init, status, slug] of bad) {
    test(`${what} is refused with ${status} problem+json and nothing is sent`, async () => {
      const { app, cluster } = testApp();
      const p = await problemOf(await app.request("/v1/topics/orders/messages", init));
      expect({
        status: p.status,
        type: p.type,
        problemType: p.body.type,
        hasDetail: typeof p.body.detail,
      }).toEqual({
        status,
        type: "application/problem+json",
        problemType: `urn:rocketbun:problem:${slug}`,
        hasDetail: "string",
      });
      expect(cluster.sent).toEqual([]);
    });
  }

  test("an illegal topic name is a validation problem naming where", async () => {
    const { app } = testApp();
    const p = await problemOf(await app.request("/v1/topics/bad%20name/messages", json({ body: "a" })));
    expect(p.body.errors).toEqual([
      {
        where: "param.topic",
        message:
          "The specified topic[bad name] contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$",
      },
    ]);
  });
});

describe("POST /v1/topics/{topic}/messages/batch", () => {
  test("each item succeeds or fails on its own, in order", async () => {
    const { app, cluster } = testApp();
    const r = await app.request(
      "/v1/topics/orders/messages/batch",
      json({
        messages: [{ body: "a" }, { body: "%%", bodyEncoding: "base64" }, 7, { body: "b", tags: "t" }],
      }),
    );
    expect(r.status).toBe(200);
    const out = (await r.json()) as {
      succeeded: number;
      failed: number;
      results: { index: number; ok: boolean; problem?: { status: number } }[];
    };
    expect({
      succeeded: out.succeeded,
      failed: out.failed,
      shape: out.results.map((x) => [x.index, x.ok, x.problem?.status]),
      sent: cluster.sent.map((s) => new TextDecoder().decode(s.msg.body)).sort(),
    }).toEqual({
      succeeded: 2,
      failed: 2,
      shape: [
        [0, true, undefined],
        [1, false, 400],
        [2, false, 400],
        [3, true, undefined],
      ],
      sent: ["a", "b"],
    });
  });

  test("more items than batchItemsMax is refused whole; an empty batch too", async () => {
    const { app } = testApp();
    const tooMany = await app.request(
      "/v1/topics/orders/messages/batch",
      json({ messages: Array(9).fill({ body: "a" }) }),
    );
    const empty = await app.request("/v1/topics/orders/messages/batch", json({ messages: [] }));
    expect([tooMany.status, empty.status]).toEqual([400, 400]);
  });
});

describe("GET /v1/topics/{topic}/queues/{queueId}/messages", () => {
  test("reads from the offset with the given wait and answers the page with bodies as text", async () => {
    const { app, cluster } = testApp();
    const r = await app.request(
      "/v1/topics/orders/queues/1/messages?offset=5&max=10&waitMs=2000&tags=created&broker=b1",
    );
    expect(r.status).toBe(200);
    expect(cluster.calls[0]).toEqual({
      method: "read",
      args: [
        {
          topic: "orders",
          queueId: 1,
          offset: 5,
          maxMessages: 10,
          waitMs: 2000,
          brokerName: "b1",
          tags: "created",
        },
      ],
    });
    expect(await r.json()).toEqual({
      topic: "orders",
      brokerName: "b1",
      queueId: 1,
      status: "FOUND",
      nextOffset: 6,
      minOffset: 0,
      maxOffset: 6,
      messages: [
        {
          msgId: "0A0B0C0D0E0F00000000000000000001",
          offsetMsgId: "7F00000100002A9F0000000000000000",
          topic: "orders",
          brokerName: "b1",
          queueId: 1,
          queueOffset: 5,
          tags: "created",
          keys: ["k1"],
          properties: { region: "eu" },
          body: "hello",
          bodyEncoding: "text",
          bornTimestamp: 1000,
          storeTimestamp: 1001,
          bornHost: "127.0.0.1:1",
          storeHost: "127.0.0.1:10911",
          reconsumeTimes: 0,
        },
      ],
    });
  });

  test("a body that is not UTF-8 comes back as base64 under auto, and text can be forced", async () => {
    const { app, cluster } = testApp();
    cluster.page = { ...cluster.page, messages: [message({ body: new Uint8Array([0xff, 0xfe, 0x41]) })] };
    const auto = (await (await app.request("/v1/topics/orders/queues/1/messages")).json()) as {
      messages: { body: string; bodyEncoding: string }[];
    };
    const forced = (await (
      await app.request("/v1/topics/orders/queues/1/messages?bodyEncoding=base64")
    ).json()) as typeof auto;
    expect([auto.messages[0], forced.messages[0]].map((m) => [m?.body, m?.bodyEncoding])).toEqual([
      ["//5B", "base64"],
      ["//5B", "base64"],
    ]);
  });

  test("an offset outside the queue answers OFFSET_MOVED with where to go", async () => {
    const { app, cluster } = testApp();
    cluster.page = {
      brokerName: "b1",
      status: "OFFSET_ILLEGAL",
      messages: [],
      nextOffset: 6,
      minOffset: 0,
      maxOffset: 6,
    };
    const body = (await (
      await app.request("/v1/topics/orders/queues/0/messages?offset=99")
    ).json()) as Record<string, unknown>;
    expect([body.status, body.nextOffset]).toEqual(["OFFSET_MOVED", 6]);
  });

  for (const q of ["offset=-1", "max=0", "max=65", "waitMs=30001", "offset=abc"]) {
    test(`${q} is a validation problem`, async () => {
      const { app, cluster } = testApp();
      const r = await app.request(`/v1/topics/orders/queues/0/messages?${q}`);
      expect([r.status, cluster.calls.length]).toEqual([400, 0]);
    });
  }

  test("a queue id out of range is a validation problem", async () => {
    const { app } = testApp();
    expect((await app.request("/v1/topics/orders/queues/-1/messages")).status).toBe(400);
  });
});

describe("GET /v1/topics/{topic}/offsets", () => {
  test("a timestamp in epoch ms or ISO 8601 gives the offsets of every queue, or of one", async () => {
    const { app, cluster } = testApp();
    const all = await app.request("/v1/topics/orders/offsets?timestamp=2026-01-01T00:00:00Z");
    const one = await app.request("/v1/topics/orders/offsets?timestamp=1700000000000&queueId=3");
    expect([all.status, one.status]).toEqual([200, 200]);
    expect(await one.json()).toEqual({
      topic: "orders",
      timestamp: 1700000000000,
      offsets: [{ brokerName: "b1", queueId: 3, offset: 42 }],
    });
    expect(cluster.calls.map((c) => c.args)).toEqual([
      ["orders", Date.parse("2026-01-01T00:00:00Z"), undefined],
      ["orders", 1700000000000, { topic: "orders", queueId: 3 }],
    ]);
  });

  test("a timestamp that is neither is a validation problem", async () => {
    const { app } = testApp();
    expect((await app.request("/v1/topics/orders/offsets?timestamp=yesterday")).status).toBe(400);
    expect((await app.request("/v1/topics/orders/offsets")).status).toBe(400);
  });
});

describe("lookups", () => {
  test("by id answers the message; an unknown id is 404; a malformed id 400", async () => {
    const { app, cluster } = testApp();
    const hit = await app.request("/v1/topics/orders/messages/0a0b0c0d0e0f00000000000000000001");
    expect([hit.status, ((await hit.json()) as { body: string }).body]).toEqual([200, "hello"]);
    expect(cluster.calls[0]?.args).toEqual(["orders", "0A0B0C0D0E0F00000000000000000001"]);
    cluster.found = null;
    expect((await app.request("/v1/topics/orders/messages/0A0B0C0D0E0F00000000000000000002")).status).toBe(
      404,
    );
    expect((await app.request("/v1/topics/orders/messages/not-hex")).status).toBe(400);
  });

  test("a message found under another topic is not answered", async () => {
    const { app } = testApp();
    expect((await app.request("/v1/topics/audit/messages/0A0B0C0D0E0F00000000000000000001")).status).toBe(
      404,
    );
  });

  test("by key answers a list; key is required", async () => {
    const { app, cluster } = testApp();
    const r = await app.request("/v1/topics/orders/messages?key=k1&max=5");
    expect([r.status, ((await r.json()) as { messages: unknown[] }).messages.length]).toEqual([200, 1]);
    expect(cluster.calls[0]?.args).toEqual(["orders", "k1", 5]);
    expect((await app.request("/v1/topics/orders/messages")).status).toBe(400);
  });
});
