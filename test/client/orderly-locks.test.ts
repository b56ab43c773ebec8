/**
 * An orderly consumer's broker locks across a lost connection, against an in-process NameServer and
 * broker (so the test can reach into the broker's lock table). The broker releases the locks of a
 * closed connection; the consumer must stop trusting them too, and take them again.
 */
import { expect, test } from "bun:test";
import pino from "pino";
import { createPushConsumer, type PushConsumer } from "../../src/client/index.ts";
import { createTopic, startBroker } from "../integration/harness.ts";
import { startNameServer } from "../namesrv/harness.ts";
import { waitFor } from "./harness.ts";

/** Lock flags of the consumer's queues of `topic`, from its running info. */
const lockFlags = (c: PushConsumer, topic: string) =>
  c
    .runningInfo()
    .mqTable.filter(([mq]) => mq.topic === topic)
    .map(([, pq]) => pq.locked);

test("after the broker drops its connection, the consumer trusts none of its locks until it has locked again", async () => {
  await using ns = await startNameServer();
  await using h = await startBroker({ namesrvAddr: ns.addr });
  const admin = h.client();
  await createTopic(admin, h.addr, "OrdLost", 2);
  // The consumer's log, to see the moment it drops its locks (a relock may follow within a turn).
  const lines: { msg: string; mq?: string }[] = [];
  const log = pino({ level: "info" }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  const consumer = await createPushConsumer({
    namesrvAddr: ns.addr,
    group: "OrdLostG",
    subscriptions: { OrdLost: "*" },
    orderly: true,
    lockIntervalMs: 100,
    brokerSuspendMaxMs: 1000,
    pullErrorDelayMs: 50,
    log,
    onMessage: () => {},
  });
  try {
    await waitFor("both queues locked", () => {
      const flags = lockFlags(consumer, "OrdLost");
      return flags.length === 2 && flags.every((f) => f);
    });
    // The heartbeat scan with a clock ten minutes ahead: the broker closes the consumer's connection.
    expect(h.broker.context.clients.scanExpired(Date.now() + 600_000, 120_000)).toHaveLength(1);
    const dropped = () =>
      lines
        .filter((l) => l.msg === "queue lock dropped with the broker connection")
        .map((l) => /^(.*)@(.*)#(\d+)$/.exec(l.mq ?? ""))
        .filter((m) => m?.[1] === "OrdLost")
        .map((m) => Number(m?.[3]))
        .sort();
    await waitFor("the consumer drops its locks", () => dropped().length === 2);
    await waitFor("locked again", () => lockFlags(consumer, "OrdLost").every((f) => f));
    const holder = (queueId: number) =>
      h.broker.context.locks.holder("OrdLostG", { topic: "OrdLost", brokerName: "broker-it", queueId })
        ?.clientId;
    expect({ dropped: dropped(), holders: [holder(0), holder(1)] }).toEqual({
      dropped: [0, 1],
      holders: [consumer.client.clientId, consumer.client.clientId],
    });
  } finally {
    await consumer.shutdown();
  }
});
