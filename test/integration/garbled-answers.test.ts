/**
 * The client against a broker and NameServer whose answers arrive garbled: for two seconds, a
 * seeded sixth of the responses the client receives get a wrong code, a field dropped or replaced,
 * bytes of the body flipped, a body replaced or cut short. Meanwhile a producer sends, a push
 * consumer consumes and an admin asks for routes and clusters. Every failure must reach the caller
 * as an MQClientError, nothing may reject unhandled, and once answers are clean again the client
 * must recover by itself: messages sent then are consumed, and everything shuts down.
 * The garbling sits in a connector wrapped around TCP (the client's transport option).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createAdmin, createProducer, createPushConsumer, MQClientError } from "../../src/client/index.ts";
import { type Connector, type RemotingCommand, tcpConnector } from "../../src/remoting/index.ts";
import { startNameServer } from "../namesrv/harness.ts";
import { waitFor } from "../support/rocketbun-child.ts";
import { silent } from "../support/silent.ts";
import { type BrokerHarness, startBroker } from "./harness.ts";

const GARBLED_SHARE = 0.15;
const GARBLED_MS = 2000;

/** A small seeded generator, so a failure can be replayed. */
function seeded(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    return s / 0x7fffffff;
  };
}

function garblingConnector(inner: Connector, active: () => boolean, rnd: () => number): Connector {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)]!;
  const garble = (r: RemotingCommand) => {
    const keys = Object.keys(r.extFields ?? {});
    switch (Math.floor(rnd() * 6)) {
      case 0:
        r.code = pick([0, 1, 17, 22, 25, 206, 208]);
        break;
      case 1:
        if (keys.length > 0) delete r.extFields![pick(keys)];
        break;
      case 2:
        if (keys.length > 0) r.extFields![pick(keys)] = pick(["x", "-1", "", "99999999999", "null"]);
        break;
      case 3:
        if (r.body) {
          const b = new Uint8Array(r.body);
          for (let i = 0; i < 3; i++) b[Math.floor(rnd() * b.length)] = Math.floor(rnd() * 256);
          r.body = b;
        }
        break;
      case 4:
        r.body =
          rnd() < 0.5 ? null : new TextEncoder().encode(pick(["{}", "[]", "null", '{"brokerDatas":7}']));
        break;
      case 5:
        if (r.body) r.body = r.body.subarray(0, Math.floor(rnd() * r.body.length));
        break;
    }
  };
  return {
    connect: (addr, handler) =>
      inner.connect(addr, {
        onCommand(conn, cmd) {
          if (cmd.isResponse && active() && rnd() < GARBLED_SHARE) garble(cmd);
          handler.onCommand(conn, cmd);
        },
        onClose: (conn, reason) => handler.onClose(conn, reason),
      }),
  };
}

let namesrv: Awaited<ReturnType<typeof startNameServer>>;
let broker: BrokerHarness;
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);

beforeAll(async () => {
  process.on("unhandledRejection", onUnhandled);
  namesrv = await startNameServer();
  broker = await startBroker({ namesrvAddr: namesrv.addr });
  const admin = await createAdmin({ namesrvAddr: namesrv.addr, log: silent });
  await waitFor("the broker registered", () => admin.clusterList().then((c) => c.brokerAddrTable.size > 0));
  await admin.createTopic("TGarbled", { readQueueNums: 4, writeQueueNums: 4 });
  await admin.shutdown();
});

afterAll(async () => {
  process.off("unhandledRejection", onUnhandled);
  await broker?.[Symbol.asyncDispose]();
  await namesrv?.[Symbol.asyncDispose]();
});

test("garbled answers reach the caller as MQClientError, and the client recovers once they stop", async () => {
  let garbling = true;
  const connector = garblingConnector(tcpConnector({ log: silent }), () => garbling, seeded(20261203));
  const options = {
    namesrvAddr: namesrv.addr,
    log: silent,
    connector,
    pollNameServerIntervalMs: 200,
    heartbeatBrokerIntervalMs: 200,
  };
  const failures = new Map<string, number>();
  const note = (err: unknown) => {
    const kind = err instanceof MQClientError ? "MQClientError" : `${(err as Error)?.name}: ${err}`;
    failures.set(kind, (failures.get(kind) ?? 0) + 1);
  };
  const after = new Set<string>();
  const producer = await createProducer({ ...options, group: "PGarbled" });
  const consumer = await createPushConsumer({
    ...options,
    group: "GGarbled",
    subscriptions: { TGarbled: "*" },
    consumeFromWhere: "CONSUME_FROM_FIRST_OFFSET",
    pullErrorDelayMs: 20,
    brokerSuspendMaxMs: 300,
    rebalanceIntervalMs: 200,
    persistConsumerOffsetIntervalMs: 100,
    onMessage: (msgs) => {
      for (const m of msgs) {
        JSON.stringify(m); // every lazy field of a garbled record must read without throwing
        const text = new TextDecoder().decode(m.body);
        if (text.startsWith("after-")) after.add(text);
      }
    },
  });
  const admin = await createAdmin({ ...options });
  let sent = 0;
  const started = Date.now();
  while (Date.now() - started < GARBLED_MS) {
    await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        producer.send({ topic: "TGarbled", body: `m${i}`, tags: "t" }).then(() => sent++, note),
      ),
    );
    await admin.topicRoute("TGarbled").catch(note);
    await admin.clusterList().catch(note);
  }
  garbling = false;

  for (let i = 0; i < 10; i++) await producer.send({ topic: "TGarbled", body: `after-${i}` });
  await waitFor("the messages sent once answers were clean", () => after.size === 10, 20_000);
  await Promise.all([consumer.shutdown(), producer.shutdown(), admin.shutdown()]);

  expect(sent).toBeGreaterThan(0);
  expect([...failures.keys()]).toEqual(["MQClientError"]);
  expect(unhandled).toEqual([]);
}, 60_000);
