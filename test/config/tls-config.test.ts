/**
 * TLS keys: RocketMQ's names load into every role, bad values and Java's test mode are refused
 * with the key named, the PEM files are checked before anything listens, key passwords stay out
 * of `-p`, and a run-time change may not name a TLS key.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createPrivateKey } from "node:crypto";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { HostFacts } from "../../src/config/host.ts";
import { type LoadOptions, loadRoleConfig } from "../../src/config/load.ts";
import { formatConfig } from "../../src/config/print.ts";
import { ROLE_NAMES } from "../../src/config/role-config.ts";
import { BROKER_PATH_KEYS, NAMESRV_PATH_KEYS } from "../../src/config/runtime-changes.ts";
import { defaultsOf } from "../../src/config/schema.ts";
import { TLS_KEYS, type TlsConfig, tlsConfig } from "../../src/config/tls-config.ts";
import { clientTlsFrom, serverTlsFrom } from "../../src/tls/material.ts";
import { type TestCertificates, testCertificates } from "../support/tls-certs.ts";
import { configError } from "./helpers.ts";

let dir = "";
let host: HostFacts;
let certs: TestCertificates;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "rocketbun-tls-config-"));
  host = { homeDir: join(dir, "home"), hostName: "mq-host-1", localAddress: "192.0.2.10" };
  certs = await testCertificates();
  await mkdir(join(dir, "pem"));
  const files: Record<string, string> = {
    "server.pem": certs.server.certPem,
    "server.key": certs.server.keyPem,
    "ca.pem": certs.ca.certPem,
    "client.pem": certs.client.certPem,
    "client.key": certs.client.keyPem,
    "other.key": certs.selfSigned.keyPem,
    "encrypted.key": createPrivateKey(certs.server.keyPem)
      .export({ format: "pem", type: "pkcs8", cipher: "aes-256-cbc", passphrase: "right" })
      .toString(),
  };
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, "pem", name), text);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function conf(text: string): Promise<string> {
  const path = join(dir, `${crypto.randomUUID()}.conf`);
  await writeFile(path, text);
  return path;
}

const load = <R extends "namesrv" | "broker" | "gateway" | "start">(role: R, options: LoadOptions = {}) =>
  loadRoleConfig(role, { env: {}, host, ...options });

const tlsWith = (values: Partial<Record<keyof TlsConfig, string | boolean>>): TlsConfig =>
  ({ ...defaultsOf(tlsConfig), ...values }) as TlsConfig;

describe("keys", () => {
  test("with no key, TLS is disabled on the servers and off as a client, and certificates are verified", async () => {
    for (const role of ROLE_NAMES) {
      const { config } = await load(role);
      const tls =
        role === "start"
          ? (config as { broker: { tls: TlsConfig } }).broker.tls
          : (config as { tls: TlsConfig }).tls;
      expect(tls).toEqual({
        "tls.server.mode": "disabled",
        "tls.server.need.client.auth": "none",
        "tls.server.certPath": "",
        "tls.server.keyPath": "",
        "tls.server.keyPassword": "",
        "tls.server.authClient": true,
        "tls.server.trustCertPath": "",
        "tls.enable": false,
        "tls.client.certPath": "",
        "tls.client.keyPath": "",
        "tls.client.keyPassword": "",
        "tls.client.authServer": true,
        "tls.client.trustCertPath": "",
        "tls.test.mode.enable": false,
        "tls.config.file": "",
      });
    }
  });

  test("a broker.conf with RocketMQ's TLS names loads them, for both the NameServer and the broker of start", async () => {
    const file = await conf(
      [
        "tls.server.mode=enforcing",
        "tls.server.need.client.auth=REQUIRE",
        "tls.server.certPath=/etc/rocketmq/server.pem",
        "tls.server.keyPath=/etc/rocketmq/server.key",
        "tls.server.trustCertPath=/etc/rocketmq/ca.pem",
        "tls.enable=true",
        "tls.client.authServer=false",
      ].join("\n"),
    );
    const { config } = await load("start", { file });
    for (const tls of [config.broker.tls, config.namesrv.tls]) {
      expect(tls).toEqual({
        ...defaultsOf(tlsConfig),
        "tls.server.mode": "enforcing",
        "tls.server.need.client.auth": "REQUIRE",
        "tls.server.certPath": "/etc/rocketmq/server.pem",
        "tls.server.keyPath": "/etc/rocketmq/server.key",
        "tls.server.trustCertPath": "/etc/rocketmq/ca.pem",
        "tls.enable": true,
        "tls.client.authServer": false,
      });
    }
  });

  test("a bad mode, a bad client-auth value and tls.config.file are errors naming file, line and key", async () => {
    const file = await conf(
      "tls.server.mode=strict\ntls.server.need.client.auth=sometimes\ntls.config.file=/etc/rocketmq/tls.properties\n",
    );
    expect(await configError(load("broker", { file }))).toEqual(
      [
        `${file}:1: tls.server.mode: "strict" is not one of disabled, permissive, enforcing`,
        `${file}:2: tls.server.need.client.auth: "sometimes" is not one of none, optional, require`,
        `${file}:3: tls.config.file: is not read by RocketBun: put its tls.* keys in this file (or pass them as flags) instead`,
      ].join("\n"),
    );
  });

  test("-p never prints a key password, only that one is set", async () => {
    const file = await conf("tls.server.keyPassword=s3cret\ntls.client.keyPassword=\n");
    const text = formatConfig((await load("broker", { file })).sections);
    expect(text).not.toContain("s3cret");
    expect(text.split("\n")).toContain("# tls.server.keyPassword=(set, not printed)");
    expect(text.split("\n")).toContain("tls.client.keyPassword=");
  });

  test("-p prints neither the gateway's secret key nor the broker's inner credentials, only that they are set", async () => {
    const gateway = await conf("gatewayAccessKey=GatewayKey01\ngatewaySecretKey=hush-gateway-1\n");
    const gatewayText = formatConfig((await load("gateway", { file: gateway })).sections);
    expect(gatewayText).not.toContain("hush-gateway-1");
    expect(gatewayText.split("\n")).toContain("# gatewaySecretKey=(set, not printed)");
    const broker = await conf(
      'innerClientAuthenticationCredentials={"accessKey":"BrokerAcct1","secretKey":"hush-broker-1"}\n',
    );
    const brokerText = formatConfig((await load("broker", { file: broker })).sections);
    expect(brokerText).not.toContain("hush-broker-1");
    expect(brokerText.split("\n")).toContain("# innerClientAuthenticationCredentials=(set, not printed)");
  });

  test("no run-time change (UPDATE_BROKER_CONFIG, UPDATE_NAMESRV_CONFIG, the changes files) may name a TLS key", () => {
    expect(TLS_KEYS.filter((k) => !BROKER_PATH_KEYS.includes(k) || !NAMESRV_PATH_KEYS.includes(k))).toEqual(
      [],
    );
    expect(TLS_KEYS).toContain("tls.server.mode");
  });
});

describe("material", () => {
  const pem = (name: string) => join(dir, "pem", name);

  test("disabled and off mean no TLS at all", async () => {
    expect(await serverTlsFrom(tlsWith({}), dir)).toBeUndefined();
    expect(await clientTlsFrom(tlsWith({}), false, dir)).toBeUndefined();
  });

  test("server keys become server options; a relative path is under the home", async () => {
    const tls = tlsWith({
      "tls.server.mode": "permissive",
      "tls.server.certPath": "pem/server.pem",
      "tls.server.keyPath": pem("server.key"),
      "tls.server.trustCertPath": "pem/ca.pem",
      "tls.server.need.client.auth": "Optional",
    });
    expect(await serverTlsFrom(tls, dir)).toEqual({
      mode: "permissive",
      cert: certs.server.certPem,
      key: certs.server.keyPem,
      ca: certs.ca.certPem,
      clientAuth: "optional",
      verifyClient: true,
    });
  });

  test("useTLS or tls.enable turns the client on; a client certificate needs its key", async () => {
    expect(await clientTlsFrom(tlsWith({}), true, dir)).toEqual({ verifyServer: true });
    const full = tlsWith({
      "tls.enable": true,
      "tls.client.trustCertPath": pem("ca.pem"),
      "tls.client.certPath": pem("client.pem"),
      "tls.client.keyPath": pem("client.key"),
      "tls.client.authServer": false,
    });
    expect(await clientTlsFrom(full, false, dir)).toEqual({
      ca: certs.ca.certPem,
      cert: certs.client.certPem,
      key: certs.client.keyPem,
      verifyServer: false,
    });
    expect(
      await configError(
        clientTlsFrom(tlsWith({ "tls.enable": true, "tls.client.certPath": pem("client.pem") }), false, dir),
      ),
    ).toEqual("tls.client.keyPath: give both tls.client.certPath and tls.client.keyPath, or neither");
  });

  test("an encrypted key is read with tls.server.keyPassword", async () => {
    const tls = tlsWith({
      "tls.server.mode": "enforcing",
      "tls.server.certPath": pem("server.pem"),
      "tls.server.keyPath": pem("encrypted.key"),
      "tls.server.keyPassword": "right",
    });
    expect(await serverTlsFrom(tls, dir)).toMatchObject({ mode: "enforcing", passphrase: "right" });
  });

  test("each broken setting is an error naming its key", async () => {
    const server = (values: Parameters<typeof tlsWith>[0]) =>
      configError(
        serverTlsFrom(
          tlsWith({
            "tls.server.mode": "enforcing",
            "tls.server.certPath": pem("server.pem"),
            "tls.server.keyPath": pem("server.key"),
            ...values,
          }),
          dir,
        ),
      );
    expect(await server({ "tls.server.certPath": "" })).toEqual(
      "tls.server.certPath: needed for tls.server.mode=enforcing (rocketbun start --tls-dev makes a development certificate)",
    );
    expect(await server({ "tls.server.certPath": pem("missing.pem") })).toEqual(
      `tls.server.certPath: ${pem("missing.pem")}: file not found`,
    );
    expect(await server({ "tls.server.certPath": pem("server.key") })).toEqual(
      `tls.server.certPath: ${pem("server.key")}: no PEM -----BEGIN CERTIFICATE----- in it`,
    );
    expect(await server({ "tls.server.keyPath": pem("other.key") })).toEqual(
      "tls.server.keyPath: is not the private key of tls.server.certPath",
    );
    const encrypted = { "tls.server.keyPath": pem("encrypted.key") };
    expect(await server(encrypted)).toEqual(
      "tls.server.keyPath: cannot decrypt the key: it is encrypted; set tls.server.keyPassword",
    );
    expect(await server({ ...encrypted, "tls.server.keyPassword": "wrong" })).toEqual(
      "tls.server.keyPath: cannot decrypt the key: tls.server.keyPassword is wrong",
    );
    expect(await server({ "tls.test.mode.enable": true })).toMatch(
      /^tls\.test\.mode\.enable: true is not supported: RocketBun never makes a certificate silently/,
    );
  });
});
