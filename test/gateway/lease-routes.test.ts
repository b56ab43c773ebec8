/**
 * Lease routes through app.request() with a scripted cluster: receive signs each broker handle;
 * ack / nack / extend verify every handle before any broker request (forged, altered, another
 * secret, another group or topic: 400), answer one result per handle (an expired lease 410, a
 * broker failure its problem), and another gateway with the same secret settles the same handles.
 */
import { describe, expect, test } from "bun:test";
import { HandleSigner } from "../../gateway/receipt-handle.ts";
import { ResponseCode } from "../../src/remoting/index.ts";
import { waitFor } from "../support/rocketbun-child.ts";
import {
  bearer,
  brokerError,
  brokerHandle,
  FakeCluster,
  json,
  KEYS,
  message,
  TEST_API_KEYS,
  TEST_HANDLE_SECRET,
  testApp,
} from "./support.ts";

const BASE = "/v1/groups/billing/topics/orders";

interface Leased {
  msgId: string;
  body: string;
  receiptHandle: string;
  leaseExpiresAt: number;
  properties: Record<string, string>;
}

interface Results {
  results: { ok: boolean; receiptHandle?: string; problem?: { status: number; type: string } }[];
}

async function receiveOne(app: ReturnType<typeof testApp>["app"]): Promise<Leased[]> {
  const r = await app.request(`${BASE}/receive`, json({ max: 4 }));
  expect(r.status).toBe(200);
  return ((await r.json()) as { messages: Leased[] }).messages;
}

describe("receive", () => {
  test("pops with the defaults and gives each message a signed handle and its lease end", async () => {
    const { app, cluster, deps } = testApp();
    const popTime = Date.now();
    cluster.leased = [{ message: message(), brokerHandle: brokerHandle(5, popTime, 60_000) }];
    const [m] = await receiveOne(app);
    expect(cluster.calls).toEqual([
      {
        method: "receive",
        args: [{ group: "billing", topic: "orders", maxMessages: 4, waitMs: 0, invisibleMs: 60_000 }],
      },
    ]);
    expect({ body: m!.body, properties: m!.properties, leaseExpiresAt: m!.leaseExpiresAt }).toEqual({
      body: "hello",
      properties: { region: "eu" },
      leaseExpiresAt: popTime + 60_000,
    });
    expect(deps.handles.verify(m!.receiptHandle)).toEqual({
      group: "billing",
      topic: "orders",
      brokerHandle: brokerHandle(5, popTime, 60_000),
    });
  });

  test("tags, waitMs, invisibleMs and ordered reach the cluster; nothing leased is an empty list", async () => {
    const { app, cluster } = testApp();
    cluster.leased = [];
    const r = await app.request(
      `${BASE}/receive`,
      json({ max: 32, waitMs: 10, invisibleMs: 5000, tags: "A || B", ordered: true }),
    );
    expect([r.status, await r.json()]).toEqual([200, { messages: [] }]);
    expect(cluster.calls[0]!.args).toEqual([
      {
        group: "billing",
        topic: "orders",
        maxMessages: 32,
        waitMs: 10,
        invisibleMs: 5000,
        tags: "A || B",
        ordered: true,
      },
    ]);
  });

  test("an SQL92 filter reaches the cluster instead of tags; both at once is a 400", async () => {
    const { app, cluster } = testApp();
    cluster.leased = [];
    const ok = await app.request(`${BASE}/receive`, json({ sql: "region = 'eu'" }));
    const both = await app.request(`${BASE}/receive`, json({ sql: "a = 1", tags: "A" }));
    expect([ok.status, both.status]).toEqual([200, 400]);
    expect((cluster.calls[0]!.args[0] as { sql?: string }).sql).toBe("region = 'eu'");
  });

  test("out-of-range input is a 400 listing each issue", async () => {
    const { app, cluster } = testApp({ options: { pullWaitMsMax: 1000 } });
    const r = await app.request(`${BASE}/receive`, json({ max: 33, waitMs: 1001, invisibleMs: 10 }));
    const p = (await r.json()) as { errors: { where: string }[] };
    expect([r.status, p.errors.map((e) => e.where).sort()]).toEqual([
      400,
      ["json.invisibleMs", "json.max", "json.waitMs"],
    ]);
    expect(cluster.calls).toEqual([]);
  });

  test("an ordered receive the broker refuses is a 501 saying ordered POP is missing", async () => {
    const { app, cluster } = testApp();
    cluster.failWith = brokerError(
      ResponseCode.SYSTEM_ERROR,
      "ordered POP is not supported by this broker yet",
    );
    const r = await app.request(`${BASE}/receive`, json({ ordered: true }));
    const p = (await r.json()) as { type: string; detail: string };
    expect([r.status, p.type, p.detail]).toEqual([
      501,
      "urn:rocketbun:problem:ordered-receive-unsupported",
      "the broker refused an ordered POP: ordered POP is not supported by this broker yet",
    ]);
  });

  test("what a long poll brings after the client hung up is given back at once (nack 0)", async () => {
    const { app, cluster } = testApp();
    cluster.leased = [];
    const hangUp = new AbortController();
    const pending = app.request(`${BASE}/receive`, { ...json({ waitMs: 5000 }), signal: hangUp.signal });
    await waitFor("the receive is waiting", () => cluster.calls.length === 1);
    hangUp.abort();
    cluster.offer([{ message: message(), brokerHandle: brokerHandle(7) }]);
    await Promise.resolve(pending).catch(() => undefined);
    await waitFor("given back", () => cluster.changed.length === 1);
    expect(cluster.changed.map((c) => [c.brokerHandle.split(" ")[0], c.invisibleMs])).toEqual([["7", 0]]);
  });

  test("API keys: consume scope on the topic", async () => {
    const { app } = testApp({ apiKeys: TEST_API_KEYS() });
    const ok = await app.request(`${BASE}/receive`, json({}, bearer(KEYS.reader)));
    const other = await app.request("/v1/groups/billing/topics/audit/receive", json({}, bearer(KEYS.reader)));
    const producer = await app.request(`${BASE}/receive`, json({}, bearer(KEYS.producer)));
    expect([ok.status, other.status, producer.status]).toEqual([200, 403, 403]);
  });
});

describe("ack, nack, extend", () => {
  test("ack sends each broker handle; one result per handle", async () => {
    const { app, cluster } = testApp();
    cluster.leased = [
      { message: message(), brokerHandle: brokerHandle(5) },
      { message: message({ queueOffset: 6 }), brokerHandle: brokerHandle(6) },
    ];
    const got = await receiveOne(app);
    const r = await app.request(`${BASE}/ack`, json({ receiptHandles: got.map((m) => m.receiptHandle) }));
    expect([r.status, await r.json()]).toEqual([200, { results: [{ ok: true }, { ok: true }] }]);
    expect(cluster.acked.map((h) => h.split(" ")[7])).toEqual(["5", "6"]);
  });

  test("nack changes the invisible time to delayMs; extend returns a new handle that verifies", async () => {
    const { app, cluster, deps } = testApp();
    const [m] = await receiveOne(app);
    const nack = await app.request(
      `${BASE}/nack`,
      json({ receiptHandles: [m!.receiptHandle], delayMs: 2500 }),
    );
    expect([nack.status, await nack.json()]).toEqual([200, { results: [{ ok: true }] }]);
    const extend = await app.request(
      `${BASE}/extend`,
      json({ receiptHandles: [m!.receiptHandle], invisibleMs: 90_000 }),
    );
    const e = (await extend.json()) as {
      results: { ok: boolean; receiptHandle: string; leaseExpiresAt: number }[];
    };
    expect(cluster.changed.map((c) => c.invisibleMs)).toEqual([2500, 90_000]);
    const fresh = deps.handles.verify(e.results[0]!.receiptHandle);
    expect(typeof fresh === "string" ? fresh : fresh.brokerHandle.split(" ").slice(2, 3)).toEqual(["90000"]);
    expect(e.results[0]!.receiptHandle).not.toBe(m!.receiptHandle);
    expect(e.results[0]!.leaseExpiresAt).toBeGreaterThan(Date.now() + 80_000);
  });

  test("a forged, altered or foreign handle refuses the whole request with 400 before any broker call", async () => {
    const { app, cluster } = testApp();
    const [m] = await receiveOne(app);
    const good = m!.receiptHandle;
    const [v, payload, sig] = good.split(".") as [string, string, string];
    const altered = Buffer.from(payload, "base64url").toString().replace(" 5 ", " 6 ");
    const forged = [
      "not-a-handle",
      `${v}.${Buffer.from(altered).toString("base64url")}.${sig}`,
      new HandleSigner("another secret").sign({
        group: "billing",
        topic: "orders",
        brokerHandle: brokerHandle(5),
      }),
      new HandleSigner(TEST_HANDLE_SECRET).sign({
        group: "other",
        topic: "orders",
        brokerHandle: brokerHandle(5),
      }),
    ];
    for (const bad of forged) {
      const r = await app.request(`${BASE}/ack`, json({ receiptHandles: [good, bad] }));
      const p = (await r.json()) as { type: string; errors: { index: number }[] };
      expect([r.status, r.headers.get("content-type"), p.type, p.errors.map((e) => e.index)]).toEqual([
        400,
        "application/problem+json",
        "urn:rocketbun:problem:bad-receipt-handle",
        [1],
      ]);
    }
    expect(cluster.calls.map((c) => c.method)).toEqual(["receive"]);
  });

  test("an expired lease is a 410 result; a failed nack is that item's problem; the rest succeed", async () => {
    const cluster = new FakeCluster();
    const { app, deps } = testApp({ cluster });
    const sign = (h: string) => deps.handles.sign({ group: "billing", topic: "orders", brokerHandle: h });
    const expired = sign(brokerHandle(1, Date.now() - 10_000, 5000));
    const failing = sign(brokerHandle(2));
    const fine = sign(brokerHandle(3));
    const change = cluster.changeInvisible.bind(cluster);
    cluster.changeInvisible = async (g, t, h, ms) => {
      if (h.startsWith("2 ")) throw brokerError(ResponseCode.SYSTEM_BUSY, "busy");
      return change(g, t, h, ms);
    };
    const r = await app.request(`${BASE}/nack`, json({ receiptHandles: [expired, failing, fine] }));
    const body = (await r.json()) as Results;
    expect(body.results.map((x) => [x.ok, x.problem?.status, x.problem?.type])).toEqual([
      [false, 410, "urn:rocketbun:problem:lease-expired"],
      [false, 429, "urn:rocketbun:problem:broker-busy"],
      [true, undefined, undefined],
    ]);
    expect(cluster.changed.map((c) => c.brokerHandle.split(" ")[0])).toEqual(["3"]);
  });

  test("the live handles of an ack go to the broker together and share its answer; expired ones are 410", async () => {
    const cluster = new FakeCluster();
    const { app, deps } = testApp({ cluster });
    const sign = (h: string) => deps.handles.sign({ group: "billing", topic: "orders", brokerHandle: h });
    const handles = [
      sign(brokerHandle(1, Date.now() - 10_000, 5000)),
      sign(brokerHandle(2)),
      sign(brokerHandle(3)),
    ];
    const ok = (await (
      await app.request(`${BASE}/ack`, json({ receiptHandles: handles }))
    ).json()) as Results;
    cluster.ack = async () => {
      throw brokerError(ResponseCode.SYSTEM_BUSY, "busy");
    };
    const busy = (await (
      await app.request(`${BASE}/ack`, json({ receiptHandles: handles }))
    ).json()) as Results;
    expect([ok, busy].map((b) => b.results.map((x) => x.problem?.status ?? "ok"))).toEqual([
      [410, "ok", "ok"],
      [410, 429, 429],
    ]);
    expect(
      cluster.calls.filter((c) => c.method === "ack").map((c) => (c.args[2] as string[]).length),
    ).toEqual([2]);
  });

  test("another gateway with the same secret settles the handles; one with another secret refuses them", async () => {
    const first = testApp();
    const [m] = await receiveOne(first.app);
    const second = testApp();
    const third = testApp({ handles: new HandleSigner("rotated") });
    const ok = await second.app.request(`${BASE}/ack`, json({ receiptHandles: [m!.receiptHandle] }));
    const refused = await third.app.request(`${BASE}/ack`, json({ receiptHandles: [m!.receiptHandle] }));
    expect([ok.status, second.cluster.acked.length, refused.status, third.cluster.acked.length]).toEqual([
      200, 1, 400, 0,
    ]);
  });

  test("bad bodies: no handles, too many, bad delay", async () => {
    const { app } = testApp();
    const statuses = [];
    for (const [verb, body] of [
      ["ack", {}],
      ["ack", { receiptHandles: [] }],
      ["ack", { receiptHandles: Array(65).fill("h") }],
      ["nack", { receiptHandles: ["h"], delayMs: -1 }],
      ["extend", { receiptHandles: ["h"] }],
    ] as const)
      statuses.push((await app.request(`${BASE}/${verb}`, json(body))).status);
    expect(statuses).toEqual([400, 400, 400, 400, 400]);
  });
});
