/**
 * Lease-based consume end to end against `rocketbun start` (the gateway in process, POP underneath):
 * native and ali-ons produce → HTTP receive and WS subscription; ack, nack with a delay, extend,
 * expiry redelivery; a second gateway (`rocketbun gateway` over TCP, same handle secret) acking the
 * first's handles, and restarted between receive and ack; a tampered handle refused; a WS client
 * that stops reading does not raise the server's memory.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Message as AliMessage, Producer as AliProducer } from "ali-ons";
import WebSocket from "ws";
import { createProducer, type Producer } from "../../src/client/index.ts";
import { ALI_ONS_LOCAL } from "../support/ali-ons.ts";
import {
  freePort,
  type StartedRocketbun,
  startRocketbun,
  waitFor,
  waitForLine,
} from "../support/rocketbun-child.ts";
import { silent } from "../support/silent.ts";
import { maskedTextFrame, rawWebSocket } from "./raw-ws.ts";

const SECRET = "e2e-lease-handle-secret";
let rb: StartedRocketbun;
let gw: string;
let producer: Producer;
let dir: string;

interface Leased {
  msgId: string;
  body: string;
  tags?: string;
  reconsumeTimes: number;
  receiptHandle: string;
  leaseExpiresAt: number;
}

interface Results {
  results: { ok: boolean; receiptHandle?: string; problem?: { status: number; type: string } }[];
}

const post = (base: string, path: string, body: unknown) =>
  fetch(`${base}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });

async function createTopic(topic: string, queues: number): Promise<void> {
  expect((await post(gw, "/v1/topics", { topic, queues })).status).toBe(201);
  await waitFor(
    `route of ${topic}`,
    async () => (await fetch(`${gw}/v1/topics/${topic}/route`)).status === 200,
  );
}

async function receive(base: string, group: string, topic: string, body: Record<string, unknown>) {
  const r = await post(base, `/v1/groups/${group}/topics/${topic}/receive`, body);
  expect(r.status).toBe(200);
  return ((await r.json()) as { messages: Leased[] }).messages;
}

async function settle(base: string, group: string, topic: string, op: string, body: Record<string, unknown>) {
  const r = await post(base, `/v1/groups/${group}/topics/${topic}/${op}`, body);
  return { status: r.status, body: (await r.json()) as Results & { type?: string } };
}

/** `rocketbun gateway` alone over TCP with the shared handle secret. */
async function standaloneGateway(port = freePort()) {
  const conf = join(dir, `gateway-${port}.conf`);
  await writeFile(conf, `gatewayHandleSecret=${SECRET}\n`);
  const proc = Bun.spawn(
    [
      process.execPath,
      "src/cli/main.ts",
      "gateway",
      "--namesrv",
      rb.namesrvAddr,
      "--port",
      String(port),
    ].concat(["--bind", "127.0.0.1", "-c", conf]),
    {
      cwd: `${import.meta.dir}/../..`,
      stdout: "pipe",
      stderr: "ignore",
      env: { ...process.env, ROCKETBUN_LOG_LEVEL: "warn" },
    },
  );
  await waitForLine(proc.stdout, /The gateway boot success/);
  const url = `http://127.0.0.1:${port}`;
  await waitFor("standalone gateway ready", () =>
    fetch(`${url}/readyz`).then(
      (r) => r.ok,
      () => false,
    ),
  );
  return {
    url,
    port,
    async stop() {
      proc.kill("SIGTERM");
      expect(await proc.exited).toBe(0);
    },
  };
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "rocketbun-gw-lease-"));
  rb = await startRocketbun({
    name: "rocketbun-gateway-lease",
    brokerConf: { gatewayHandleSecret: SECRET },
    // The slow-reader test reads what the server holds off its RSS, which needs freed memory given
    // back to the system: mimalloc's own purge delay, not the one bin/rocketbun starts servers with.
    env: { ...process.env, ROCKETBUN_LOG_LEVEL: "warn", MIMALLOC_PURGE_DELAY: "100" },
  });
  gw = rb.gatewayUrl;
  await waitFor("gateway ready", () =>
    fetch(`${gw}/readyz`).then(
      (r) => r.ok,
      () => false,
    ),
  );
  producer = await createProducer({ namesrvAddr: rb.namesrvAddr, log: silent });
});

afterAll(async () => {
  await producer.shutdown();
  await rb.stop();
  await rm(dir, { recursive: true, force: true });
});

test("native and ali-ons produce → HTTP receive; acked messages are not delivered again", async () => {
  await createTopic("LeaseRecv", 2);
  const native = await producer.send({ topic: "LeaseRecv", body: "from native", tags: "N" });
  const ali = new AliProducer({ ...ALI_ONS_LOCAL, nameSrv: rb.namesrvAddr, producerGroup: "LEASE_ALI_P" });
  await ali.ready();
  try {
    await ali.send(new AliMessage("LeaseRecv", "A", Buffer.from("from ali-ons")));
  } finally {
    await ali.close();
  }
  const got: Leased[] = [];
  await waitFor("both received", async () => {
    got.push(...(await receive(gw, "LEASE_G1", "LeaseRecv", { max: 8, waitMs: 1000, invisibleMs: 1500 })));
    return got.length >= 2;
  });
  expect(got.map((m) => [m.body, m.tags, m.reconsumeTimes]).sort()).toEqual([
    ["from ali-ons", "A", 0],
    ["from native", "N", 0],
  ]);
  expect(got.some((m) => m.msgId === native.msgId)).toBe(true);
  const acked = await settle(gw, "LEASE_G1", "LeaseRecv", "ack", {
    receiptHandles: got.map((m) => m.receiptHandle),
  });
  expect(acked).toEqual({ status: 200, body: { results: [{ ok: true }, { ok: true }] } });
  // Past their leases' end: acked (one batch ack), they do not come back.
  expect(await receive(gw, "LEASE_G1", "LeaseRecv", { waitMs: 2500 })).toEqual([]);
});

test("expiry redelivers with reconsumeTimes 1 and the same msgId; nack with delayMs redelivers after the delay", async () => {
  await createTopic("LeaseExp", 1);
  const sent = await producer.send({ topic: "LeaseExp", body: "expiring" });
  const [first] = await receive(gw, "LEASE_G2", "LeaseExp", { waitMs: 5000, invisibleMs: 1000 });
  expect(first!.msgId).toBe(sent.msgId);
  const again = await waitFor(
    "redelivered",
    async () => (await receive(gw, "LEASE_G2", "LeaseExp", { waitMs: 3000 }))[0],
  );
  expect([again.msgId, again.reconsumeTimes, again.body]).toEqual([sent.msgId, 1, "expiring"]);
  const nackedAt = Date.now();
  expect(
    (
      await settle(gw, "LEASE_G2", "LeaseExp", "nack", {
        receiptHandles: [again.receiptHandle],
        delayMs: 1000,
      })
    ).body,
  ).toEqual({
    results: [{ ok: true }],
  });
  const third = await waitFor(
    "back after the nack delay",
    async () => (await receive(gw, "LEASE_G2", "LeaseExp", { waitMs: 3000 }))[0],
  );
  expect([third.msgId, third.reconsumeTimes]).toEqual([sent.msgId, 2]);
  expect(Date.now() - nackedAt).toBeGreaterThanOrEqual(900);
  expect(
    (await settle(gw, "LEASE_G2", "LeaseExp", "ack", { receiptHandles: [third.receiptHandle] })).status,
  ).toBe(200);
});

test("extend keeps a message invisible past its first lease, under a new handle that acks", async () => {
  await createTopic("LeaseExt", 1);
  await producer.send({ topic: "LeaseExt", body: "long job" });
  const [m] = await receive(gw, "LEASE_G3", "LeaseExt", { waitMs: 5000, invisibleMs: 1000 });
  const ext = await settle(gw, "LEASE_G3", "LeaseExt", "extend", {
    receiptHandles: [m!.receiptHandle],
    invisibleMs: 60_000,
  });
  const fresh = ext.body.results[0]!.receiptHandle!;
  expect([ext.status, ext.body.results[0]!.ok, fresh !== m!.receiptHandle]).toEqual([200, true, true]);
  // Past the first lease's end, nothing comes back.
  expect(await receive(gw, "LEASE_G3", "LeaseExt", { waitMs: 2000 })).toEqual([]);
  expect((await settle(gw, "LEASE_G3", "LeaseExt", "ack", { receiptHandles: [fresh] })).body).toEqual({
    results: [{ ok: true }],
  });
});

test("a second gateway acks the first's handles, also after a restart between receive and ack; a tampered handle is refused", async () => {
  await createTopic("LeaseTwo", 1);
  for (const b of ["one", "two"]) await producer.send({ topic: "LeaseTwo", body: b });
  const port = freePort();
  let other = await standaloneGateway(port);
  try {
    const got: Leased[] = [];
    await waitFor("two received", async () => {
      got.push(...(await receive(gw, "LEASE_G4", "LeaseTwo", { max: 2, waitMs: 1000, invisibleMs: 60_000 })));
      return got.length >= 2;
    });
    expect(
      (await settle(other.url, "LEASE_G4", "LeaseTwo", "ack", { receiptHandles: [got[0]!.receiptHandle] }))
        .body,
    ).toEqual({
      results: [{ ok: true }],
    });
    await other.stop();
    other = await standaloneGateway(port);
    const handle = got[1]!.receiptHandle;
    const [v, payload, sig] = handle.split(".") as [string, string, string];
    // Push the lease's pop time forward: the content changes, the signature stays.
    const [g, t, broker] = Buffer.from(payload, "base64url").toString().split("\n") as [
      string,
      string,
      string,
    ];
    const f = broker.split(" ");
    f[1] = String(Number(f[1]) + 600_000);
    const altered = Buffer.from(`${g}\n${t}\n${f.join(" ")}`).toString("base64url");
    const tampered = `${v}.${altered}.${sig}`;
    const refused = await settle(other.url, "LEASE_G4", "LeaseTwo", "ack", { receiptHandles: [tampered] });
    expect([refused.status, refused.body.type]).toEqual([400, "urn:rocketbun:problem:bad-receipt-handle"]);
    expect(
      (await settle(other.url, "LEASE_G4", "LeaseTwo", "ack", { receiptHandles: [handle] })).body,
    ).toEqual({
      results: [{ ok: true }],
    });
    // Both acked: nothing comes back after their leases would have ended either.
    expect(await receive(other.url, "LEASE_G4", "LeaseTwo", { waitMs: 1000 })).toEqual([]);
  } finally {
    await other.stop();
  }
});

/**
 * Anonymous resident memory (heap, buffers) of a process in MiB. File-backed pages are left out:
 * reading the store maps commit-log pages, which is the page cache, not memory the gateway holds.
 */
async function anonMiB(pid: number): Promise<number> {
  const status = await Bun.file(`/proc/${pid}/status`).text();
  return Number(/RssAnon:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN) / 1024;
}

interface WsFrame {
  type: string;
  id?: number;
  subscription?: string;
  message?: Leased;
  results?: { ok: boolean }[];
}

test("native produce → WS subscription: pushed messages acked by frame; an un-acked one comes back to a new socket", async () => {
  await createTopic("LeaseWs", 2);
  const ws = new WebSocket(`${gw.replace("http", "ws")}/v1/ws`);
  const frames: WsFrame[] = [];
  ws.on("message", (d) => frames.push(JSON.parse(String(d)) as WsFrame));
  await new Promise((r) => ws.once("open", r));
  ws.send(
    JSON.stringify({
      type: "subscribe",
      id: 1,
      group: "LEASE_WS",
      topic: "LeaseWs",
      credit: 10,
      invisibleMs: 1500,
    }),
  );
  await waitFor("subscribed", () => frames.some((f) => f.type === "subscribed"));
  const sent = [];
  for (const b of ["w1", "w2"]) sent.push((await producer.send({ topic: "LeaseWs", body: b })).msgId);
  const messages = await waitFor("two pushed", () => {
    const m = frames.filter((f) => f.type === "message");
    return m.length >= 2 ? m.map((f) => f.message!) : null;
  });
  expect(messages.map((m) => m.body).sort()).toEqual(["w1", "w2"]);
  const keep = messages.find((m) => m.body === "w1")!;
  ws.send(JSON.stringify({ type: "ack", id: 2, receiptHandle: keep.receiptHandle }));
  const result = await waitFor("ack result", () => frames.find((f) => f.type === "result"));
  expect([result.id, result.results]).toEqual([2, [{ ok: true }]]);
  ws.close();
  // A new socket gets the un-acked w2 after its invisible time, with reconsumeTimes 1.
  const again = new WebSocket(`${gw.replace("http", "ws")}/v1/ws`);
  const later: WsFrame[] = [];
  again.on("message", (d) => later.push(JSON.parse(String(d)) as WsFrame));
  await new Promise((r) => again.once("open", r));
  try {
    again.send(JSON.stringify({ type: "subscribe", group: "LEASE_WS", topic: "LeaseWs", credit: 10 }));
    const back = await waitFor("w2 back", () => later.find((f) => f.type === "message")?.message);
    // reconsumeTimes ≥ 1: the closed socket's subscription may still have had a POP parked on the
    // broker, which can take the revived copy; the gateway gives it back at once (one more attempt).
    expect([back.body, back.reconsumeTimes >= 1, back.msgId]).toEqual(["w2", true, sent[1]!]);
  } finally {
    again.close();
  }
});

test("a WS client that stops reading does not raise the server's RSS: the subscription pauses", async () => {
  await createTopic("LeaseSlow", 4);
  const body = "s".repeat(16 * 1024);
  const total = 2000; // 32 MiB of bodies
  for (let i = 0; i < total; i += 50)
    await Promise.all(Array.from({ length: 50 }, () => producer.send({ topic: "LeaseSlow", body })));
  const before = await anonMiB(rb.pid);
  // A client over node:net, so it can stop reading as a slow client would.
  const sock = await rawWebSocket(Number(new URL(gw).port));
  let received = 0;
  sock.on("data", (chunk: Buffer) => {
    received += chunk.length;
  });
  sock.write(
    maskedTextFrame(
      '{"type":"subscribe","group":"LEASE_SLOW","topic":"LeaseSlow","credit":1024,"invisibleMs":60000}',
    ),
  );
  await waitFor("first frames", () => received > 64 * 1024);
  // Stop reading: the kernel's buffers fill, then the gateway's queue towards this socket.
  sock.pause();
  const pauses = async () => {
    const text = await (await fetch(`${gw}/metrics`)).text();
    return Number(/rocketbun_gateway_ws_backpressure_pauses_total (\d+)/.exec(text)?.[1] ?? 0);
  };
  await waitFor("the subscription paused", async () => (await pauses()) > 0, 30_000);
  // What a POP and its frames allocate is garbage the collector returns soon after; what stays is
  // what the paused subscription holds. Were the 32 MiB queued towards the socket, it would stay.
  let after = await anonMiB(rb.pid);
  await waitFor(
    "memory settles",
    async () => {
      after = await anonMiB(rb.pid);
      return after - before < 12;
    },
    20_000,
  ).catch(() => undefined);
  sock.destroy();
  console.log(
    `slow WS reader: anonymous RSS ${before.toFixed(0)} → ${after.toFixed(0)} MiB, 32 MiB backlog, ${received} bytes read`,
  );
  expect(after - before).toBeLessThan(12);
});
