/**
 * Real clients against `rocketbun start` with aclEnable=true. ali-ons (RocketMQ's Node client): its
 * signatures verify (producer and push consumer move messages), and a wrong secret, a missing
 * topic permission and an unsigned client from an address that is not white-listed are refused.
 * Our native producer and push consumer with accessKey/secretKey: the same, end to end.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Consumer as AliConsumer, Message as AliMessage, Producer as AliProducer } from "ali-ons";
import {
  type Admin,
  createAdmin,
  createProducer,
  createPushConsumer,
  MQClientError,
  updateGlobalWhiteAddrs,
} from "../../src/client/index.ts";
import { ResponseCode } from "../../src/remoting/index.ts";
import { ALI_ONS_LOCAL } from "../support/ali-ons.ts";
import { silent } from "../support/silent.ts";
import { type StartedCli, startRocketbun, waitFor } from "./harness.ts";

const ADMIN = { accessKey: "AdminKey01", secretKey: "admin-secret-01" };
const APP = { accessKey: "AppKey0001", secretKey: "app-secret-0001" };

const ACL = `
globalWhiteRemoteAddresses:
  - 10.255.255.*
accounts:
  - accessKey: ${ADMIN.accessKey}
    secretKey: ${ADMIN.secretKey}
    admin: true
  - accessKey: ${APP.accessKey}
    secretKey: ${APP.secretKey}
    defaultTopicPerm: DENY
    defaultGroupPerm: DENY
    topicPerms:
      - AliAcl=PUB|SUB
      - AliAclReadOnly=SUB
      - AliAclOpen=PUB|SUB
      - NativeAcl=PUB|SUB
    groupPerms:
      - GID_ALI_ACL=SUB
      - GID_NATIVE_ACL=SUB
`;

let dir: string;
let rb: StartedCli;
let admin: Admin;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "rocketbun-acl-ali-"));
  const aclFile = join(dir, "plain_acl.yml");
  await writeFile(aclFile, ACL);
  rb = await startRocketbun({
    name: "rocketbun-acl-ali",
    brokerConf: { aclEnable: "true", aclPlainFile: aclFile, aclWatchIntervalMs: "50" },
  });
  admin = await createAdmin({ namesrvAddr: rb.namesrvAddr, log: silent, ...ADMIN });
  for (const topic of ["AliAcl", "AliAclReadOnly", "AliAclDenied", "AliAclOpen", "NativeAcl"]) {
    await admin.createTopic(topic, { readQueueNums: 2, writeQueueNums: 2 });
    await waitFor(`route of ${topic}`, () =>
      admin.topicRoute(topic).then(
        () => true,
        () => false,
      ),
    );
  }
});

afterAll(async () => {
  await admin?.shutdown();
  await rb?.stop();
  await rm(dir, { recursive: true, force: true });
});

/** Messages stored in a topic, read as the admin. */
async function stored(topic: string): Promise<number> {
  const stats = await admin.topicStats(topic);
  return stats.reduce((n, q) => n + q.maxOffset - q.minOffset, 0);
}

interface Keys {
  accessKey?: string;
  secretKey?: string;
}

/** JSON.stringify replacer showing an Error's message. */
function errorText(_key: string, value: unknown): unknown {
  return value instanceof Error ? value.message : value;
}

/** ali-ons shares one client per instanceName in a process: one per credential set. */
async function aliProducer(instanceName: string, keys: Keys) {
  const p = new AliProducer({
    ...ALI_ONS_LOCAL,
    ...keys,
    nameSrv: rb.namesrvAddr,
    producerGroup: `PID_${instanceName}`,
    instanceName,
  });
  // A refused request can leave ali-ons' shared client polling a server the test has stopped;
  // its late errors must not surface as unhandled 'error' events in a later test.
  p.on("error", () => {});
  await p.ready();
  return p;
}

/**
 * ali-ons' close() stops at a refused UNREGISTER_CLIENT and leaves its shared client running: its
 * route polling then outlives the server and throws into a later test. End that client here.
 */
async function endAliClient(c: object): Promise<void> {
  await (c as { _mqClient: { close(): Promise<void> } })._mqClient.close();
}

async function send(p: { send(m: unknown): Promise<{ sendStatus: string }> }, topic: string, body: string) {
  return (await p.send(new AliMessage(topic, "TagA", Buffer.from(body)))).sendStatus;
}

describe("ali-ons against an ACL-enabled broker", () => {
  test("with a valid account, its producer sends and its push consumer receives", async () => {
    const p = await aliProducer("ali-acl-ok", APP);
    const got: string[] = [];
    const errors: string[] = [];
    const c = new AliConsumer({
      ...ALI_ONS_LOCAL,
      ...APP,
      nameSrv: rb.namesrvAddr,
      consumerGroup: "GID_ALI_ACL",
      instanceName: "ali-acl-consumer",
      consumeFromWhere: "CONSUME_FROM_FIRST_OFFSET",
      brokerSuspendMaxTimeMillis: 1000,
      rebalanceInterval: 500,
    });
    c.on("error", (err: Error) => errors.push(err.message));
    c.subscribe("AliAcl", "*", async (msg: { body: Buffer }) => {
      got.push(msg.body.toString());
    });
    try {
      await c.ready();
      const sent = ["a1", "a2", "a3", "a4"];
      for (const body of sent) expect(await send(p, "AliAcl", body)).toBe("SEND_OK");
      await waitFor("the four messages", () => got.length >= sent.length);
      expect(got.sort()).toEqual(sent);
      expect(errors).toEqual([]);
    } finally {
      await c.close();
      await p.close();
    }
  });

  test("with a wrong secret, every send is refused and nothing is stored", async () => {
    const p = await aliProducer("ali-acl-wrong", { accessKey: APP.accessKey, secretKey: "not-the-secret" });
    try {
      const before = await stored("AliAcl");
      await expect(send(p, "AliAcl", "forged")).rejects.toThrow("still failed");
      expect(await stored("AliAcl")).toBe(before);
    } finally {
      // Its UNREGISTER_CLIENT is refused too.
      await expect(p.close()).rejects.toThrow("Check signature failed for accessKey=AppKey0001");
      await endAliClient(p);
    }
  });

  test("without PUB on a topic its sends are refused; without SUB its consumer's heart beat is", async () => {
    const p = await aliProducer("ali-acl-perm", APP);
    // ali-ons logs the heart beat results (gathered errors included) at info.
    const logged: string[] = [];
    const record = (...args: unknown[]) => void logged.push(JSON.stringify(args, errorText));
    const c = new AliConsumer({
      ...ALI_ONS_LOCAL,
      ...APP,
      logger: { info: record, debug() {}, warn: record, error: record },
      nameSrv: rb.namesrvAddr,
      consumerGroup: "GID_ALI_ACL",
      instanceName: "ali-acl-denied-consumer",
      consumeFromWhere: "CONSUME_FROM_FIRST_OFFSET",
    });
    const errors: string[] = [];
    c.on("error", (err: Error) => errors.push(err.message));
    c.subscribe("AliAclDenied", "*", async () => {});
    try {
      await expect(send(p, "AliAclReadOnly", "no PUB here")).rejects.toThrow("still failed");
      expect(await stored("AliAclReadOnly")).toBe(0);
      // The broker never registers the consumer, so ali-ons cannot find its group and gives up.
      await expect(c.ready()).rejects.toThrow("no consumer for this group, GID_ALI_ACL");
      expect(logged.some((l) => l.includes("No default permission for topic:AliAclDenied"))).toBe(true);
      expect(errors).toEqual(["MQPushConsumer occurred an error no consumer for this group, GID_ALI_ACL"]);
    } finally {
      await c.close().catch(() => endAliClient(c));
      await p.close();
    }
  });

  test("unsigned, it is refused until the global white list admits its address", async () => {
    const p = await aliProducer("ali-acl-anon", {});
    try {
      await expect(send(p, "AliAclOpen", "anonymous")).rejects.toThrow("still failed");
      expect(await stored("AliAclOpen")).toBe(0);
      await updateGlobalWhiteAddrs(admin, rb.brokerAddr, ["10.255.255.*", "127.0.0.1"]);
      expect(await send(p, "AliAclOpen", "white-listed")).toBe("SEND_OK");
      expect(await stored("AliAclOpen")).toBe(1);
    } finally {
      await p.close().catch(() => endAliClient(p));
      await updateGlobalWhiteAddrs(admin, rb.brokerAddr, ["10.255.255.*"]);
    }
  });
});

describe("the native client against an ACL-enabled broker", () => {
  test("with accessKey/secretKey its producer sends and its push consumer receives", async () => {
    const producer = await createProducer({ namesrvAddr: rb.namesrvAddr, log: silent, ...APP });
    const got: string[] = [];
    const consumer = await createPushConsumer({
      namesrvAddr: rb.namesrvAddr,
      group: "GID_NATIVE_ACL",
      subscriptions: { NativeAcl: "*" },
      consumeFromWhere: "CONSUME_FROM_FIRST_OFFSET",
      log: silent,
      persistConsumerOffsetIntervalMs: 100,
      ...APP,
      onMessage: (msgs) => {
        for (const m of msgs) got.push(new TextDecoder().decode(m.body));
      },
    });
    try {
      const sent = ["n1", "n2", "n3"];
      for (const body of sent)
        expect((await producer.send({ topic: "NativeAcl", body })).sendStatus).toBe("SEND_OK");
      await waitFor("the three messages", () => got.length >= sent.length);
      expect(got.sort()).toEqual(sent);
    } finally {
      await consumer.shutdown();
      await producer.shutdown();
    }
  });

  test("with a wrong secret its send fails with the broker's NO_PERMISSION and reason", async () => {
    const producer = await createProducer({
      namesrvAddr: rb.namesrvAddr,
      log: silent,
      accessKey: APP.accessKey,
      secretKey: "not-the-secret",
    });
    try {
      const err = await producer.send({ topic: "NativeAcl", body: "forged" }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(MQClientError);
      expect([(err as MQClientError).code, (err as MQClientError).remark]).toEqual([
        ResponseCode.NO_PERMISSION,
        `Check signature failed for accessKey=${APP.accessKey}`,
      ]);
    } finally {
      await producer.shutdown();
    }
  });

  test("half a key pair is refused before anything is sent", () => {
    expect(
      createProducer({ namesrvAddr: rb.namesrvAddr, log: silent, accessKey: APP.accessKey }),
    ).rejects.toThrow("accessKey and secretKey go together");
  });
});
