/**
 * An orderly push consumer in its own process, for the test that kills one mid-stream. Args:
 * namesrvAddr group topic. Prints "ready" once started, then "<queueId> <body>" per message
 * consumed; the listener returns only after its line reached the pipe, so every offset the
 * consumer commits was reported before the parent can kill it.
 */
import { createPushConsumer } from "../../src/client/index.ts";
import { silent } from "../support/silent.ts";

const [namesrvAddr, group, topic] = process.argv.slice(2) as [string, string, string];

const write = (line: string) =>
  new Promise<void>((resolve, reject) =>
    process.stdout.write(`${line}\n`, (err) => (err ? reject(err) : resolve())),
  );

await createPushConsumer({
  namesrvAddr,
  group,
  subscriptions: { [topic]: "*" },
  orderly: true,
  consumeFromWhere: "CONSUME_FROM_FIRST_OFFSET",
  brokerSuspendMaxMs: 1000,
  pullErrorDelayMs: 50,
  persistConsumerOffsetIntervalMs: 100,
  log: silent,
  onMessage: async (msgs, context) => {
    for (const m of msgs) await write(`${context?.mq.queueId} ${new TextDecoder().decode(m.body)}`);
  },
});
await write("ready");
