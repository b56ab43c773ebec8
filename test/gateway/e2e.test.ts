/**
 * The gateway end to end against `rocketbun start` in a child process (the gateway reaches broker
 * and NameServer in process): HTTP produce → native and ali-ons consumers, native produce → HTTP
 * replay and lookups, long polling woken by a send, tags, keys, properties and binary bodies
 * byte for byte, group lag; and `rocketbun gateway` alone over TCP in front of the same cluster.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Consumer as AliConsumer } from "ali-ons";
import { createProducer, createPushConsumer, type MessageExt } from "../../src/client/index.ts";
import { ALI_ONS_LOCAL } from "../support/ali-ons.ts";
import {
  freePort,
  type StartedRocketbun,
  startRocketbun,
  waitFor,
  waitForLine,
} from "../support/rocketbun-child.ts";
import { silent } from "../support/silent.ts";

let rb: StartedRocketbun;
let gw: string;

const post = (path: string, body: unknown) =>
  fetch(`${gw}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });

async function createTopic(topic: string, queues: number): Promise<void> {
  const r = await post("/v1/topics", { topic, queues });
  expect(r.status).toBe(201);
  await waitFor(
    `route of ${topic}`,
    async () => (await fetch(`${gw}/v1/topics/${topic}/route`)).status === 200,
  );
}

beforeAll(async () => {
  rb = await startRocketbun({ name: "rocketbun-gateway-e2e" });
  gw = rb.gatewayUrl;
  await waitFor("gateway ready", () =>
    fetch(`${gw}/readyz`).then(
      (r) => r.ok,
      () => false,
    ),
  );
});

afterAll(async () => {
  await rb.stop();
});

/** A binary body that is not UTF-8, with every byte value. */
const BINARY = Uint8Array.from({ length: 256 }, (_, i) => 255 - i);

test("HTTP produce → native push consumer: tags, keys, properties and a binary body byte for byte", async () => {
  await createTopic("GwToNative", 4);
  const got: MessageExt[] = [];
  const consumer = await createPushConsumer({
    namesrvAddr: rb.namesrvAddr,
    group: "GW_NATIVE",
    subscriptions: { GwToNative: "*" },
    consumeFromWhere: "CONSUME_FROM_FIRST_OFFSET",
    log: silent,
    onMessage: (msgs) => {
      got.push(...msgs);
    },
  });
  try {
    const text = await post("/v1/topics/GwToNative/messages", {
      body: "héllo ✓",
      tags: "TagA",
      keys: ["k1", "k2"],
      properties: { region: "eu", "x-trace": "abc" },
    });
    const bin = await fetch(`${gw}/v1/topics/GwToNative/messages`, {
      method: "POST",
      headers: {
        "content-type": "application/octet-stream",
        "mq-tags": "Bin",
        "mq-keys": "kb",
        "mq-properties": "a=1",
      },
      body: BINARY,
    });
    const ids = [
      ((await text.json()) as { msgId: string }).msgId,
      ((await bin.json()) as { msgId: string }).msgId,
    ];
    expect([text.status, bin.status]).toEqual([201, 201]);
    await waitFor("both messages", () => got.length >= 2);
    const byId = new Map(got.map((m) => [m.msgId, m]));
    const [t, b] = ids.map((id) => byId.get(id)!);
    expect({
      text: [
        new TextDecoder().decode(t!.body),
        t!.tags,
        t!.keys,
        t!.properties.region,
        t!.properties["x-trace"],
      ],
      bin: [Buffer.from(b!.body).equals(Buffer.from(BINARY)), b!.tags, b!.keys, b!.properties.a],
    }).toEqual({ text: ["héllo ✓", "TagA", ["k1", "k2"], "eu", "abc"], bin: [true, "Bin", ["kb"], "1"] });
    // The group's lag per queue, seen through the gateway once the consumer committed.
    await waitFor("lag 0", async () => {
      const lag = (await (await fetch(`${gw}/v1/groups/GW_NATIVE/lag?topic=GwToNative`)).json()) as {
        totalLag: number;
        queues: unknown[];
      };
      return lag.queues.length === 4 && lag.totalLag === 0;
    });
  } finally {
    await consumer.shutdown();
  }
});

test("HTTP produce → ali-ons consumer with a tag filter", async () => {
  await createTopic("GwToAli", 4);
  const got: { body: string; tags: string; keys: string; msgId: string }[] = [];
  const c = new AliConsumer({
    ...ALI_ONS_LOCAL,
    nameSrv: rb.namesrvAddr,
    consumerGroup: "GW_ALI",
    consumeFromWhere: "CONSUME_FROM_FIRST_OFFSET",
    brokerSuspendMaxTimeMillis: 1000,
    persistConsumerOffsetInterval: 200,
    instanceName: "GW_ALI",
  });
  c.subscribe(
    "GwToAli",
    "TagA",
    async (msg: { body: Buffer; tags: string; keys: string; properties: Record<string, string> }) => {
      // ali-ons' msgId is the broker's offset id; the id the gateway answered is UNIQ_KEY.
      got.push({
        body: msg.body.toString(),
        tags: msg.tags,
        keys: msg.keys,
        msgId: msg.properties.UNIQ_KEY ?? "",
      });
    },
  );
  await c.ready();
  try {
    const r = await post("/v1/topics/GwToAli/messages/batch", {
      messages: [
        { body: "a1", tags: "TagA", keys: "ka" },
        { body: "b1", tags: "TagB" },
        { body: "a2", tags: "TagA", keys: ["kx", "ky"] },
      ],
    });
    const out = (await r.json()) as { succeeded: number; results: { result: { msgId: string } }[] };
    expect(out.succeeded).toBe(3);
    await waitFor("the TagA messages", () => got.length >= 2);
    expect(got.sort((x, y) => x.body.localeCompare(y.body))).toEqual([
      { body: "a1", tags: "TagA", keys: "ka", msgId: out.results[0]!.result.msgId },
      { body: "a2", tags: "TagA", keys: "kx ky", msgId: out.results[2]!.result.msgId },
    ]);
  } finally {
    await c.close();
  }
});

interface Page {
  status: string;
  nextOffset: number;
  messages: {
    msgId: string;
    body: string;
    bodyEncoding: string;
    tags?: string;
    keys: string[];
    properties: Record<string, string>;
  }[];
}

test("native produce → HTTP replay by offset, from a timestamp, and lookups by id and key", async () => {
  await createTopic("NativeToGw", 1);
  const producer = await createProducer({ namesrvAddr: rb.namesrvAddr, group: "GW_NATIVE_P", log: silent });
  try {
    const before = Date.now() - 1;
    const sent = [];
    for (let i = 0; i < 3; i++)
      sent.push(
        await producer.send({
          topic: "NativeToGw",
          body: i === 1 ? BINARY : `m${i}`,
          tags: `T${i}`,
          keys: `key-${i}`,
          properties: { n: String(i) },
        }),
      );
    const page = (await (
      await fetch(`${gw}/v1/topics/NativeToGw/queues/0/messages?offset=0&max=10`)
    ).json()) as Page;
    expect(page.messages.map((m) => [m.msgId, m.bodyEncoding, m.tags, m.keys, m.properties])).toEqual(
      sent.map((s, i) => [s.msgId, i === 1 ? "base64" : "text", `T${i}`, [`key-${i}`], { n: String(i) }]),
    );
    expect(Buffer.from(page.messages[1]!.body, "base64").equals(Buffer.from(BINARY))).toBe(true);
    expect([page.status, page.nextOffset, page.messages[0]!.body]).toEqual(["FOUND", 3, "m0"]);
    const tagged = (await (
      await fetch(`${gw}/v1/topics/NativeToGw/queues/0/messages?tags=T2`)
    ).json()) as Page;
    expect(tagged.messages.map((m) => m.body)).toEqual(["m2"]);
    const offsets = (await (
      await fetch(`${gw}/v1/topics/NativeToGw/offsets?timestamp=${before}`)
    ).json()) as { offsets: { offset: number }[] };
    expect(offsets.offsets.map((o) => o.offset)).toEqual([0]);
    const byId = (await (await fetch(`${gw}/v1/topics/NativeToGw/messages/${sent[2]!.msgId}`)).json()) as {
      body: string;
    };
    expect(byId.body).toBe("m2");
    await waitFor("the key index", async () => {
      const r = (await (await fetch(`${gw}/v1/topics/NativeToGw/messages?key=key-0`)).json()) as {
        messages: { body: string }[];
      };
      return r.messages.length === 1 && r.messages[0]!.body === "m0";
    });
  } finally {
    await producer.shutdown();
  }
});

test("a long poll is answered as soon as a message arrives, well before its wait ends", async () => {
  await createTopic("GwLongPoll", 1);
  const producer = await createProducer({ namesrvAddr: rb.namesrvAddr, group: "GW_LP_P", log: silent });
  try {
    const started = Date.now();
    const read = fetch(`${gw}/v1/topics/GwLongPoll/queues/0/messages?offset=0&waitMs=20000`).then(
      (r) => r.json() as Promise<Page>,
    );
    // Sent once the pull is held: the read cannot have answered yet (nothing was stored before).
    await new Promise((r) => setTimeout(r, 300));
    await producer.send({ topic: "GwLongPoll", body: "woken" });
    const page = await read;
    expect({ bodies: page.messages.map((m) => m.body), early: Date.now() - started < 10_000 }).toEqual({
      bodies: ["woken"],
      early: true,
    });
  } finally {
    await producer.shutdown();
  }
});

test("a property name RocketMQ reserves is refused by the client as a 400 problem, and nothing is stored", async () => {
  await createTopic("GwReserved", 1);
  const r = await post("/v1/topics/GwReserved/messages", { body: "x", properties: { UNIQ_KEY: "forged" } });
  const p = (await r.json()) as { type: string; code: number; detail: string };
  const stats = (await (await fetch(`${gw}/v1/topics/GwReserved/stats`)).json()) as { messages: number };
  expect([r.status, p.type, p.code, p.detail, stats.messages]).toEqual([
    400,
    "urn:rocketbun:problem:invalid-parameter",
    29,
    "the property<UNIQ_KEY> is used by system, input another please",
    0,
  ]);
});

test("a topic nobody knows is a 404 problem on reads and routes", async () => {
  const read = await fetch(`${gw}/v1/topics/NoSuchTopicHere/queues/0/messages`);
  const route = await fetch(`${gw}/v1/topics/NoSuchTopicHere/route`);
  const bodies = [
    (await read.json()) as { type: string; code: number },
    (await route.json()) as { type: string; code: number },
  ];
  expect([read.status, route.status, ...bodies.map((b) => [b.type, b.code])]).toEqual([
    404,
    404,
    ["urn:rocketbun:problem:topic-not-found", 17],
    ["urn:rocketbun:problem:topic-not-found", 17],
  ]);
});

test("rocketbun gateway --namesrv alone, over TCP, in front of the same cluster", async () => {
  const port = freePort();
  const proc = Bun.spawn(
    [
      process.execPath,
      "src/cli/main.ts",
      "gateway",
      "--namesrv",
      rb.namesrvAddr,
      "--port",
      String(port),
      "--bind",
      "127.0.0.1",
    ],
    {
      cwd: `${import.meta.dir}/../..`,
      stdout: "pipe",
      stderr: "ignore",
      env: { ...process.env, ROCKETBUN_LOG_LEVEL: "warn" },
    },
  );
  try {
    await waitForLine(proc.stdout, /The gateway boot success/);
    const url = `http://127.0.0.1:${port}`;
    await waitFor("ready", () =>
      fetch(`${url}/readyz`).then(
        (r) => r.ok,
        () => false,
      ),
    );
    await createTopic("GwAlone", 1);
    const sent = await fetch(`${url}/v1/topics/GwAlone/messages`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ body: "over tcp" }),
    });
    expect(sent.status).toBe(201);
    const page = (await (await fetch(`${gw}/v1/topics/GwAlone/queues/0/messages`)).json()) as Page;
    expect(page.messages.map((m) => m.body)).toEqual(["over tcp"]);
  } finally {
    proc.kill("SIGTERM");
    expect(await proc.exited).toBe(0);
  }
});
