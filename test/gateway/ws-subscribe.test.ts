/**
 * WebSocket subscriptions on a real Bun.serve (loopback, port 0) with a scripted cluster: messages
 * pushed while credit lasts and after a top-up; ack / nack / extend frames by handle with one
 * result per handle; refusals as error frames on an open socket; a socket that stops reading stops
 * getting messages without being closed, and gets them again once it reads.
 */
import { afterEach, expect, test } from "bun:test";
import WebSocket from "ws";
import type { LeasedMessage } from "../../gateway/cluster.ts";
import { type RunningGateway, startGateway } from "../../gateway/server.ts";
import { gatewayConfig } from "../../src/config/gateway-config.ts";
import { defaultsOf } from "../../src/config/schema.ts";
import { ResponseCode } from "../../src/remoting/index.ts";
import { waitFor } from "../support/rocketbun-child.ts";
import { silent } from "../support/silent.ts";
import { maskedTextFrame, rawWebSocket } from "./raw-ws.ts";
import { brokerError, brokerHandle, FakeCluster, message } from "./support.ts";

const running: RunningGateway[] = [];
const sockets: { terminate(): void }[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.terminate();
  for (const g of running.splice(0)) await g.stop();
});

async function serve(over: Record<string, number | string> = {}, cluster = new FakeCluster()) {
  const config = {
    ...defaultsOf(gatewayConfig),
    gatewayPort: 0,
    gatewayBindAddress: "127.0.0.1",
    gatewayHandleSecret: "ws-test",
    ...over,
  };
  cluster.leased = []; // nothing until a test offers
  const g = await startGateway(config, { log: silent, cluster });
  running.push(g);
  return { g, cluster };
}

interface Frame {
  type: string;
  id?: string | number;
  subscription?: string;
  credit?: number;
  message?: { body: string; receiptHandle: string; queueOffset: number };
  results?: { ok: boolean; receiptHandle?: string; problem?: { status: number } }[];
  problem?: { status: number; type: string; detail: string };
}

async function connect(url: string) {
  const ws = new WebSocket(`${url.replace("http", "ws")}/v1/ws`);
  sockets.push(ws);
  const frames: Frame[] = [];
  ws.on("message", (data) => frames.push(JSON.parse(String(data)) as Frame));
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
  });
  await waitFor("hello", () => frames.length >= 1);
  frames.shift();
  return {
    ws,
    frames,
    send: (f: unknown) => ws.send(JSON.stringify(f)),
    /** Waits for a frame matching `pick`, removes it and every frame before it, and returns it. */
    async take(pick: (f: Frame) => boolean, what: string): Promise<Frame> {
      const at = await waitFor(what, () => {
        const i = frames.findIndex(pick);
        return i >= 0 ? i + 1 : 0;
      });
      return frames.splice(0, at)[at - 1]!;
    },
  };
}

const leased = (offset: number, body = `m${offset}`): LeasedMessage => ({
  message: message({ queueOffset: offset, body: new TextEncoder().encode(body) }),
  brokerHandle: brokerHandle(offset),
});

test("messages are pushed while credit lasts, then again after a credit top-up", async () => {
  const { g, cluster } = await serve();
  const c = await connect(g.url);
  c.send({ type: "subscribe", id: 1, group: "billing", topic: "orders", credit: 2, invisibleMs: 5000 });
  const sub = await c.take((f) => f.type === "subscribed", "subscribed");
  expect(sub).toEqual({ type: "subscribed", id: 1, subscription: "s1", credit: 2 });
  cluster.offer([leased(1), leased(2), leased(3)]);
  const m1 = await c.take((f) => f.type === "message", "first message");
  const m2 = await c.take((f) => f.type === "message", "second message");
  expect([m1.message!.body, m2.message!.body, m1.subscription]).toEqual(["m1", "m2", "s1"]);
  expect(
    cluster.calls
      .filter((x) => x.method === "receive")
      .map((x) => (x.args[0] as { invisibleMs: number }).invisibleMs),
  ).toContain(5000);
  // Out of credit: m3 waits in the cluster until the client tops up.
  expect(cluster.leased.length).toBe(1);
  c.send({ type: "credit", id: 2, subscription: "s1", credit: 5 });
  expect(await c.take((f) => f.type === "credited", "credited")).toEqual({
    type: "credited",
    id: 2,
    subscription: "s1",
    credit: 5,
  });
  const m3 = await c.take((f) => f.type === "message", "third message");
  expect(m3.message!.body).toBe("m3");
  c.send({ type: "unsubscribe", id: 3, subscription: "s1" });
  expect(await c.take((f) => f.type === "unsubscribed", "unsubscribed")).toEqual({
    type: "unsubscribed",
    id: 3,
    subscription: "s1",
  });
  expect((await g.deps.metrics.wsSubscriptions.get()).values[0]?.value).toBe(0);
});

test("ack, nack and extend frames settle by handle with one result per handle", async () => {
  const { g, cluster } = await serve();
  const c = await connect(g.url);
  c.send({ type: "subscribe", group: "billing", topic: "orders", credit: 3 });
  cluster.offer([leased(1), leased(2), leased(3)]);
  const handles: string[] = [];
  for (let i = 0; i < 3; i++)
    handles.push((await c.take((f) => f.type === "message", "message")).message!.receiptHandle);
  c.send({ type: "ack", id: "a", receiptHandles: [handles[0]] });
  c.send({ type: "nack", id: "n", receiptHandle: handles[1], delayMs: 1500 });
  c.send({ type: "extend", id: "e", receiptHandle: handles[2], invisibleMs: 120_000 });
  const results = new Map<unknown, Frame>();
  for (let i = 0; i < 3; i++) {
    const r = await c.take((f) => f.type === "result", "result");
    results.set(r.id, r);
  }
  expect(results.get("a")!.results).toEqual([{ ok: true }]);
  expect(results.get("n")!.results).toEqual([{ ok: true }]);
  const extended = results.get("e")!.results![0]!;
  expect([extended.ok, typeof extended.receiptHandle, extended.receiptHandle === handles[2]]).toEqual([
    true,
    "string",
    false,
  ]);
  expect(cluster.acked.map((h) => h.split(" ")[0])).toEqual(["1"]);
  expect(cluster.changed.map((x) => [x.brokerHandle.split(" ")[0], x.invisibleMs])).toEqual([
    ["2", 1500],
    ["3", 120_000],
  ]);
});

test("refusals are error frames and the socket stays open: forged handle, unknown subscription, too many subscriptions, bad credit", async () => {
  const { g } = await serve({ gatewayWsSubscriptionsMax: 1 });
  const c = await connect(g.url);
  c.send({ type: "ack", id: 1, receiptHandle: "v1.forged.handle" });
  c.send({ type: "credit", id: 2, subscription: "s9", credit: 1 });
  c.send({ type: "subscribe", id: 3, group: "billing", topic: "orders", credit: 0 });
  c.send({ type: "subscribe", id: 4, group: "billing", topic: "orders", credit: 1 });
  c.send({ type: "subscribe", id: 5, group: "billing", topic: "orders", credit: 100_000 });
  c.send({ type: "ack", id: 6 });
  c.send({ type: "ping", id: 7 });
  const seen = [];
  for (let i = 0; i < 7; i++) {
    const f = await c.take((x) => x.type !== "message", "answer");
    seen.push([f.type, f.id, f.problem?.status ?? null]);
  }
  expect(seen).toEqual([
    ["error", 1, 400],
    ["error", 2, 404],
    ["subscribed", 3, null],
    ["error", 4, 429],
    ["error", 5, 400],
    ["error", 6, 400],
    ["pong", 7, null],
  ]);
  expect(c.ws.readyState).toBe(WebSocket.OPEN);
});

test("a subscription whose POP is refused for good gets an error frame and ends", async () => {
  const cluster = new FakeCluster();
  const { g } = await serve({}, cluster);
  const c = await connect(g.url);
  cluster.receive = async () => {
    throw brokerError(ResponseCode.TOPIC_NOT_EXIST, "no topic");
  };
  c.send({ type: "subscribe", id: 1, group: "billing", topic: "orders", credit: 1 });
  const err = await c.take((f) => f.type === "error", "error");
  expect([err.subscription, err.problem?.status]).toEqual(["s1", 404]);
  await waitFor(
    "subscription removed",
    async () => (await g.deps.metrics.wsSubscriptions.get()).values[0]?.value === 0,
  );
});

test("a socket that stops reading stops getting messages and stays open; reading again resumes the pushes", async () => {
  const cluster = new FakeCluster();
  const body = "x".repeat(8 * 1024);
  let offset = 0;
  cluster.source = (max) => Array.from({ length: max }, () => leased(offset++, body));
  const { g } = await serve({ gatewayWsBufferedBytesMax: 64 * 1024, gatewayWsCreditMax: 65_536 }, cluster);
  const sock = await rawWebSocket(g.port);
  sockets.push({ terminate: () => sock.destroy() });
  sock.pause();
  sock.write(maskedTextFrame('{"type":"subscribe","group":"billing","topic":"orders","credit":65536}'));
  const pauses = async () => (await g.deps.metrics.wsBackpressurePauses.get()).values[0]?.value ?? 0;
  await waitFor("the subscription paused", async () => (await pauses()) > 0);
  const receives = () => cluster.calls.filter((x) => x.method === "receive").length;
  const whilePaused = receives();
  // The server serves other requests meanwhile; the paused subscription makes no POP.
  for (let i = 0; i < 5; i++) expect((await fetch(`${g.url}/healthz`)).status).toBe(200);
  expect(receives()).toBe(whilePaused);
  expect((await g.deps.metrics.wsSockets.get()).values[0]?.value).toBe(1);
  sock.on("data", () => {});
  sock.resume();
  await waitFor("pushes resumed", () => receives() > whilePaused);
});
