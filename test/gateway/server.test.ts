/**
 * The gateway on a real Bun.serve (loopback, port 0) with a scripted cluster: HTTP over a socket,
 * and the WebSocket with the `ws` package as client — per-frame acks, error frames that keep the
 * socket open, the in-flight cap, the frame size limit and a socket that stops reading.
 */
import { afterEach, expect, test } from "bun:test";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import WebSocket from "ws";
import { isLoopbackHost, type RunningGateway, startGateway } from "../../gateway/server.ts";
import { gatewayConfig } from "../../src/config/gateway-config.ts";
import { defaultsOf } from "../../src/config/schema.ts";
import { waitFor } from "../support/rocketbun-child.ts";
import { silent } from "../support/silent.ts";
import { maskedTextFrame, rawWebSocket } from "./raw-ws.ts";
import { FakeCluster } from "./support.ts";

const running: RunningGateway[] = [];
const sockets: WebSocket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.terminate();
  for (const g of running.splice(0)) await g.stop();
});

async function serve(over: Record<string, number | string> = {}, cluster = new FakeCluster()) {
  const config = {
    ...defaultsOf(gatewayConfig),
    gatewayPort: 0,
    gatewayBindAddress: "127.0.0.1",
    gatewayHandleSecret: "server-test",
    ...over,
  };
  const g = await startGateway(config, { log: silent, cluster });
  running.push(g);
  return { g, cluster };
}

interface Frame {
  type: string;
  id?: string | number;
  result?: { msgId: string };
  problem?: { status: number; type: string; detail: string };
}

/** A ws client that collects frames; `next(n)` resolves once n frames arrived in total. */
async function connect(url: string, query = "") {
  const ws = new WebSocket(`${url.replace("http", "ws")}/v1/ws${query}`);
  sockets.push(ws);
  const frames: Frame[] = [];
  let closed: { code: number } | null = null;
  ws.on("message", (data) => frames.push(JSON.parse(String(data)) as Frame));
  ws.on("close", (code) => {
    closed = { code };
  });
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
  });
  await waitFor("hello", () => frames.length >= 1);
  return {
    ws,
    frames,
    closed: () => closed,
    send: (f: unknown) => ws.send(typeof f === "string" ? f : JSON.stringify(f)),
    next: (n: number) => waitFor(`${n} frames`, () => frames.length >= n + 1).then(() => frames.slice(1)),
  };
}

const publish = (id: number, body = "hi") => ({ type: "publish", id, topic: "orders", message: { body } });

test("HTTP over a real socket: produce answers 201 with a request id, keep-alive reuses the connection", async () => {
  const { g, cluster } = await serve();
  const results = [];
  for (let i = 0; i < 3; i++) {
    const r = await fetch(`${g.url}/v1/topics/orders/messages`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ body: `m${i}` }),
    });
    results.push([
      r.status,
      r.headers.get("x-request-id") !== null,
      ((await r.json()) as { msgId: string }).msgId,
    ]);
  }
  expect(results).toEqual([
    [201, true, "ID1"],
    [201, true, "ID2"],
    [201, true, "ID3"],
  ]);
  expect(cluster.sent.length).toBe(3);
});

test("WS: hello, then each publish is acked with its id", async () => {
  const { g, cluster } = await serve();
  const c = await connect(g.url);
  expect(c.frames[0]).toMatchObject({ type: "hello", inflightMax: 64 });
  c.send(publish(1, "a"));
  c.send(publish(2, "b"));
  const got = await c.next(2);
  expect(got.map((f) => [f.type, f.id, f.result?.msgId]).sort()).toEqual([
    ["ack", 1, expect.any(String)],
    ["ack", 2, expect.any(String)],
  ]);
  expect(cluster.sent.map((s) => new TextDecoder().decode(s.msg.body)).sort()).toEqual(["a", "b"]);
});

test("WS: bad frames get error frames (with the id when there is one) and the socket stays open", async () => {
  const { g, cluster } = await serve();
  const c = await connect(g.url);
  c.send("not json");
  c.send({ id: 5 });
  c.send({ type: "publish", id: 6, topic: "bad topic", message: { body: "x" } });
  c.send({ type: "publish", id: 7, topic: "orders", message: { body: "@@", bodyEncoding: "base64" } });
  c.send({ type: "subscribe", id: 8, topic: "orders", group: "g" }); // no credit
  c.send({ type: "dance", id: 9 });
  c.ws.send(new Uint8Array([1, 2, 3]));
  c.send({ type: "ping", id: 10 });
  const got = await c.next(8);
  expect(got.map((f) => [f.type, f.id, f.problem?.status])).toEqual([
    ["error", undefined, 400],
    ["error", 5, 400],
    ["error", 6, 400],
    ["error", 7, 400],
    ["error", 8, 400],
    ["error", 9, 400],
    ["error", undefined, 400],
    ["pong", 10, undefined],
  ]);
  expect({ sent: cluster.sent.length, open: c.ws.readyState === WebSocket.OPEN }).toEqual({
    sent: 0,
    open: true,
  });
});

test("WS: publishes beyond wsInflightMax are refused per frame with 429; the others are acked once the broker answers", async () => {
  const cluster = new FakeCluster();
  let release: () => void = () => {};
  cluster.sendGate = new Promise<void>((r) => {
    release = r;
  });
  const { g } = await serve({ gatewayWsInflightMax: 2 }, cluster);
  const c = await connect(g.url);
  c.send(publish(1));
  c.send(publish(2));
  await waitFor("two sends waiting", () => cluster.calls.length === 2);
  c.send(publish(3));
  const refused = await c.next(1);
  expect(refused.map((f) => [f.type, f.id, f.problem?.status])).toEqual([["error", 3, 429]]);
  release();
  const all = await c.next(3);
  expect(
    all
      .slice(1)
      .map((f) => [f.type, f.id])
      .sort(),
  ).toEqual([
    ["ack", 1],
    ["ack", 2],
  ]);
});

test("WS: a frame over gatewayRequestBytesMax closes the socket with 1009", async () => {
  const { g, cluster } = await serve({ gatewayRequestBytesMax: 4096 });
  const c = await connect(g.url);
  c.send(publish(1, "x".repeat(8192)));
  await waitFor("closed", () => c.closed());
  expect({ code: c.closed()?.code, sent: cluster.sent.length }).toEqual({ code: 1009, sent: 0 });
});

test("WS: a socket that stops reading is closed once its queued answers pass wsBufferedBytesMax", async () => {
  const { g } = await serve({ gatewayWsBufferedBytesMax: 64 * 1024 });
  const sock = await rawWebSocket(g.port);
  // Stop reading: the kernel buffers fill, then Bun's queue towards this socket grows past the limit.
  sock.pause();
  const ping = maskedTextFrame(JSON.stringify({ type: "ping", id: "i".repeat(100) }));
  const open = async () => ((await g.deps.metrics.wsSockets.get()).values[0]?.value ?? 0) > 0;
  expect(await open()).toBe(true);
  // Bounded: at most 100 MB of pings, and the loop ends as soon as the server dropped the socket.
  for (let round = 0; round < 4000 && (await open()); round++) {
    const burst = Buffer.concat(Array(100).fill(ping));
    if (!sock.write(burst)) await new Promise((r) => setTimeout(r, 1));
    await new Promise((r) => setImmediate(r));
  }
  await waitFor("the server closed the socket", async () => !(await open()));
  sock.destroy();
});

test("a long poll outlives Bun's default 10 s idle timeout setting (idleTimeout follows pullWaitMsMax)", async () => {
  const cluster = new FakeCluster();
  cluster.read = async (r) => {
    cluster.calls.push({ method: "read", args: [r] });
    await new Promise((res) => setTimeout(res, 150));
    return { ...cluster.page, messages: [] };
  };
  const { g } = await serve({}, cluster);
  const r = await fetch(`${g.url}/v1/topics/orders/queues/0/messages?waitMs=30000`);
  expect([r.status, ((await r.json()) as { messages: unknown[] }).messages]).toEqual([200, []]);
});

test("API keys from a file: the WebSocket needs a key (header or access_token) and each publish is checked against its scopes", async () => {
  const dir = await mkdtemp(join(tmpdir(), "rocketbun-gw-keys-"));
  try {
    const file = join(dir, "keys.json");
    await writeFile(
      file,
      JSON.stringify({ keys: [{ name: "p", key: "p-key-0123456789abcdef", scopes: ["produce:orders"] }] }),
    );
    const { g, cluster } = await serve({ gatewayApiKeysFile: file });
    const refused = await fetch(`${g.url}/v1/ws`, {
      headers: { upgrade: "websocket", connection: "upgrade" },
    });
    expect(refused.status).toBe(401);
    const c = await connect(`${g.url}`, "?access_token=p-key-0123456789abcdef");
    c.send(publish(1));
    c.send({ type: "publish", id: 2, topic: "audit", message: { body: "x" } });
    const got = await c.next(2);
    expect(got.map((f) => [f.type, f.id, f.problem?.status]).sort()).toEqual([
      ["ack", 1, undefined],
      ["error", 2, 403],
    ]);
    expect(cluster.sent.map((s) => s.topic)).toEqual(["orders"]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("a keys file that does not hold together stops the start with the file named", async () => {
  const dir = await mkdtemp(join(tmpdir(), "rocketbun-gw-keys-"));
  try {
    const file = join(dir, "keys.json");
    await writeFile(file, JSON.stringify({ keys: [{ name: "p", key: "short", scopes: ["fly:*"] }] }));
    const error = await serve({ gatewayApiKeysFile: file }).then(
      () => "started",
      (e: Error) => e.message,
    );
    expect(error).toBe(
      `gatewayApiKeysFile ${file}: keys.0.key: a key needs at least 16 characters; keys.0.scopes.0: a scope is action:pattern, e.g. produce:orders-*`,
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("listening beyond loopback without API keys logs one loud warning; loopback or keys log none", async () => {
  const lines: string[] = [];
  const log = pino({ level: "warn" }, { write: (line: string) => lines.push(JSON.parse(line).msg) });
  const start = async (bind: string) => {
    const config = {
      ...defaultsOf(gatewayConfig),
      gatewayPort: 0,
      gatewayBindAddress: bind,
      gatewayHandleSecret: "shared",
    };
    running.push(await startGateway(config, { log, cluster: new FakeCluster() }));
  };
  await start("127.0.0.1");
  expect(lines).toEqual([]);
  await start("0.0.0.0");
  expect(lines.length).toBe(1);
  expect(lines[0]).toStartWith("GATEWAY IS OPEN: it listens on 0.0.0.0:");
});

test("isLoopbackHost: loopback forms only", () => {
  const hosts = [
    "127.0.0.1",
    "127.1.2.3",
    "::1",
    "[::1]",
    "localhost",
    "::ffff:127.0.0.1",
    "0.0.0.0",
    "::",
    "10.0.0.1",
    "example.com",
  ];
  expect(hosts.map((h) => [h, isLoopbackHost(h)])).toEqual([
    ["127.0.0.1", true],
    ["127.1.2.3", true],
    ["::1", true],
    ["[::1]", true],
    ["localhost", true],
    ["::ffff:127.0.0.1", true],
    ["0.0.0.0", false],
    ["::", false],
    ["10.0.0.1", false],
    ["example.com", false],
  ]);
});

test("without gatewayHandleSecret the gateway warns that its receipt handles die with the process", async () => {
  const lines: string[] = [];
  const log = pino({ level: "warn" }, { write: (line: string) => lines.push(JSON.parse(line).msg) });
  const config = { ...defaultsOf(gatewayConfig), gatewayPort: 0, gatewayBindAddress: "127.0.0.1" };
  running.push(await startGateway(config, { log, cluster: new FakeCluster() }));
  expect(lines.length).toBe(1);
  expect(lines[0]).toStartWith(
    "gatewayHandleSecret is not set: receipt handles are signed with a random key",
  );
});
