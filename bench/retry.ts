/**
 * Retry-path benchmark (issue #15): `rocketbun start` in a child process with every delay level
 * 1 s. A backlog of BENCH_RETRY_MSGS 1 KiB messages is consumed twice with the native push
 * consumer: by a group that accepts everything (plain consumption, the ceiling), and by a group
 * whose listener fails every message once. For the second, the figures are the send-back rate
 * (messages handed back with CONSUMER_SEND_MSG_BACK per second, until the schedule queue of the
 * first retry level holds them all) and the end-to-end rate (every message failed, redelivered
 * from %RETRY%<group> after its 1 s and accepted).
 * Run: bun bench/retry.ts   (BENCH_RETRY_MSGS=20000)
 */
import pino from "pino";
import { createProducer, createPushConsumer, type Message } from "../src/client/index.ts";
import { SCHEDULE_TOPIC } from "../src/protocol/topic-names.ts";
import { RemotingClient, RemotingCommand, RequestCode } from "../src/remoting/index.ts";
import { printTable, progressSteps } from "./lib/report.ts";
import { BODY, createTopic } from "./lib/requests.ts";
import { startServer } from "./lib/start-server.ts";

const MSGS = Number(process.env.BENCH_RETRY_MSGS ?? 20_000);
const QUEUES = 8;
const TOPIC = "BenchRetry";
/** CONSUMER_SEND_MSG_BACK's first retry waits level 3 (spec broker §9.2): SCHEDULE_TOPIC queue 2. */
const FIRST_RETRY_QUEUE = 2;
const log = pino({ level: "silent" });

const srv = await startServer({
  name: "rocketbun-bench-retry",
  brokerConf: { messageDelayLevel: Array(18).fill("1s").join(" ") },
});
const raw = new RemotingClient({ name: "bench-retry", log });
try {
  await createTopic(raw, srv.brokerAddr, TOPIC, QUEUES);
  const producer = await createProducer({ namesrvAddr: srv.namesrvAddr, log });
  const batch: Message[] = Array.from({ length: 32 }, () => ({ topic: TOPIC, body: BODY }));
  for (let sent = 0; sent < MSGS; sent += batch.length) {
    await producer.sendBatch(batch.slice(0, Math.min(batch.length, MSGS - sent)));
  }
  await producer.shutdown();

  const step = progressSteps("retry", 3);
  const plain = await consumeAll("BENCH_RETRY_PLAIN", () => true);
  step("plain consumption", plain.rate, "msgs/s");
  const scheduled = async () =>
    Number(
      (await raw.invoke(srv.brokerAddr, maxOffsetRequest(SCHEDULE_TOPIC, FIRST_RETRY_QUEUE))).extFields
        ?.offset ?? 0,
    );
  let sendBackDone = 0;
  const watch = (async () => {
    const started = performance.now();
    while ((await scheduled()) < MSGS) await Bun.sleep(10);
    sendBackDone = performance.now() - started;
  })();
  const failed = new Set<string>();
  const retried = await consumeAll("BENCH_RETRY_FAIL_ONCE", (msgId) => {
    if (failed.has(msgId)) return true;
    failed.add(msgId);
    return false;
  });
  await watch;
  step("send-back (fail every message once)", (MSGS * 1000) / sendBackDone, "msgs/s", plain.rate);
  step("fail once + redelivered + accepted (incl. 1 s)", retried.rate, "msgs/s", plain.rate);
  printTable(`retry path: ${MSGS.toLocaleString("en-US")} messages of 1 KiB, every delay level 1 s`, [
    { name: "plain consumption", value: plain.rate, unit: "msgs/s" },
    {
      name: "send-back (fail every message once)",
      value: (MSGS * 1000) / sendBackDone,
      ceiling: plain.rate,
      unit: "msgs/s",
    },
    {
      name: "fail once + redelivered + accepted (incl. 1 s)",
      value: retried.rate,
      ceiling: plain.rate,
      unit: "msgs/s",
    },
  ]);
} finally {
  await raw.shutdown();
  await srv.stop();
}

function maxOffsetRequest(topic: string, queueId: number): RemotingCommand {
  return RemotingCommand.request(RequestCode.GET_MAX_OFFSET, { topic, queueId: String(queueId) });
}

/**
 * Consumes the backlog from the first offset; `accept(msgId)` false throws from the listener,
 * which the consumer answers with CONSUMER_SEND_MSG_BACK. Resolves when every message was accepted.
 */
async function consumeAll(group: string, accept: (msgId: string) => boolean) {
  let accepted = 0;
  let allDone!: () => void;
  const done = new Promise<void>((resolve) => {
    allDone = resolve;
  });
  const started = performance.now();
  const consumer = await createPushConsumer({
    namesrvAddr: srv.namesrvAddr,
    group,
    log,
    consumeFromWhere: "CONSUME_FROM_FIRST_OFFSET",
    subscriptions: { [TOPIC]: "*" },
    maxReconsumeTimes: 3,
    onMessage(msgs) {
      for (const m of msgs) if (!accept(m.msgId)) throw new Error("fail once");
      accepted += msgs.length;
      if (accepted >= MSGS) allDone();
    },
  });
  await done;
  const rate = (MSGS * 1000) / (performance.now() - started);
  await consumer.shutdown();
  return { rate };
}
