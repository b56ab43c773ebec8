/**
 * ali-ons Producer and PushConsumer against `rocketbun start` in a child process: tag filtering with
 * bodies, keys, tags and ids intact; offsets surviving a consumer restart and a server restart; two
 * consumers of one group splitting the queues; broadcast consumers each getting every message.
 */
import { expect, test } from "bun:test";
import { Consumer as AliConsumer, Message as AliMessage, Producer as AliProducer } from "ali-ons";
import { ALI_ONS_LOCAL } from "../support/ali-ons.ts";
import { createRoutedTopic, startRocketbun, waitFor } from "./harness.ts";

interface AliMsg {
  topic: string;
  tags: string;
  keys: string;
  body: Buffer;
  msgId: string;
  queueId: number;
  queueOffset: number;
}

interface Got {
  body: string;
  tags: string;
  keys: string;
  msgId: string;
}

async function producer(namesrvAddr: string) {
  const p = new AliProducer({
    ...ALI_ONS_LOCAL,
    nameSrv: namesrvAddr,
    producerGroup: "IT_ALI_PG",
  });
  await p.ready();
  return p;
}

/** Sends `n` messages `${prefix}${i}` with tags from `tags` in turn and two keys each. */
interface AliProducerLike {
  send(msg: unknown): Promise<unknown>;
}

async function sendAll(
  p: AliProducerLike,
  topic: string,
  prefix: string,
  n: number,
  tags = ["TagA"],
): Promise<Got[]> {
  const sent: Got[] = [];
  for (let i = 0; i < n; i++) {
    const tag = tags[i % tags.length]!;
    const msg = new AliMessage(topic, tag, Buffer.from(`${prefix}${i} ✓`));
    msg.keys = [`${prefix}k${i}`, `${prefix}kk${i}`];
    const r = (await p.send(msg)) as { msgId: string; sendStatus: string };
    if (r.sendStatus !== "SEND_OK") throw new Error(`send ${prefix}${i}: ${r.sendStatus}`);
    sent.push({ body: `${prefix}${i} ✓`, tags: tag, keys: `${prefix}k${i} ${prefix}kk${i}`, msgId: r.msgId });
  }
  return sent;
}

interface ConsumerSpec {
  namesrvAddr: string;
  group: string;
  topic: string;
  subExpression?: string;
  instanceName?: string;
  isBroadcast?: boolean;
}

async function consumer(spec: ConsumerSpec) {
  const got: Got[] = [];
  const raw: AliMsg[] = [];
  const c = new AliConsumer({
    ...ALI_ONS_LOCAL,
    nameSrv: spec.namesrvAddr,
    consumerGroup: spec.group,
    consumeFromWhere: "CONSUME_FROM_FIRST_OFFSET",
    brokerSuspendMaxTimeMillis: 1000,
    persistConsumerOffsetInterval: 200,
    // The periodic rebalance bounds how long a split waits if a NOTIFY_CONSUMER_IDS_CHANGED
    // arrives while ali-ons is already rebalancing (it then skips the notice).
    rebalanceInterval: 500,
    // ali-ons shares one client per clientId (ip@instanceName) across the process: one per test.
    instanceName: spec.instanceName ?? spec.group,
    isBroadcast: spec.isBroadcast ?? false,
  });
  c.subscribe(spec.topic, spec.subExpression ?? "*", async (msg: AliMsg) => {
    raw.push(msg);
    got.push({ body: msg.body.toString(), tags: msg.tags, keys: msg.keys, msgId: msg.msgId });
  });
  await c.ready();
  return { c, got, raw };
}

const byBody = (a: Got, b: Got) => a.body.localeCompare(b.body);

test("a tag-filtered ali-ons subscription gets exactly the matching messages with bodies, keys, tags and ids intact", async () => {
  await using rb = await startRocketbun();
  await createRoutedTopic(rb, "AliTags", 4);
  const p = await producer(rb.namesrvAddr);
  const { c, got } = await consumer({
    namesrvAddr: rb.namesrvAddr,
    group: "ALI_TAGS",
    topic: "AliTags",
    subExpression: "TagA || TagC",
  });
  try {
    const sent = await sendAll(p, "AliTags", "m", 12, ["TagA", "TagB", "TagC"]);
    const wanted = sent.filter((s) => s.tags !== "TagB");
    await waitFor("the TagA and TagC messages", () => got.length >= wanted.length);
    // One more round trip of everything, so a wrongly delivered TagB would have arrived by now.
    const marker = await sendAll(p, "AliTags", "z", 4, ["TagA"]);
    await waitFor("the markers", () => got.length >= wanted.length + marker.length);
    expect(got.sort(byBody)).toEqual([...wanted, ...marker].sort(byBody));
  } finally {
    await c.close();
    await p.close();
  }
});

test("committed offsets survive a consumer restart and a server restart", async () => {
  await using rb = await startRocketbun();
  await createRoutedTopic(rb, "AliOff", 4);
  const group = "ALI_OFF";
  let p = await producer(rb.namesrvAddr);
  const rounds: Got[][] = [];
  const sentRounds: Got[][] = [];
  const consumeRound = async (prefix: string) => {
    const { c, got } = await consumer({ namesrvAddr: rb.namesrvAddr, group, topic: "AliOff" });
    const sent = await sendAll(p, "AliOff", prefix, 8);
    sentRounds.push(sent);
    await waitFor(`round ${prefix}`, () => got.length >= sent.length);
    await c.close(); // persists the consumed offsets to the broker
    rounds.push(got.sort(byBody));
  };
  try {
    await consumeRound("a");
    await consumeRound("b"); // consumer restarted: resumes after round a
    await p.close();
    await rb.restart();
    p = await producer(rb.namesrvAddr);
    await consumeRound("c"); // server restarted: resumes after round b
  } finally {
    await p.close();
  }
  expect(rounds).toEqual(sentRounds.map((r) => [...r].sort(byBody)));
});

test("two ali-ons consumers of one group split the queues and together get every message once", async () => {
  await using rb = await startRocketbun();
  await createRoutedTopic(rb, "AliSplit", 8);
  const p = await producer(rb.namesrvAddr);
  const spec = { namesrvAddr: rb.namesrvAddr, group: "ALI_SPLIT", topic: "AliSplit" };
  const one = await consumer({ ...spec, instanceName: `${spec.group}_1` });
  const two = await consumer({ ...spec, instanceName: `${spec.group}_2` });
  const owned = (x: { c: { processQueueTable: Map<string, unknown> } }) =>
    [...x.c.processQueueTable.keys()].filter((k) => k.includes("AliSplit") && !k.includes("%RETRY%")).length;
  try {
    await waitFor("a four-four split", () => owned(one) === 4 && owned(two) === 4);
    const sent = await sendAll(p, "AliSplit", "s", 40);
    await waitFor("every message", () => one.got.length + two.got.length >= sent.length);
    const queuesOf = (raw: AliMsg[]) => new Set(raw.map((m) => m.queueId));
    const overlap = [...queuesOf(one.raw)].filter((q) => queuesOf(two.raw).has(q));
    expect({
      all: [...one.got, ...two.got].sort(byBody),
      oneGotSome: one.got.length > 0,
      twoGotSome: two.got.length > 0,
      overlap,
    }).toEqual({ all: sent.sort(byBody), oneGotSome: true, twoGotSome: true, overlap: [] });
  } finally {
    await one.c.close();
    await two.c.close();
    await p.close();
  }
});

test("broadcast consumers each get every message", async () => {
  await using rb = await startRocketbun();
  await createRoutedTopic(rb, "AliCast", 4);
  const p = await producer(rb.namesrvAddr);
  const spec = { namesrvAddr: rb.namesrvAddr, group: "ALI_CAST", topic: "AliCast", isBroadcast: true };
  const one = await consumer({ ...spec, instanceName: `${spec.group}_1` });
  const two = await consumer({ ...spec, instanceName: `${spec.group}_2` });
  try {
    const sent = await sendAll(p, "AliCast", "b", 12);
    await waitFor(
      "both got every message",
      () => one.got.length >= sent.length && two.got.length >= sent.length,
    );
    expect({ one: one.got.sort(byBody), two: two.got.sort(byBody) }).toEqual({
      one: sent.sort(byBody),
      two: [...sent].sort(byBody),
    });
  } finally {
    await one.c.close();
    await two.c.close();
    await p.close();
  }
});
