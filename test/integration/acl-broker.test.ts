/**
 * A broker with aclEnable=true over TCP, driven with raw frames: anonymous and forged requests
 * change nothing, signed ones verify in both serializations and on both ports, a refused oneway
 * request is silently dropped, the ACL admin requests (50-53) rewrite plain_acl.yml and are in
 * force at once, and an edited file is reloaded without a restart.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { formatPlainAcl, parsePlainAcl } from "../../src/acl/plain-acl-file.ts";
import { createRequestSigner } from "../../src/acl/signature.ts";
import {
  RequestCode as R,
  RemotingClient,
  type RemotingCommand,
  ResponseCode,
} from "../../src/remoting/index.ts";
import {
  type BrokerHarness,
  createTopic,
  pullRequest,
  request,
  SERIALIZE_TYPES,
  sendRequest,
  silent,
  startBroker,
  waitFor,
} from "./harness.ts";

const ADMIN = { accessKey: "AdminKey01", secretKey: "admin-secret-01" };
const APP = { accessKey: "AppKey0001", secretKey: "app-secret-0001" };

const ACL = `globalWhiteRemoteAddresses:
  - 10.255.255.*
accounts:
  - accessKey: ${ADMIN.accessKey}
    secretKey: ${ADMIN.secretKey}
    admin: true
  - accessKey: ${APP.accessKey}
    secretKey: ${APP.secretKey}
    defaultTopicPerm: DENY
    defaultGroupPerm: SUB
    topicPerms:
      - TAcl=PUB|SUB
    groupPerms:
      - GDenied=DENY
`;

let dir: string;
let aclFile: string;
let h: BrokerHarness;
const clients: RemotingClient[] = [];

function client(keys?: { accessKey: string; secretKey: string }): RemotingClient {
  const c = new RemotingClient({
    name: "acl-it",
    log: silent,
    ...(keys ? { beforeRequest: createRequestSigner(keys) } : {}),
  });
  clients.push(c);
  return c;
}

/** `[code, remark]` of an answer, for one-line comparisons. */
const answer = (r: RemotingCommand) => [r.code, r.remark] as const;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "rocketbun-acl-broker-"));
  aclFile = join(dir, "plain_acl.yml");
  await writeFile(aclFile, ACL);
  h = await startBroker({ aclEnable: "true", aclPlainFile: aclFile, aclWatchIntervalMs: "20" });
  await createTopic(client(ADMIN), h.addr, "TAcl");
});

afterAll(async () => {
  for (const c of clients) await c.shutdown();
  await h?.[Symbol.asyncDispose]();
  await rm(dir, { recursive: true, force: true });
});

describe("requests that are not signed right change nothing", () => {
  test("an anonymous or forged send is refused and stores nothing", async () => {
    const anon = client();
    expect(answer(await anon.invoke(h.addr, sendRequest({ topic: "TAcl", body: "x" })))).toEqual([
      ResponseCode.NO_PERMISSION,
      "No accessKey is configured",
    ]);
    const forged = sendRequest({ topic: "TAcl", body: "x" });
    forged.extFields = { ...forged.extFields, AccessKey: APP.accessKey, Signature: "bm90IGEgc2lnbmF0dXJl" };
    expect(answer(await anon.invoke(h.addr, forged))).toEqual([
      ResponseCode.NO_PERMISSION,
      `Check signature failed for accessKey=${APP.accessKey}`,
    ]);
    expect(h.broker.context.store.getMaxOffsetInQueue("TAcl", 0)).toBe(0);
  });

  test("the broker config and topics stay as they are: anonymous, forged, or signed but not admin", async () => {
    const config = new TextEncoder().encode("brokerPermission=2\n");
    const anon = client();
    const app = client(APP);
    const refusals = [
      answer(await anon.invoke(h.addr, request(R.UPDATE_BROKER_CONFIG, null, config))),
      answer(
        await client({ ...ADMIN, secretKey: "guessed-secret" }).invoke(
          h.addr,
          request(R.UPDATE_BROKER_CONFIG, null, config),
        ),
      ),
      answer(await app.invoke(h.addr, request(R.UPDATE_BROKER_CONFIG, null, config))),
      answer(await anon.invoke(h.addr, request(R.DELETE_TOPIC_IN_BROKER, { topic: "TAcl" }))),
      answer(await app.invoke(h.addr, request(R.DELETE_TOPIC_IN_BROKER, { topic: "TAcl" }))),
    ];
    expect(refusals).toEqual([
      [ResponseCode.NO_PERMISSION, "No accessKey is configured"],
      [ResponseCode.NO_PERMISSION, `Check signature failed for accessKey=${ADMIN.accessKey}`],
      [
        ResponseCode.NO_PERMISSION,
        `Need admin permission for request code=25, but accessKey=${APP.accessKey} is not`,
      ],
      [ResponseCode.NO_PERMISSION, "No accessKey is configured"],
      [
        ResponseCode.NO_PERMISSION,
        `Need admin permission for request code=215, but accessKey=${APP.accessKey} is not`,
      ],
    ]);
    expect(h.broker.context.runtime.brokerPermission).toBe(6);
    expect(h.broker.context.topics.get("TAcl")).toBeDefined();
  });

  test("a refused oneway request gets no answer and does not run; an allowed one does", async () => {
    const app = client(APP);
    const commit = (group: string, offset: number) =>
      app.invokeOneway(
        h.addr,
        request(R.UPDATE_CONSUMER_OFFSET, {
          consumerGroup: group,
          topic: "TAcl",
          queueId: "0",
          commitOffset: String(offset),
        }),
      );
    await commit("GDenied", 5);
    await commit("GAllowed", 7);
    const query = (group: string) =>
      app.invoke(
        h.addr,
        request(R.QUERY_CONSUMER_OFFSET, { consumerGroup: group, topic: "TAcl", queueId: "0" }),
      );
    // Same connection, same lane: the query runs after the oneway update was checked.
    expect((await query("GAllowed")).extFields?.offset).toBe("7");
    expect(h.broker.context.offsets.query("GDenied", "TAcl", 0)).toBe(-1);
  });
});

describe("signed requests", () => {
  for (const [name, st] of SERIALIZE_TYPES) {
    test(`verify in the ${name} header on the main and the VIP port`, async () => {
      const app = client(APP);
      for (const addr of [h.addr, h.vipAddr]) {
        const r = await app.invoke(addr, sendRequest({ topic: "TAcl", body: `via ${name} ${addr}` }, st));
        expect(answer(r)).toEqual([ResponseCode.SUCCESS, null]);
        const denied = await app.invoke(addr, sendRequest({ topic: "TOther", body: "x" }, st));
        expect(answer(denied)).toEqual([
          ResponseCode.NO_PERMISSION,
          "No default permission for topic:TOther",
        ]);
      }
    });
  }

  test("a pull needs SUB on the group as well, retry topic included", async () => {
    const app = client(APP);
    const pull = async (topic: string, group: string) =>
      answer(await app.invoke(h.addr, pullRequest({ group, topic, queueId: 0, offset: 0 })));
    expect((await pull("TAcl", "GAllowed"))[0]).not.toBe(ResponseCode.NO_PERMISSION);
    expect(await pull("TAcl", "GDenied")).toEqual([
      ResponseCode.NO_PERMISSION,
      "No permission for group:GDenied",
    ]);
    expect(await pull("%RETRY%GDenied", "GDenied")).toEqual([
      ResponseCode.NO_PERMISSION,
      "No permission for group:GDenied",
    ]);
  });
});

describe("the ACL admin requests", () => {
  const update = (fields: Record<string, string>) => request(R.UPDATE_AND_CREATE_ACL_CONFIG, fields);

  test("an account created by an admin works at once, is written to the file, and can be deleted", async () => {
    const admin = client(ADMIN);
    const created = await admin.invoke(
      h.addr,
      update({
        accessKey: "NewKey001",
        secretKey: "new-secret-1",
        admin: "false",
        topicPerms: "TAcl=PUB,TOther=SUB",
      }),
    );
    expect(answer(created)).toEqual([ResponseCode.SUCCESS, null]);
    const newcomer = client({ accessKey: "NewKey001", secretKey: "new-secret-1" });
    expect((await newcomer.invoke(h.addr, sendRequest({ topic: "TAcl", body: "new" }))).code).toBe(
      ResponseCode.SUCCESS,
    );
    const written = parsePlainAcl(await readFile(aclFile, "utf8"));
    expect(written.accounts.find((a) => a.accessKey === "NewKey001")).toEqual({
      accessKey: "NewKey001",
      secretKey: "new-secret-1",
      admin: false,
      topicPerms: ["TAcl=PUB", "TOther=SUB"],
    });

    const deleted = await admin.invoke(h.addr, request(R.DELETE_ACL_CONFIG, { accessKey: "NewKey001" }));
    expect(answer(deleted)).toEqual([ResponseCode.SUCCESS, null]);
    expect(answer(await newcomer.invoke(h.addr, sendRequest({ topic: "TAcl", body: "gone" })))).toEqual([
      ResponseCode.NO_PERMISSION,
      "No acl config for NewKey001",
    ]);
    expect(
      answer(await admin.invoke(h.addr, request(R.DELETE_ACL_CONFIG, { accessKey: "NewKey001" }))),
    ).toEqual([210, "The accessKey[NewKey001] corresponding to accessConfig has been deleted failed."]);
  });

  test("an update that would not load is answered 209 with the reason; a non-admin may not update", async () => {
    const admin = client(ADMIN);
    expect(
      answer(await admin.invoke(h.addr, update({ accessKey: "NewKey002", secretKey: "short" }))),
    ).toEqual([
      209,
      "The accessKey=NewKey002 and secretKey=*** cannot be null and length should longer than 6",
    ]);
    expect(
      answer(
        await client(APP).invoke(
          h.addr,
          update({ accessKey: APP.accessKey, secretKey: APP.secretKey, admin: "true" }),
        ),
      ),
    ).toEqual([
      ResponseCode.NO_PERMISSION,
      `Need admin permission for request code=50, but accessKey=${APP.accessKey} is not`,
    ]);
  });

  test("the global white list admits anonymous requests from the listed addresses at once", async () => {
    const admin = client(ADMIN);
    const anon = client();
    const set = (addrs: string) =>
      admin.invoke(h.addr, request(R.UPDATE_GLOBAL_WHITE_ADDRS_CONFIG, { globalWhiteAddrs: addrs }));
    expect(answer(await set("10.255.255.*,127.0.0.1"))).toEqual([ResponseCode.SUCCESS, null]);
    expect((await anon.invoke(h.addr, sendRequest({ topic: "TAcl", body: "white" }))).code).toBe(
      ResponseCode.SUCCESS,
    );
    expect(answer(await set("10.255.255.*"))).toEqual([ResponseCode.SUCCESS, null]);
    expect((await anon.invoke(h.addr, sendRequest({ topic: "TAcl", body: "black" }))).code).toBe(
      ResponseCode.NO_PERMISSION,
    );
    expect(answer(await set("10.1"))).toEqual([
      211,
      "globalWhiteRemoteAddresses[0]: NetAddress examine Exception netAddress is 10.1",
    ]);
  });

  test("GET_BROKER_CLUSTER_ACL_INFO names the broker and the file's version, which each update moves on", async () => {
    const admin = client(ADMIN);
    const info = async () => (await admin.invoke(h.addr, request(R.GET_BROKER_CLUSTER_ACL_INFO))).extFields!;
    const before = await info();
    await admin.invoke(
      h.addr,
      request(R.UPDATE_GLOBAL_WHITE_ADDRS_CONFIG, { globalWhiteAddrs: "10.255.255.*" }),
    );
    const after = await info();
    const { version, allAclFileVersion, ...names } = after;
    expect(names).toEqual({ brokerName: "broker-it", brokerAddr: h.addr, clusterName: "DefaultCluster" });
    const v = JSON.parse(version!);
    expect(Object.keys(v)).toEqual(["counter", "stateVersion", "timestamp"]);
    expect(v.counter).toBe(JSON.parse(before.version!).counter + 1);
    expect(JSON.parse(allAclFileVersion!)).toEqual({ [aclFile]: v });
  });
});

describe("the file", () => {
  test("an edit is in force without a restart; a broken edit leaves the last good ACL in force", async () => {
    const late = client({ accessKey: "LateKey01", secretKey: "late-secret-1" });
    const send = async () => (await late.invoke(h.addr, sendRequest({ topic: "TAcl", body: "late" }))).code;
    expect(await send()).toBe(ResponseCode.NO_PERMISSION);
    const current = await readFile(aclFile, "utf8");
    const edited = parsePlainAcl(current);
    edited.accounts.push({ accessKey: "LateKey01", secretKey: "late-secret-1", defaultTopicPerm: "PUB" });
    await writeFile(aclFile, formatPlainAcl(edited));
    await waitFor("the edited file in force", async () => (await send()) === ResponseCode.SUCCESS);
    await writeFile(aclFile, "accounts: [");
    // Reloads run one at a time: once this one is done, the broken file has been looked at.
    expect(await h.broker.context.acl!.reloadIfChanged()).toBe(false);
    expect(await send()).toBe(ResponseCode.SUCCESS);
    await writeFile(aclFile, current);
  });
});

test("with aclEnable off nothing is checked and the ACL requests say ACL is off", async () => {
  await using plain = await startBroker();
  const c = plain.client();
  expect((await c.invoke(plain.addr, sendRequest({ topic: "TBW102", body: "x" }))).code).not.toBe(
    ResponseCode.NO_PERMISSION,
  );
  expect(
    answer(await c.invoke(plain.addr, request(R.UPDATE_AND_CREATE_ACL_CONFIG, { accessKey: "x" }))),
  ).toEqual([209, "The broker does not enable acl"]);
  expect(answer(await c.invoke(plain.addr, request(R.GET_BROKER_CLUSTER_ACL_INFO)))).toEqual([
    ResponseCode.SYSTEM_ERROR,
    "The broker does not enable acl",
  ]);
});
