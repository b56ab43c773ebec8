/**
 * Security end to end against `rocketbun start`: the gateway's API keys and scopes in front, and a
 * broker with aclEnable=true behind, which the gateway reaches signing with its own ACL keys
 * (gatewayAccessKey / gatewaySecretKey): what the broker refuses comes back as a 403 problem.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAdmin } from "../../src/client/index.ts";
import { type StartedRocketbun, startRocketbun, waitFor } from "../support/rocketbun-child.ts";
import { silent } from "../support/silent.ts";

const ADMIN = { accessKey: "AdminKey01", secretKey: "admin-secret-01" };
const GATEWAY = { accessKey: "GatewayKey1", secretKey: "gateway-secret-1" };
const ACL = `accounts:
  - accessKey: ${ADMIN.accessKey}
    secretKey: ${ADMIN.secretKey}
    admin: true
  - accessKey: ${GATEWAY.accessKey}
    secretKey: ${GATEWAY.secretKey}
    defaultTopicPerm: DENY
    defaultGroupPerm: PUB|SUB
    topicPerms:
      - TAllowed=PUB|SUB
`;
const API = { producer: "producer-key-0123456789", reader: "reader-key-0123456789" };

let dir: string;
let rb: StartedRocketbun;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "rocketbun-gw-sec-"));
  await writeFile(join(dir, "plain_acl.yml"), ACL);
  await writeFile(
    join(dir, "keys.json"),
    JSON.stringify({
      keys: [
        { name: "producer", key: API.producer, scopes: ["produce:T*"] },
        { name: "reader", key: API.reader, scopes: ["consume:TAllowed"] },
      ],
    }),
  );
  rb = await startRocketbun({
    name: "rocketbun-gateway-sec",
    brokerConf: {
      aclEnable: "true",
      aclPlainFile: join(dir, "plain_acl.yml"),
      gatewayAccessKey: GATEWAY.accessKey,
      gatewaySecretKey: GATEWAY.secretKey,
      gatewayApiKeysFile: join(dir, "keys.json"),
    },
  });
  const admin = await createAdmin({ namesrvAddr: rb.namesrvAddr, log: silent, ...ADMIN });
  try {
    for (const topic of ["TAllowed", "TDenied"]) {
      await admin.createTopic(topic, { readQueueNums: 1, writeQueueNums: 1 });
      await waitFor(`route of ${topic}`, () =>
        admin.topicRoute(topic).then(
          () => true,
          () => false,
        ),
      );
    }
  } finally {
    await admin.shutdown();
  }
  await waitFor("gateway ready", () =>
    fetch(`${rb.gatewayUrl}/readyz`).then(
      (r) => r.ok,
      () => false,
    ),
  );
});

afterAll(async () => {
  await rb.stop();
  await rm(dir, { recursive: true, force: true });
});

const send = (topic: string, key?: string) =>
  fetch(`${rb.gatewayUrl}/v1/topics/${topic}/messages`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(key ? { authorization: `Bearer ${key}` } : {}) },
    body: JSON.stringify({ body: `to ${topic}` }),
  });

test("API keys in front: no key 401, a key outside its scopes 403, within them 201", async () => {
  const statuses = [
    (await send("TAllowed")).status,
    (await send("TAllowed", API.reader)).status,
    (await send("TAllowed", API.producer)).status,
  ];
  expect(statuses).toEqual([401, 403, 201]);
});

test("ACL behind: the gateway signs with its own keys; a topic its account may not use is a 403 problem from the broker", async () => {
  const r = await send("TDenied", API.producer);
  const p = (await r.json()) as { type: string; code: number };
  expect([r.status, p.type, p.code]).toEqual([403, "urn:rocketbun:problem:broker-forbidden", 16]);
});

test("a reader reads what the producer sent, through the signed pull", async () => {
  await send("TAllowed", API.producer);
  const r = await fetch(`${rb.gatewayUrl}/v1/topics/TAllowed/queues/0/messages`, {
    headers: { authorization: `Bearer ${API.reader}` },
  });
  const page = (await r.json()) as { messages: { body: string }[] };
  expect([r.status, page.messages.length > 0, page.messages.every((m) => m.body === "to TAllowed")]).toEqual([
    200,
    true,
    true,
  ]);
});
