/**
 * ali-ons against `rocketbun start`: a listener that throws gets its message back after the retry
 * level's delay (ali-ons sends CONSUMER_SEND_MSG_BACK itself), with reconsumeTimes counting up,
 * its own topic and the first delivery's id as originMessageId; one that always throws ends in
 * %DLQ%<group>; a message sent with delayTimeLevel waits that level while others go at once.
 * A message given a start deliver time (ali-ons' `__STARTDELIVERTIME`) arrives at that time.
 * Levels are seconds here (broker.conf messageDelayLevel) so the tests run in seconds.
 */
import { expect, test } from "bun:test";
import { Consumer as AliConsumer, Message as AliMessage, Producer as AliProducer } from "ali-ons";
import { RemotingClient } from "../../src/remoting/index.ts";
import { ALI_ONS_LOCAL } from "../support/ali-ons.ts";
import { createRoutedTopic, silent, startRocketbun, waitFor } from "./harness.ts";
import { waitRecords } from "./redelivery-support.ts";

/** Level 2 and level 3 (a first retry) wait 2 s; every other level 1 s. */
const messageDelayLevel = ["1s", "2s", "2s", ...Array(15).fill("1s")].join(" ");

interface AliMsg {
  topic: string;
  body: Buffer;
  msgId: string;
  reconsumeTimes: number;
  originMessageId?: string;
  delayTimeLevel: number;
}

interface Seen {
  body: string;
  topic: string;
  msgId: string;
  reconsumeTimes: number;
  originMessageId: string | undefined;
  at: number;
}

async function producer(namesrvAddr: string) {
  const p = new AliProducer({ ...ALI_ONS_LOCAL, nameSrv: namesrvAddr, producerGroup: "IT_ALI_RETRY_PG" });
  await p.ready();
  return p;
}

/** A consumer whose listener records each delivery, then lets `verdict` decide: throw or not. */
async function consumer(namesrvAddr: string, group: string, topic: string, verdict: (m: Seen) => boolean) {
  const seen: Seen[] = [];
  const c = new AliConsumer({
    ...ALI_ONS_LOCAL,
    nameSrv: namesrvAddr,
    consumerGroup: group,
    consumeFromWhere: "CONSUME_FROM_FIRST_OFFSET",
    brokerSuspendMaxTimeMillis: 1000,
    persistConsumerOffsetInterval: 200,
    rebalanceInterval: 500,
    instanceName: group,
    maxReconsumeTimes: 2,
  });
  c.on("error", () => {}); // the listener's throws are reported here; they are the point
  c.subscribe(topic, "*", async (msg: AliMsg) => {
    const m = {
      body: msg.body.toString(),
      topic: msg.topic,
      msgId: msg.msgId,
      reconsumeTimes: msg.reconsumeTimes,
      originMessageId: msg.originMessageId,
      at: Date.now(),
    };
    seen.push(m);
    if (!verdict(m)) throw new Error(`failing ${m.body} on purpose`);
  });
  await c.ready();
  return { c, seen };
}

test("a listener that throws once gets the message back after the first retry level, with reconsumeTimes 1, its topic and its first id", async () => {
  await using rb = await startRocketbun({ brokerConf: { messageDelayLevel } });
  await createRoutedTopic(rb, "AliRetry", 2);
  const p = await producer(rb.namesrvAddr);
  const { c, seen } = await consumer(rb.namesrvAddr, "ALI_RETRY", "AliRetry", (m) => m.reconsumeTimes > 0);
  try {
    await p.send(new AliMessage("AliRetry", "TagR", Buffer.from("retry me ✓")));
    await waitFor("the redelivery", () => seen.length >= 2, 30_000);
    const [first, again] = seen;
    expect({
      first: { body: first!.body, topic: first!.topic, reconsumeTimes: first!.reconsumeTimes },
      again: {
        body: again!.body,
        topic: again!.topic,
        reconsumeTimes: again!.reconsumeTimes,
        originMessageId: again!.originMessageId,
      },
      waitedTheLevel: again!.at - first!.at >= 2000,
    }).toEqual({
      first: { body: "retry me ✓", topic: "AliRetry", reconsumeTimes: 0 },
      again: { body: "retry me ✓", topic: "AliRetry", reconsumeTimes: 1, originMessageId: first!.msgId },
      waitedTheLevel: true,
    });
  } finally {
    await c.close();
    await p.close();
  }
});

test("a message sent with delayTimeLevel 2 arrives after that level's delay, the others at once", async () => {
  await using rb = await startRocketbun({ brokerConf: { messageDelayLevel } });
  await createRoutedTopic(rb, "AliDelay", 2);
  const p = await producer(rb.namesrvAddr);
  const { c, seen } = await consumer(rb.namesrvAddr, "ALI_DELAY", "AliDelay", () => true);
  try {
    const delayed = new AliMessage("AliDelay", "TagD", Buffer.from("later"));
    delayed.delayTimeLevel = 2;
    const sentAt = Date.now();
    await p.send(delayed);
    await p.send(new AliMessage("AliDelay", "TagD", Buffer.from("now1")));
    await p.send(new AliMessage("AliDelay", "TagD", Buffer.from("now2")));
    await waitFor("the plain messages", () => seen.length >= 2, 30_000);
    const early = seen.map((m) => m.body).sort();
    await waitFor("the delayed message", () => seen.length >= 3, 30_000);
    const later = seen.find((m) => m.body === "later");
    expect({ early, later: later?.topic, waited: later!.at - sentAt >= 2000 }).toEqual({
      early: ["now1", "now2"],
      later: "AliDelay",
      waited: true,
    });
  } finally {
    await c.close();
    await p.close();
  }
});

test("a listener that always throws sees reconsumeTimes 0, 1, 2, then the message rests in %DLQ%<group>", async () => {
  await using rb = await startRocketbun({ brokerConf: { messageDelayLevel } });
  await createRoutedTopic(rb, "AliDead", 1);
  const p = await producer(rb.namesrvAddr);
  const { c, seen } = await consumer(rb.namesrvAddr, "ALI_DEAD", "AliDead", () => false);
  const raw = new RemotingClient({ name: "it-dlq", log: silent });
  try {
    await p.send(new AliMessage("AliDead", "TagX", Buffer.from("doomed")));
    const [dead] = await waitRecords(raw, rb.brokerAddr, "%DLQ%ALI_DEAD", 0, 1, 30_000);
    expect({
      deliveries: seen.map((m) => m.reconsumeTimes),
      dead: { body: new TextDecoder().decode(dead!.body), reconsumeTimes: dead!.reconsumeTimes },
      originMessageId: dead!.properties.get("ORIGIN_MESSAGE_ID"),
    }).toEqual({
      deliveries: [0, 1, 2],
      dead: { body: "doomed", reconsumeTimes: 3 },
      originMessageId: seen[0]!.msgId,
    });
  } finally {
    await raw.shutdown();
    await c.close();
    await p.close();
  }
});

test("a message with setStartDeliverTime arrives at that time, never before", async () => {
  await using rb = await startRocketbun({ brokerConf: { messageDelayLevel } });
  await createRoutedTopic(rb, "AliTimer", 2);
  const p = await producer(rb.namesrvAddr);
  const { c, seen } = await consumer(rb.namesrvAddr, "ALI_TIMER", "AliTimer", () => true);
  try {
    const at = Date.now() + 1500;
    const timed = new AliMessage("AliTimer", "TagT", Buffer.from("at its time"));
    timed.setStartDeliverTime(at);
    await p.send(timed);
    await p.send(new AliMessage("AliTimer", "TagT", Buffer.from("now")));
    await waitFor("both messages", () => seen.length >= 2, 30_000);
    expect(seen.map((m) => [m.body, m.body === "now" || m.at >= at])).toEqual([
      ["now", true],
      ["at its time", true],
    ]);
  } finally {
    await c.close();
    await p.close();
  }
});
