/**
 * `rocketbun start` with aclEnable=true and aclReadNeedSignature=true, in a child process: one file
 * protects both roles. The broker registers though it has no account (start's in-process door); a
 * stranger cannot re-point its route; route reads need a signature, which ali-ons and the native
 * client give, so they still produce and consume; `rocketbun admin` runs the NameServer verbs when
 * signed by an admin, and is refused otherwise.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Consumer as AliConsumer, Message as AliMessage, Producer as AliProducer } from "ali-ons";
import { createRequestSigner } from "../../src/acl/signature.ts";
import { type Admin, createAdmin, createProducer, createPushConsumer } from "../../src/client/index.ts";
import {
  RequestCode as R,
  RemotingClient,
  type RemotingCommand,
  ResponseCode,
} from "../../src/remoting/index.ts";
import { registerRequest } from "../namesrv/harness.ts";
import { ALI_ONS_LOCAL } from "../support/ali-ons.ts";
import { type CliResult, runCli, type StartedRocketbun, startRocketbun } from "../support/rocketbun-child.ts";
import { silent } from "../support/silent.ts";
import { request, waitFor } from "./harness.ts";

const ADMIN = { accessKey: "AdminKey01", secretKey: "admin-secret-01" };
const APP = { accessKey: "AppKey0001", secretKey: "app-secret-0001" };
const ADMIN_FLAGS = ["--ak", ADMIN.accessKey, "--sk", ADMIN.secretKey];
const APP_FLAGS = ["--ak", APP.accessKey, "--sk", APP.secretKey];

const ACL = `accounts:
  - accessKey: ${ADMIN.accessKey}
    secretKey: ${ADMIN.secretKey}
    admin: true
  - accessKey: ${APP.accessKey}
    secretKey: ${APP.secretKey}
    defaultTopicPerm: DENY
    defaultGroupPerm: DENY
    topicPerms:
      - NsAcl=PUB|SUB
      - NsAclNative=PUB|SUB
    groupPerms:
      - GID_NS_ACL=SUB
      - GID_NS_ACL_NATIVE=SUB
`;

let dir: string;
let rb: StartedRocketbun;
let admin: Admin;
let brokerName: string;
let env: Record<string, string>;
const clients: RemotingClient[] = [];

function client(keys?: { accessKey: string; secretKey: string }): RemotingClient {
  const c = new RemotingClient({
    name: "acl-start-it",
    log: silent,
    ...(keys ? { beforeRequest: createRequestSigner(keys) } : {}),
  });
  clients.push(c);
  return c;
}

const answer = (r: RemotingCommand) => [r.code, r.remark] as const;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "rocketbun-acl-start-ns-"));
  const aclFile = join(dir, "plain_acl.yml");
  await writeFile(aclFile, ACL);
  env = { PATH: process.env.PATH ?? "", ROCKETBUN_LOG_LEVEL: "silent" };
  rb = await startRocketbun({
    name: "rocketbun-acl-start-ns",
    env,
    brokerConf: { aclEnable: "true", aclPlainFile: aclFile, aclReadNeedSignature: "true" },
  });
  env.HOME = rb.home;
  admin = await createAdmin({ namesrvAddr: rb.namesrvAddr, log: silent, ...ADMIN });
  for (const topic of ["NsAcl", "NsAclNative", "NsAclDoomed"]) {
    await admin.createTopic(topic, { readQueueNums: 2, writeQueueNums: 2 });
    await waitFor(`route of ${topic}`, () =>
      admin.topicRoute(topic).then(
        () => true,
        () => false,
      ),
    );
  }
  const [broker] = (await admin.clusterList()).brokerAddrTable.values();
  brokerName = broker!.brokerName;
});

afterAll(async () => {
  for (const c of clients) await c.shutdown();
  await admin?.shutdown();
  await rb?.stop();
  await rm(dir, { recursive: true, force: true });
});

function cli(verb: string, ...args: string[]): Promise<CliResult> {
  return runCli(["admin", verb, "-n", rb.namesrvAddr, ...args], env);
}

async function ok(verb: string, ...args: string[]): Promise<string> {
  const r = await cli(verb, ...args);
  expect({ verb, code: r.code, stderr: r.stderr }).toEqual({ verb, code: 0, stderr: "" });
  return r.stdout;
}

async function routePerm(topic: string): Promise<number | undefined> {
  return (await admin.topicRoute(topic)).queueDatas[0]?.perm;
}

describe("rocketbun start with ACL on: the NameServer", () => {
  test("has the broker registered though the broker has no account: start trusts its own broker", async () => {
    const cluster = await admin.clusterList();
    expect(cluster.brokerAddrTable.get(brokerName)?.brokerAddrs.get(0)).toBe(rb.brokerAddr);
  });

  test("keeps the broker's route when a stranger or a non-admin registers its name elsewhere", async () => {
    const fake = registerRequest({ brokerName, brokerAddr: "10.9.9.9:10911" });
    expect(answer(await client().invoke(rb.namesrvAddr, fake))).toEqual([
      ResponseCode.NO_PERMISSION,
      "No accessKey is configured; request code=103 (REGISTER_BROKER) needs an admin account at the NameServer",
    ]);
    const fromApp = registerRequest({ brokerName, brokerAddr: "10.9.9.9:10911" });
    expect((await client(APP).invoke(rb.namesrvAddr, fromApp)).code).toBe(ResponseCode.NO_PERMISSION);
    const unregister = {
      brokerName,
      brokerAddr: rb.brokerAddr,
      clusterName: "DefaultCluster",
      brokerId: "0",
    };
    const gone = await client().invoke(rb.namesrvAddr, request(R.UNREGISTER_BROKER, unregister));
    expect(gone.code).toBe(ResponseCode.NO_PERMISSION);
    expect((await admin.topicRoute("NsAcl")).brokerDatas[0]?.brokerAddrs).toEqual(
      new Map([[0, rb.brokerAddr]]),
    );
  });

  test("answers route reads only when signed (aclReadNeedSignature=true)", async () => {
    const read = () => request(R.GET_ROUTEINFO_BY_TOPIC, { topic: "NsAcl" });
    expect(answer(await client().invoke(rb.namesrvAddr, read()))).toEqual([
      ResponseCode.NO_PERMISSION,
      "No accessKey is configured",
    ]);
    expect((await client(APP).invoke(rb.namesrvAddr, read())).code).toBe(ResponseCode.SUCCESS);
  });
});

describe("rocketbun start with ACL on: clients that sign", () => {
  test("ali-ons produces and consumes, its NameServer requests verified", async () => {
    const producer = new AliProducer({
      ...ALI_ONS_LOCAL,
      ...APP,
      nameSrv: rb.namesrvAddr,
      producerGroup: "PID_NS_ACL",
      instanceName: "ali-ns-acl",
    });
    const got: string[] = [];
    const consumer = new AliConsumer({
      ...ALI_ONS_LOCAL,
      ...APP,
      nameSrv: rb.namesrvAddr,
      consumerGroup: "GID_NS_ACL",
      instanceName: "ali-ns-acl-consumer",
      consumeFromWhere: "CONSUME_FROM_FIRST_OFFSET",
      brokerSuspendMaxTimeMillis: 1000,
      rebalanceInterval: 500,
    });
    consumer.subscribe("NsAcl", "*", async (msg: { body: Buffer }) => {
      got.push(msg.body.toString());
    });
    try {
      await producer.ready();
      await consumer.ready();
      const sent = ["n1", "n2", "n3"];
      for (const body of sent) {
        const r = await producer.send(new AliMessage("NsAcl", "TagA", Buffer.from(body)));
        expect(r.sendStatus).toBe("SEND_OK");
      }
      await waitFor("the three messages", () => got.length >= sent.length);
      expect(got.sort()).toEqual(sent);
    } finally {
      await consumer.close();
      await producer.close();
    }
  });

  test("the native producer and push consumer do too", async () => {
    const producer = await createProducer({ namesrvAddr: rb.namesrvAddr, log: silent, ...APP });
    const got: string[] = [];
    const consumer = await createPushConsumer({
      namesrvAddr: rb.namesrvAddr,
      group: "GID_NS_ACL_NATIVE",
      subscriptions: { NsAclNative: "*" },
      consumeFromWhere: "CONSUME_FROM_FIRST_OFFSET",
      log: silent,
      ...APP,
      onMessage: (msgs) => {
        for (const m of msgs) got.push(new TextDecoder().decode(m.body));
      },
    });
    try {
      for (const body of ["m1", "m2"])
        expect((await producer.send({ topic: "NsAclNative", body })).sendStatus).toBe("SEND_OK");
      await waitFor("the two messages", () => got.length >= 2);
      expect(got.sort()).toEqual(["m1", "m2"]);
    } finally {
      await consumer.shutdown();
      await producer.shutdown();
    }
  });
});

describe("rocketbun admin's NameServer verbs with ACL on", () => {
  test("unsigned or signed by a non-admin, updateKvConfig is refused naming what was missing", async () => {
    const anonymous = await cli("updateKvConfig", "-s", "NS_ACL", "-k", "k1", "-v", "v1");
    expect([anonymous.code, anonymous.stdout]).toEqual([1, ""]);
    expect(anonymous.stderr).toContain(
      "No accessKey is configured; request code=100 (PUT_KV_CONFIG) needs an admin account at the NameServer",
    );
    const app = await cli("updateKvConfig", "-s", "NS_ACL", "-k", "k1", "-v", "v1", ...APP_FLAGS);
    expect(app.code).toBe(1);
    expect(app.stderr).toContain(`but accessKey=${APP.accessKey} is not`);
  });

  test("signed by an admin: updateKvConfig, deleteKvConfig, wipeWritePerm, addWritePerm, updateNamesrvConfig, getNamesrvConfig, deleteTopic", async () => {
    expect(await ok("updateKvConfig", "-s", "NS_ACL", "-k", "k1", "-v", "v1", ...ADMIN_FLAGS)).toBe(
      "create or update kv config to namespace success.\n",
    );
    expect(await ok("deleteKvConfig", "-s", "NS_ACL", "-k", "k1", ...ADMIN_FLAGS)).toBe(
      "delete kv config from namespace success.\n",
    );

    const wiped = await ok("wipeWritePerm", "-b", brokerName, ...ADMIN_FLAGS);
    expect(wiped).toMatch(
      new RegExp(
        `^wipe write perm of broker\\[${brokerName}\\] in name server\\[${rb.namesrvAddr}\\] OK, \\d+\\n$`,
      ),
    );
    expect(await routePerm("NsAcl")).toBe(4);
    const refused = await cli("addWritePerm", "-b", brokerName);
    expect(refused.code).toBe(1);
    expect(await routePerm("NsAcl")).toBe(4);
    await ok("addWritePerm", "-b", brokerName, ...ADMIN_FLAGS);
    expect(await routePerm("NsAcl")).toBe(6);

    expect(await ok("updateNamesrvConfig", "-k", "orderMessageEnable", "-v", "true", ...ADMIN_FLAGS)).toBe(
      `update name server config success![${rb.namesrvAddr}]\norderMessageEnable : true\n`,
    );
    const config = JSON.parse(await ok("getNamesrvConfig", "--json", ...ADMIN_FLAGS)) as Record<
      string,
      Record<string, string>
    >;
    expect(config[rb.namesrvAddr]?.orderMessageEnable).toBe("true");
    const aclKey = await cli("updateNamesrvConfig", "-k", "aclEnable", "-v", "false", ...ADMIN_FLAGS);
    expect(aclKey.stderr).toContain("Can not update config in black list.");

    await ok("deleteTopic", "-t", "NsAclDoomed", ...ADMIN_FLAGS);
    await expect(admin.topicRoute("NsAclDoomed")).rejects.toThrow();
  });
});
