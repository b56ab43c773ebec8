/**
 * A broker and a NameServer in separate processes (`rocketbun namesrv`, `rocketbun broker`), the
 * NameServer in enforcing mode: the broker registers over TLS with tls.enable and the tls.client.*
 * keys, so clients find it; without tls.enable its registration fails, and its log says why.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAdmin } from "../../src/client/index.ts";
import { readUntilLine } from "../support/rocketbun-child.ts";
import { silent } from "../support/silent.ts";
import { type TestCertificates, testCertificates } from "../support/tls-certs.ts";
import { freePort } from "./harness.ts";

const repoRoot = join(import.meta.dir, "..", "..");
let certs: TestCertificates;
let dir = "";
const children: { kill(): void; exited: Promise<number> }[] = [];

beforeAll(async () => {
  certs = await testCertificates();
  dir = await mkdtemp(join(tmpdir(), "rocketbun-tls-reg-"));
  await writeFile(join(dir, "server.pem"), certs.server.certPem);
  await writeFile(join(dir, "server.key"), certs.server.keyPem);
  await writeFile(join(dir, "ca.pem"), certs.ca.certPem);
});

afterAll(async () => {
  for (const child of children) child.kill();
  await Promise.all(children.map((c) => c.exited));
  await rm(dir, { recursive: true, force: true });
});

/** Runs `rocketbun <role> -c <conf>` with `keys`; resolves once `ready` is printed on stdout. */
async function run(role: "namesrv" | "broker", keys: Record<string, string>, ready: RegExp) {
  const conf = join(dir, `${role}-${crypto.randomUUID()}.conf`);
  await writeFile(
    conf,
    Object.entries({ rocketbunHome: dir, ...keys })
      .map(([k, v]) => `${k}=${v}\n`)
      .join(""),
  );
  const child = Bun.spawn([process.execPath, "src/cli/main.ts", role, "-c", conf], {
    cwd: repoRoot,
    stdout: "pipe",
    stderr: "ignore",
    env: { ...process.env, ROCKETBUN_LOG_LEVEL: "warn" },
  });
  children.push(child);
  // Log lines go to stdout too; those before the boot line are kept (a broker registers before it).
  return { output: await readUntilLine(child.stdout, ready) };
}

const serverTls = {
  "tls.server.mode": "enforcing",
  "tls.server.certPath": "server.pem",
  "tls.server.keyPath": "server.key",
};

function brokerKeys(namesrvAddr: string, name: string, more: Record<string, string>) {
  const port = freePort();
  return {
    brokerName: name,
    brokerIP1: "127.0.0.1",
    listenPort: String(port),
    namesrvAddr,
    storePathRootDir: join(dir, name),
    ...serverTls,
    ...more,
  };
}

test("a broker with tls.enable registers with an enforcing NameServer; one without it cannot, and logs why", async () => {
  const nsPort = freePort();
  const namesrvAddr = `127.0.0.1:${nsPort}`;
  await run("namesrv", { listenPort: String(nsPort), ...serverTls }, /The Name Server boot success/);
  await run(
    "broker",
    brokerKeys(namesrvAddr, "tls-broker", { "tls.enable": "true", "tls.client.trustCertPath": "ca.pem" }),
    /boot success/,
  );
  const plain = await run("broker", brokerKeys(namesrvAddr, "plain-broker", {}), /boot success/);
  const admin = await createAdmin({ namesrvAddr, log: silent, tls: { ca: certs.ca.certPem } });
  try {
    const cluster = await admin.clusterList();
    expect([...cluster.brokerAddrTable.keys()].sort()).toEqual(["tls-broker"]);
  } finally {
    await admin.shutdown();
  }
  const failure = plain.output.split("\n").find((line) => line.includes("register broker failed"));
  expect(failure).toMatch(/it requires TLS \(tls\.server\.mode=enforcing\)/);
});
