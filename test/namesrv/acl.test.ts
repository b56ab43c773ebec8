/**
 * A NameServer with ACL on, over TCP in both serializations: every state-changing request is refused
 * (NO_PERMISSION, a remark naming what was missing) when anonymous, forged, signed by an unknown or
 * a non-admin account, or sent from a globally white-listed address, and then nothing changes —
 * routes, liveness, KV, config; an admin account's signature (or its own white address) is let
 * through. Reads are open unless aclReadNeedSignature; a broker cannot be impersonated.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PlainAcl } from "../../src/acl/plain-acl.ts";
import type { SessionCredentials } from "../../src/acl/signature.ts";
import { accessOf, NAMESRV_CODE_ACCESS, NamesrvAccess } from "../../src/namesrv/acl.ts";
import type { NamesrvContext } from "../../src/namesrv/context.ts";
import type { NameServer } from "../../src/namesrv/index.ts";
import { namesrvProcessorTable } from "../../src/namesrv/processors.ts";
import { jsonBytes } from "../../src/protocol/json/index.ts";
import {
  type ExtFields,
  RequestCode as R,
  type RemotingClient,
  type RemotingCommand,
  ResponseCode,
  type SerializeType,
} from "../../src/remoting/index.ts";
import {
  type Harness,
  registerRequest,
  request,
  SERIALIZE_TYPES,
  silent,
  startNameServer,
  topicConfig,
} from "./harness.ts";

const ADMIN = { accessKey: "AdminKey01", secretKey: "admin-secret-01" };
const APP = { accessKey: "AppKey0001", secretKey: "app-secret-0001" };
/** Accounts whose own whiteRemoteAddress admits loopback: no signature needed from here. */
const WHITE_ADMIN = "WhiteAdmin1";
const WHITE_APP = "WhiteApp001";

const ACL = `globalWhiteRemoteAddresses:
  - 10.255.255.*
accounts:
  - accessKey: ${ADMIN.accessKey}
    secretKey: ${ADMIN.secretKey}
    admin: true
  - accessKey: ${APP.accessKey}
    secretKey: ${APP.secretKey}
    defaultTopicPerm: PUB|SUB
  - accessKey: ${WHITE_ADMIN}
    secretKey: white-admin-secret
    whiteRemoteAddress: 127.0.0.1
    admin: true
  - accessKey: ${WHITE_APP}
    secretKey: white-app-secret
    whiteRemoteAddress: 127.0.0.1
`;

const BROKER = { brokerName: "broker-a", brokerAddr: "127.0.0.1:10911" };
const WHO = { ...BROKER, clusterName: "DefaultCluster" };
const DATA_VERSION = jsonBytes({ counter: 1, stateVersion: 0, timestamp: 1700000000000 });
const queueData = (topic: string) => ({
  brokerName: BROKER.brokerName,
  perm: 6,
  readQueueNums: 2,
  topicSysFlag: 0,
  writeQueueNums: 2,
  topic,
});

let dir: string;
let acl: PlainAcl;
let h: Harness;
/** Shares `acl` with `h`, as `start` shares one ACL between its roles, but signs its reads. */
let signedReads: Harness;
let now = 1_000_000;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "rocketbun-namesrv-acl-"));
  const file = join(dir, "plain_acl.yml");
  await writeFile(file, ACL);
  acl = new PlainAcl({ file, watchIntervalMs: 60_000, log: silent });
  await acl.open();
  const options = { enable: true, file, watchIntervalMs: 60_000 };
  h = await startNameServer({}, { acl, now: () => now }, undefined, { ...options, readNeedSignature: false });
  signedReads = await startNameServer({}, { acl }, undefined, { ...options, readNeedSignature: true });
  const registered = await h.client(undefined, ADMIN).invoke(
    h.addr,
    registerRequest({
      ...BROKER,
      // A first registration naming a single topic is refused, as in Java.
      topics: [topicConfig("TopicA"), topicConfig("TopicB")],
    }),
  );
  expect([registered.code, registered.remark]).toEqual([ResponseCode.SUCCESS, null]);
  await h
    .client(undefined, ADMIN)
    .invoke(h.addr, request(R.PUT_KV_CONFIG, { namespace: "NS", key: "seed", value: "1" }));
});

afterAll(async () => {
  await signedReads?.[Symbol.asyncDispose]();
  await h?.[Symbol.asyncDispose]();
  acl?.stop();
  await rm(dir, { recursive: true, force: true });
});

/** Everything a state-changing request could change, as plain data. */
function state(ns: NameServer) {
  return {
    route: ns.routes.pickupTopicRouteData("TopicA"),
    cluster: ns.routes.clusterInfo(),
    topics: ns.routes.allTopics().sort(),
    live: ns.routes.liveBrokers().map(({ connection: _, ...rest }) => rest),
    kv: ns.kv.snapshot(),
    config: ns.config.entries(),
  };
}

/** Each protected request as a real admin tool or broker would send it. */
const PROTECTED: readonly [name: string, make: (st: SerializeType) => RemotingCommand][] = [
  ["PUT_KV_CONFIG", (st) => request(R.PUT_KV_CONFIG, { namespace: "NS", key: "k", value: "v" }, null, st)],
  ["DELETE_KV_CONFIG", (st) => request(R.DELETE_KV_CONFIG, { namespace: "NS", key: "seed" }, null, st)],
  ["REGISTER_BROKER", (st) => registerRequest({ ...BROKER, brokerAddr: "10.9.9.9:10911" }, st)],
  ["UNREGISTER_BROKER", (st) => request(R.UNREGISTER_BROKER, { ...WHO, brokerId: "0" }, null, st)],
  ["QUERY_DATA_VERSION", (st) => request(R.QUERY_DATA_VERSION, { ...WHO, brokerId: "0" }, DATA_VERSION, st)],
  ["BROKER_HEARTBEAT", (st) => request(R.BROKER_HEARTBEAT, WHO, null, st)],
  ["WIPE_WRITE_PERM_OF_BROKER", (st) => request(R.WIPE_WRITE_PERM_OF_BROKER, BROKER, null, st)],
  ["ADD_WRITE_PERM_OF_BROKER", (st) => request(R.ADD_WRITE_PERM_OF_BROKER, BROKER, null, st)],
  ["DELETE_TOPIC_IN_NAMESRV", (st) => request(R.DELETE_TOPIC_IN_NAMESRV, { topic: "TopicA" }, null, st)],
  [
    "REGISTER_TOPIC_IN_NAMESRV",
    (st) =>
      request(
        R.REGISTER_TOPIC_IN_NAMESRV,
        { topic: "Sneaked" },
        jsonBytes({ queueDatas: [queueData("Sneaked")] }),
        st,
      ),
  ],
  [
    "UPDATE_NAMESRV_CONFIG",
    (st) =>
      request(R.UPDATE_NAMESRV_CONFIG, null, new TextEncoder().encode("enableAllTopicList=false\n"), st),
  ],
];

/** `[code, remark]` of an answer. */
const answer = (r: RemotingCommand) => [r.code, r.remark] as const;

/** A request naming `accessKey` with no (or a made-up) signature. */
function naming(req: RemotingCommand, accessKey: string, signature?: string): RemotingCommand {
  const ext: ExtFields = { ...req.extFields, AccessKey: accessKey };
  if (signature !== undefined) ext.Signature = signature;
  req.extFields = ext;
  return req;
}

function needsAdmin(remark: string, code: number, name: string): string {
  return `${remark}; request code=${code} (${name}) needs an admin account at the NameServer`;
}

describe("the code table", () => {
  test("every code the NameServer serves is classified, and nothing else is", () => {
    const served = namesrvProcessorTable({} as NamesrvContext).map(([code]) => code);
    expect([...NAMESRV_CODE_ACCESS.keys()].sort()).toEqual([...served].sort());
  });

  test("a code the table does not name needs an admin account", () => {
    expect(accessOf(R.GET_ROUTEINFO_BY_TOPIC)).toBe(NamesrvAccess.READ);
    expect(accessOf(R.UPDATE_AND_CREATE_TOPIC)).toBe(NamesrvAccess.ADMIN);
  });
});

describe.each(SERIALIZE_TYPES)("state-changing requests, %s", (_, st) => {
  test("anonymous, forged, unknown, non-admin or merely white-listed: refused, and nothing changes", async () => {
    const anon = h.client();
    const app = h.client(undefined, APP);
    const guessed = h.client(undefined, { ...ADMIN, secretKey: "guessed-secret" });
    const stranger = h.client(undefined, { accessKey: "Stranger01", secretKey: "stranger-secret" });
    await acl.updateGlobalWhiteAddrs(["10.255.255.*", "127.0.0.1"], null);
    try {
      for (const [name, make] of PROTECTED) {
        const code = make(st).code;
        const before = state(h.ns);
        now += 1000;
        const replies = [
          answer(await anon.invoke(h.addr, make(st))),
          answer(await guessed.invoke(h.addr, make(st))),
          answer(await stranger.invoke(h.addr, make(st))),
          answer(await app.invoke(h.addr, make(st))),
          answer(await anon.invoke(h.addr, naming(make(st), WHITE_APP))),
        ];
        expect({ name, replies }).toEqual({
          name,
          replies: [
            [ResponseCode.NO_PERMISSION, needsAdmin("No accessKey is configured", code, name)],
            [
              ResponseCode.NO_PERMISSION,
              needsAdmin(`Check signature failed for accessKey=${ADMIN.accessKey}`, code, name),
            ],
            [ResponseCode.NO_PERMISSION, needsAdmin("No acl config for Stranger01", code, name)],
            [
              ResponseCode.NO_PERMISSION,
              `Need admin permission for request code=${code} (${name}) at the NameServer, but accessKey=${APP.accessKey} is not`,
            ],
            [
              ResponseCode.NO_PERMISSION,
              `Need admin permission for request code=${code} (${name}) at the NameServer, but accessKey=${WHITE_APP} is not`,
            ],
          ],
        });
        expect(state(h.ns)).toEqual(before);
      }
    } finally {
      await acl.updateGlobalWhiteAddrs(["10.255.255.*"], null);
    }
  });

  test("an admin account's signature, or its own white address, lets each through", async () => {
    const admin = h.client(undefined, ADMIN);
    const ok = async (req: RemotingCommand, c: RemotingClient = admin) => {
      const reply = await c.invoke(h.addr, req);
      expect({ code: req.code, reply: answer(reply) }).toEqual({ code: req.code, reply: [0, null] });
    };
    await ok(request(R.PUT_KV_CONFIG, { namespace: "NS", key: "k", value: "v" }, null, st));
    expect(h.ns.kv.get("NS", "k")).toBe("v");
    await ok(request(R.DELETE_KV_CONFIG, { namespace: "NS", key: "k" }, null, st));
    expect(h.ns.kv.get("NS", "k")).toBeUndefined();

    await ok(request(R.WIPE_WRITE_PERM_OF_BROKER, BROKER, null, st));
    expect(h.ns.routes.pickupTopicRouteData("TopicA")?.queueDatas[0]?.perm).toBe(4);
    await ok(naming(request(R.ADD_WRITE_PERM_OF_BROKER, BROKER, null, st), WHITE_ADMIN), h.client());
    expect(h.ns.routes.pickupTopicRouteData("TopicA")?.queueDatas[0]?.perm).toBe(6);

    await ok(
      request(
        R.REGISTER_TOPIC_IN_NAMESRV,
        { topic: "Added" },
        jsonBytes({ queueDatas: [queueData("Added")] }),
        st,
      ),
    );
    expect(h.ns.routes.allTopics()).toContain("Added");
    await ok(request(R.DELETE_TOPIC_IN_NAMESRV, { topic: "Added" }, null, st));
    expect(h.ns.routes.allTopics()).not.toContain("Added");

    now += 1000;
    await ok(request(R.BROKER_HEARTBEAT, WHO, null, st));
    expect(h.ns.routes.liveBrokers()[0]?.lastUpdateTimestamp).toBe(now);
    await ok(request(R.QUERY_DATA_VERSION, { ...WHO, brokerId: "0" }, DATA_VERSION, st));

    await ok(
      request(R.UPDATE_NAMESRV_CONFIG, null, new TextEncoder().encode("orderMessageEnable=true\n"), st),
    );
    expect(h.ns.config.namesrv.orderMessageEnable).toBe(true);
    await ok(
      request(R.UPDATE_NAMESRV_CONFIG, null, new TextEncoder().encode("orderMessageEnable=false\n"), st),
    );
  });
});

describe("the ACL cannot be switched off by request", () => {
  test("UPDATE_NAMESRV_CONFIG naming an ACL key is refused, even signed by an admin", async () => {
    const admin = h.client(undefined, ADMIN);
    for (const line of ["aclEnable=false", "aclReadNeedSignature=false", "aclPlainFile=/tmp/other.yml"]) {
      const reply = await admin.invoke(
        h.addr,
        request(R.UPDATE_NAMESRV_CONFIG, null, new TextEncoder().encode(`${line}\n`)),
      );
      expect({ line, reply: answer(reply) }).toEqual({
        line,
        reply: [ResponseCode.NO_PERMISSION, "Can not update config in black list."],
      });
    }
    expect(h.ns.config.changed().filter(([key]) => key.startsWith("acl"))).toEqual([]);
  });
});

describe("a broker cannot be impersonated", () => {
  test("a registration naming the real broker with another address, unsigned or not admin, leaves its route alone", async () => {
    const fake = (st?: SerializeType) => registerRequest({ ...BROKER, brokerAddr: "10.9.9.9:10911" }, st);
    const routeBefore = h.ns.routes.pickupTopicRouteData("TopicA");
    expect(routeBefore?.brokerDatas[0]?.brokerAddrs).toEqual(new Map([[0, BROKER.brokerAddr]]));
    for (const c of [h.client(), h.client(undefined, APP)]) {
      expect((await c.invoke(h.addr, fake())).code).toBe(ResponseCode.NO_PERMISSION);
    }
    const unregister = request(R.UNREGISTER_BROKER, { ...WHO, brokerId: "0" });
    expect((await h.client().invoke(h.addr, unregister)).code).toBe(ResponseCode.NO_PERMISSION);
    expect(h.ns.routes.pickupTopicRouteData("TopicA")).toEqual(routeBefore);
    expect(h.ns.routes.liveBrokers().map((b) => b.brokerAddr)).toEqual([BROKER.brokerAddr]);
  });
});

describe("reads", () => {
  const READS: readonly [string, () => RemotingCommand][] = [
    ["route", () => request(R.GET_ROUTEINFO_BY_TOPIC, { topic: "TopicA" })],
    ["cluster", () => request(R.GET_BROKER_CLUSTER_INFO)],
    ["topics", () => request(R.GET_ALL_TOPIC_LIST_FROM_NAMESERVER)],
    ["kv", () => request(R.GET_KV_CONFIG, { namespace: "NS", key: "seed" })],
    ["config", () => request(R.GET_NAMESRV_CONFIG)],
  ];

  test("are open to anonymous clients by default", async () => {
    const anon = h.client();
    for (const [what, make] of READS) {
      expect({ what, code: (await anon.invoke(h.addr, make())).code }).toEqual({ what, code: 0 });
    }
  });

  test("with aclReadNeedSignature: any valid signature or a white-listed address; not anonymous or forged", async () => {
    const addr = signedReads.addr;
    // This NameServer knows no broker: a read it serves may answer "no such topic or key".
    const outcomes = async (c: RemotingClient) =>
      Promise.all(
        READS.map(async ([what, make]) => {
          const code = (await c.invoke(addr, make())).code;
          return [what, code === ResponseCode.NO_PERMISSION ? "refused" : "served"];
        }),
      );
    const all = (outcome: string) => READS.map(([what]) => [what, outcome]);
    const anon = signedReads.client();
    expect(await outcomes(anon)).toEqual(all("refused"));
    expect((await anon.invoke(addr, READS[0]![1]())).remark).toBe("No accessKey is configured");
    const forged: SessionCredentials = { ...APP, secretKey: "guessed-secret" };
    expect(await outcomes(signedReads.client(undefined, forged))).toEqual(all("refused"));
    expect(await outcomes(signedReads.client(undefined, APP))).toEqual(all("served"));
    await acl.updateGlobalWhiteAddrs(["127.0.0.1"], null);
    try {
      expect(await outcomes(signedReads.client())).toEqual(all("served"));
      // White-listed reads, but not writes: an address names no admin.
      const put = request(R.PUT_KV_CONFIG, { namespace: "NS", key: "w", value: "1" });
      expect((await signedReads.client().invoke(addr, put)).code).toBe(ResponseCode.NO_PERMISSION);
    } finally {
      await acl.updateGlobalWhiteAddrs(["10.255.255.*"], null);
    }
  });
});
