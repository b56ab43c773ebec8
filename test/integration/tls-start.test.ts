/**
 * TLS on `rocketbun start` in a child process: in enforcing mode the native producer and push
 * consumer move messages over TLS and a plaintext client is refused; in permissive mode ali-ons
 * (which has no TLS) works over plaintext beside a TLS client on the same ports; rocketbun admin
 * speaks TLS with --tls-ca; a run-time change may not turn TLS off.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Consumer as AliConsumer, Message as AliMessage, Producer as AliProducer } from "ali-ons";
import { createAdmin, createProducer, createPushConsumer } from "../../src/client/index.ts";
import {
  RemotingClient,
  RemotingCommand,
  RequestCode,
  ResponseCode,
  tcpConnector,
} from "../../src/remoting/index.ts";
import { ALI_ONS_LOCAL } from "../support/ali-ons.ts";
import { runCli } from "../support/rocketbun-child.ts";
import { silent } from "../support/silent.ts";
import { type TestCertificates, testCertificates } from "../support/tls-certs.ts";
import { type StartedCli, startRocketbun, waitFor } from "./harness.ts";

let certs: TestCertificates;
beforeAll(async () => {
  certs = await testCertificates();
});

/** A `start` child serving the test server certificate from `<home>/tls/` in `mode`. */
function startTls(mode: "permissive" | "enforcing"): Promise<StartedCli> {
  return startRocketbun({
    name: `rocketbun-tls-${mode}`,
    homeFiles: { "tls/server.pem": certs.server.certPem, "tls/server.key": certs.server.keyPem },
    brokerConf: {
      "tls.server.mode": mode,
      "tls.server.certPath": "tls/server.pem",
      "tls.server.keyPath": "tls/server.key",
    },
  });
}

const trustCa = () => ({ tls: { ca: certs.ca.certPem } });

/**
 * Sends `bodies` with a native producer and resolves, sorted, with what a native push consumer
 * received once it has `expected` (default: the bodies sent).
 */
async function roundTrip(
  namesrvAddr: string,
  topic: string,
  bodies: string[],
  expected = bodies,
): Promise<string[]> {
  const producer = await createProducer({ namesrvAddr, log: silent, ...trustCa() });
  const got: string[] = [];
  const consumer = await createPushConsumer({
    namesrvAddr,
    group: `GID_${topic}`,
    subscriptions: { [topic]: "*" },
    consumeFromWhere: "CONSUME_FROM_FIRST_OFFSET",
    log: silent,
    ...trustCa(),
    onMessage: (msgs) => {
      for (const m of msgs) got.push(new TextDecoder().decode(m.body));
    },
  });
  try {
    for (const body of bodies) await producer.send({ topic, body });
    await waitFor(`${expected.length} messages consumed`, () => expected.every((b) => got.includes(b)));
    return got.sort();
  } finally {
    await consumer.shutdown();
    await producer.shutdown();
  }
}

async function createTopicOverTls(namesrvAddr: string, topic: string): Promise<void> {
  const admin = await createAdmin({ namesrvAddr, log: silent, ...trustCa() });
  try {
    // The boot line follows the broker's first registration attempt, not its success: if that one
    // failed, createTopic finds no master until the next (registerNameServerPeriod, 30 s), as
    // startAdminServer also waits for a registered broker.
    await waitFor(
      `${topic} created on a registered broker`,
      () =>
        admin.createTopic(topic, { readQueueNums: 2, writeQueueNums: 2 }).then(
          () => true,
          () => false,
        ),
      45_000,
    );
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

describe("enforcing", () => {
  let rb: StartedCli;
  beforeAll(async () => {
    rb = await startTls("enforcing");
    await createTopicOverTls(rb.namesrvAddr, "TlsEnforced");
  });
  afterAll(() => rb?.stop());

  test("the native producer and push consumer move messages over TLS on both ports", async () => {
    expect(await roundTrip(rb.namesrvAddr, "TlsEnforced", ["a", "b", "c"])).toEqual(["a", "b", "c"]);
  });

  test("a plaintext native client is refused, told that the server requires TLS", async () => {
    const producer = await createProducer({ namesrvAddr: rb.namesrvAddr, log: silent });
    const err = await producer.send({ topic: "TlsEnforced", body: "x" }).then(
      () => null,
      (e: Error) => e.message,
    );
    await producer.shutdown();
    expect(err).toMatch(/it requires TLS \(tls\.server\.mode=enforcing\); connect with TLS/);
  });

  test("rocketbun admin works with --tls-ca, and without TLS fails naming it", async () => {
    const env = { ...process.env, ROCKETBUN_LOG_LEVEL: "silent" };
    const caFile = `${rb.home}/tls/ca.pem`;
    await Bun.write(caFile, certs.ca.certPem);
    const secure = await runCli(["admin", "topicList", "-n", rb.namesrvAddr, "--tls-ca", caFile], env);
    const plain = await runCli(["admin", "topicList", "-n", rb.namesrvAddr], env);
    expect({ code: secure.code, listed: secure.stdout.split("\n").includes("TlsEnforced") }).toEqual({
      code: 0,
      listed: true,
    });
    expect(plain.code).toBe(1);
    expect(plain.stderr).toMatch(/it requires TLS/);
  });

  test("UPDATE_BROKER_CONFIG may not change a TLS key", async () => {
    const c = new RemotingClient({
      name: "it-tls",
      log: silent,
      connector: tcpConnector({ log: silent, tls: { ca: certs.ca.certPem } }),
    });
    const request = RemotingCommand.request(
      RequestCode.UPDATE_BROKER_CONFIG,
      {},
      Buffer.from("tls.server.mode=disabled\n"),
    );
    const answer = await c.invoke(rb.brokerAddr, request);
    await c.shutdown();
    expect({ code: answer.code, remark: answer.remark }).toEqual({
      code: ResponseCode.NO_PERMISSION,
      remark: "Can not update config in black list.",
    });
  });
});

describe("permissive", () => {
  let rb: StartedCli;
  beforeAll(async () => {
    rb = await startTls("permissive");
    await createTopicOverTls(rb.namesrvAddr, "TlsMixed");
  });
  afterAll(() => rb?.stop());

  test("ali-ons over plaintext sends, and a native TLS consumer on the same ports receives", async () => {
    const producer = new AliProducer({
      ...ALI_ONS_LOCAL,
      nameSrv: rb.namesrvAddr,
      producerGroup: "PID_TLS_MIXED",
    });
    await producer.ready();
    const statuses: string[] = [];
    for (const body of ["p1", "p2"]) {
      const r = (await producer.send(new AliMessage("TlsMixed", "TagA", Buffer.from(body)))) as {
        sendStatus: string;
      };
      statuses.push(r.sendStatus);
    }
    await producer.close();
    expect(statuses).toEqual(["SEND_OK", "SEND_OK"]);
    // The native round trip sends one more over TLS and reads all three back.
    const all = ["p1", "p2", "t1"];
    expect(await roundTrip(rb.namesrvAddr, "TlsMixed", ["t1"], all)).toEqual(all);
  });

  test("ali-ons consumes over plaintext what a TLS producer sent", async () => {
    const producer = await createProducer({ namesrvAddr: rb.namesrvAddr, log: silent, ...trustCa() });
    await producer.send({ topic: "TlsMixed", body: "from-tls" });
    await producer.shutdown();
    const got: string[] = [];
    const consumer = new AliConsumer({
      ...ALI_ONS_LOCAL,
      nameSrv: rb.namesrvAddr,
      consumerGroup: "GID_ALI_TLS_MIXED",
      consumeFromWhere: "CONSUME_FROM_FIRST_OFFSET",
      brokerSuspendMaxTimeMillis: 1000,
      rebalanceInterval: 500,
    });
    consumer.subscribe("TlsMixed", "*", async (msg: { body: Buffer }) => {
      got.push(msg.body.toString());
    });
    try {
      await consumer.ready();
      await waitFor("ali-ons got the TLS producer's message", () => got.includes("from-tls"));
    } finally {
      await consumer.close();
    }
    expect(got).toContain("from-tls");
  });
});
