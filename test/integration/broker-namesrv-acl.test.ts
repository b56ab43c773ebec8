/**
 * A broker and an ACL-checking NameServer in separate servers over TCP: the broker signs its
 * registration and unregistration with innerClientAuthenticationCredentials, so an admin account
 * registers it and takes it out again; without credentials, or with a non-admin account, the
 * NameServer refuses it and the broker logs why. And a broker listening beyond loopback with ACL
 * off says so once at start.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { createBroker } from "../../broker/index.ts";
import { type Harness, startNameServer } from "../namesrv/harness.ts";
import { brokerConfig, freePort } from "./harness.ts";

const ADMIN = { accessKey: "AdminKey01", secretKey: "admin-secret-01" };
const APP = { accessKey: "AppKey0001", secretKey: "app-secret-0001" };

const ACL = `accounts:
  - accessKey: ${ADMIN.accessKey}
    secretKey: ${ADMIN.secretKey}
    admin: true
  - accessKey: ${APP.accessKey}
    secretKey: ${APP.secretKey}
`;

interface LogLine {
  level: number;
  msg: string;
  remark?: string;
  bindAddress?: string;
}

const WARN = 40;

let dir: string;
let ns: Harness;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "rocketbun-broker-namesrv-acl-"));
  const file = join(dir, "plain_acl.yml");
  await writeFile(file, ACL);
  ns = await startNameServer({}, {}, undefined, {
    enable: true,
    file,
    watchIntervalMs: 60_000,
    readNeedSignature: false,
  });
});

afterAll(async () => {
  await ns?.[Symbol.asyncDispose]();
  await rm(dir, { recursive: true, force: true });
});

/** Runs a broker registering with `ns` from start to stop; returns its warn lines and what `ns` saw. */
async function runBroker(name: string, overrides: Record<string, string>) {
  const home = await mkdtemp(join(tmpdir(), `rocketbun-${name}-`));
  const lines: LogLine[] = [];
  const log = pino({ level: "warn" }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  const config = await brokerConfig(home, freePort(), {
    brokerName: name,
    namesrvAddr: ns.addr,
    ...overrides,
  });
  const broker = createBroker(config, { log });
  try {
    await broker.start();
    const registered = ns.ns.routes.clusterInfo().brokerAddrTable.get(name)?.brokerAddrs.get(0) ?? null;
    await broker.stop();
    const afterStop = ns.ns.routes.clusterInfo().brokerAddrTable.has(name);
    return {
      registered,
      brokerAddr: broker.brokerAddr,
      afterStop,
      warnings: lines.filter((l) => l.level === WARN),
    };
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

describe("a broker signs its NameServer requests", () => {
  test("with an admin account: registered, unregistered at stop, and no warning on loopback", async () => {
    const run = await runBroker("broker-admin", {
      innerClientAuthenticationCredentials: JSON.stringify(ADMIN),
    });
    expect(run).toEqual({
      registered: run.brokerAddr,
      brokerAddr: run.brokerAddr,
      afterStop: false,
      warnings: [],
    });
  });

  test("without credentials: refused, and the broker logs the NameServer's reason", async () => {
    const run = await runBroker("broker-anonymous", {});
    expect(run.registered).toBeNull();
    expect(run.warnings.map((l) => [l.msg, l.remark])).toEqual([
      [
        "register broker refused",
        "No accessKey is configured; request code=103 (REGISTER_BROKER) needs an admin account at the NameServer",
      ],
      [
        "unregister broker refused",
        "No accessKey is configured; request code=104 (UNREGISTER_BROKER) needs an admin account at the NameServer",
      ],
    ]);
  });

  test("with an account that is not admin: refused", async () => {
    const run = await runBroker("broker-app", { innerClientAuthenticationCredentials: JSON.stringify(APP) });
    expect(run.registered).toBeNull();
    expect(run.warnings[0]?.remark).toBe(
      `Need admin permission for request code=103 (REGISTER_BROKER) at the NameServer, but accessKey=${APP.accessKey} is not`,
    );
  });
});

describe("the exposure warning", () => {
  test("a broker on the wildcard address with ACL off warns once, naming both ports", async () => {
    const home = await mkdtemp(join(tmpdir(), "rocketbun-broker-exposed-"));
    const lines: LogLine[] = [];
    const log = pino({ level: "warn" }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    const port = freePort();
    const broker = createBroker(await brokerConfig(home, port, { bindAddress: "0.0.0.0" }), { log });
    try {
      await broker.start();
    } finally {
      await broker.stop();
      await rm(home, { recursive: true, force: true });
    }
    const warnings = lines.filter((l) => l.level === WARN);
    expect(warnings.map((l) => l.bindAddress)).toEqual(["0.0.0.0"]);
    expect(warnings[0]!.msg).toBe(
      `Broker listens on port 0.0.0.0:${port} and VIP port 0.0.0.0:${port - 2}, beyond loopback, with ACL off: ` +
        "anyone who reaches it can delete topics and groups, change the broker's config, and read and write every message. " +
        `Set aclEnable=true in the config file and give accounts in ${join(home, "conf", "plain_acl.yml")}, or bindAddress=127.0.0.1`,
    );
  });
});
