/**
 * The client against `rocketbun start` (NameServer + real Broker in a child process, temp home,
 * free ports). Runs once the broker is plugged into the CLI's role table; skipped before that.
 */
import { describe, expect, test } from "bun:test";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { roleStarters } from "../../src/cli/roles.ts";
import { createAdmin, createProducer, createPushConsumer } from "../../src/client/index.ts";
import { waitFor } from "./harness.ts";
import { aliOnsToNative, nativeToAliOns, rebalanceOneThreeOne } from "./scenarios.case.ts";
import { silent } from "./silent.ts";

const root = join(import.meta.dir, "..", "..");

async function freePort(): Promise<number> {
  for (;;) {
    // The broker also listens on port - 2 (VIP), so both must be free.
    const port = 20000 + Math.floor(Math.random() * 30000);
    try {
      const a = Bun.listen({ hostname: "127.0.0.1", port, socket: { data() {} } });
      const b = Bun.listen({ hostname: "127.0.0.1", port: port - 2, socket: { data() {} } });
      a.stop(true);
      b.stop(true);
      return port;
    } catch {
      // taken: try another
    }
  }
}

interface Started extends AsyncDisposable {
  namesrvAddr: string;
  restartBroker(): Promise<void>;
}

async function startRocketbun(): Promise<Started> {
  const home = await mkdtemp(join(tmpdir(), "rocketbun-client-it-"));
  const [nsPort, brokerPort, gwPort] = [await freePort(), await freePort(), await freePort()];
  const namesrvAddr = `127.0.0.1:${nsPort}`;
  let child: ReturnType<typeof Bun.spawn> | null = null;
  const spawn = async () => {
    child = Bun.spawn(
      [
        process.execPath,
        "src/cli/main.ts",
        "start",
        "--home",
        home,
        "--namesrv-port",
        String(nsPort),
        "--broker-port",
        String(brokerPort),
        "--gateway-port",
        String(gwPort),
      ],
      { cwd: root, stdout: "ignore", stderr: "ignore", env: { ...process.env, ROCKETBUN_LOG_LEVEL: "warn" } },
    );
    const admin = await createAdmin({ namesrvAddr, log: silent, mqClientApiTimeoutMs: 500 });
    try {
      await waitFor("a broker registered", async () => {
        if (child?.exitCode !== null) throw new Error(`rocketbun start exited with ${child?.exitCode}`);
        const info = await admin.clusterList().catch(() => null);
        return info && info.brokerAddrTable.size > 0;
      });
    } finally {
      await admin.shutdown();
    }
  };
  const stop = async () => {
    child?.kill("SIGTERM");
    await child?.exited;
  };
  await spawn();
  return {
    namesrvAddr,
    async restartBroker() {
      await stop();
      await spawn();
    },
    async [Symbol.asyncDispose]() {
      await stop();
      await rm(home, { recursive: true, force: true });
    },
  };
}

async function createTopic(namesrvAddr: string, topic: string, queues: number): Promise<void> {
  const admin = await createAdmin({ namesrvAddr, log: silent });
  try {
    await admin.createTopic(topic, { readQueueNums: queues, writeQueueNums: queues });
    await waitFor(`route of ${topic}`, () =>
      admin.topicRoute(topic).then(
        () => true,
        () => false,
      ),
    );
  } finally {
    await admin.shutdown();
  }
}

describe.skipIf(roleStarters.broker === undefined)("client against rocketbun start", () => {
  test("ali-ons and the native client interoperate in both directions", async () => {
    await using rb = await startRocketbun();
    await createTopic(rb.namesrvAddr, "ItAli", 4);
    await aliOnsToNative(rb.namesrvAddr, "ItAli");
    await nativeToAliOns(rb.namesrvAddr, "ItAli");
  });

  test("a group going 1 → 3 → 1 consumers consumes every message", async () => {
    await using rb = await startRocketbun();
    await createTopic(rb.namesrvAddr, "ItRb", 8);
    await rebalanceOneThreeOne(rb.namesrvAddr, "ItRb", 8);
  });

  test("a broker restart during consumption: the consumer reconnects and resumes from committed offsets", async () => {
    await using rb = await startRocketbun();
    await createTopic(rb.namesrvAddr, "ItRs", 4);
    const producer = await createProducer({ namesrvAddr: rb.namesrvAddr, log: silent });
    const counts = new Map<string, number>();
    const consumer = await createPushConsumer({
      namesrvAddr: rb.namesrvAddr,
      group: "ItRsG",
      subscriptions: { ItRs: "*" },
      consumeFromWhere: "CONSUME_FROM_FIRST_OFFSET",
      log: silent,
      pullErrorDelayMs: 100,
      persistConsumerOffsetIntervalMs: 100,
      onMessage: (msgs) => {
        for (const m of msgs) counts.set(m.msgId, (counts.get(m.msgId) ?? 0) + 1);
      },
    });
    const sent: string[] = [];
    try {
      for (let i = 0; i < 20; i++) sent.push((await producer.send({ topic: "ItRs", body: `a${i}` })).msgId);
      await waitFor("first 20 consumed", () => sent.every((id) => counts.has(id)));
      const admin = await createAdmin({ namesrvAddr: rb.namesrvAddr, log: silent });
      try {
        await waitFor("offsets committed on the broker", async () => {
          const progress = await admin.consumerProgress("ItRsG", ["ItRs"]).catch(() => []);
          return progress.length > 0 && progress.every((p) => p.lag === 0);
        });
      } finally {
        await admin.shutdown();
      }
      await rb.restartBroker();
      for (let i = 0; i < 20; i++) {
        const r = await waitFor(
          `send b${i}`,
          () => producer.send({ topic: "ItRs", body: `b${i}` }).catch(() => null),
          30_000,
        );
        sent.push(r.msgId);
      }
      await waitFor("all 40 consumed", () => sent.every((id) => counts.has(id)), 30_000);
    } finally {
      await consumer.shutdown();
      await producer.shutdown();
    }
    const duplicates = [...counts.values()].filter((n) => n > 1).length;
    console.log(`broker restart: ${sent.length} sent, ${counts.size} consumed, ${duplicates} twice`);
    // Nothing lost, and what was committed before the restart is not delivered again.
    const firstTwenty = sent.slice(0, 20).map((id) => counts.get(id));
    expect({ consumed: counts.size, firstTwenty }).toEqual({ consumed: 40, firstTwenty: Array(20).fill(1) });
  });
});
