/**
 * The ACL keys at load: one aclEnable=true in start's file turns ACL on for the broker and the
 * NameServer alike, with the same file; the broker's credentials are checked at load without
 * repeating the secret; no run-time changes file may switch any of it.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { innerCredentialsOf, namesrvAclConfig, readInnerCredentials } from "../../src/config/acl-config.ts";
import type { HostFacts } from "../../src/config/host.ts";
import { type LoadOptions, loadRoleConfig } from "../../src/config/load.ts";
import { defaultsOf } from "../../src/config/schema.ts";
import { configError } from "./helpers.ts";

let dir = "";
let host: HostFacts;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "rocketbun-acl-config-"));
  host = { homeDir: join(dir, "user"), hostName: "mq-host-1", localAddress: "192.0.2.10" };
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function put(name: string, text: string): Promise<string> {
  const path = join(dir, name);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, text);
  return path;
}

const load = <R extends "namesrv" | "broker" | "start">(role: R, options: LoadOptions = {}) =>
  loadRoleConfig(role, { env: {}, host, ...options });

describe("aclEnable and the ACL file", () => {
  test("a NameServer's ACL is off by default, reads open", async () => {
    const { config } = await load("namesrv");
    expect(config.acl).toEqual(defaultsOf(namesrvAclConfig));
    expect([config.acl.aclEnable, config.acl.aclReadNeedSignature]).toEqual([false, false]);
  });

  test("a namesrv.properties turns it on and names the file", async () => {
    const file = await put(
      "namesrv.conf",
      "aclEnable=true\naclPlainFile=/etc/rocketbun/acl.yml\naclReadNeedSignature=true\n",
    );
    const { config } = await load("namesrv", { file });
    expect(config.acl).toEqual({
      aclEnable: true,
      aclPlainFile: "/etc/rocketbun/acl.yml",
      aclWatchIntervalMs: 5000,
      aclReadNeedSignature: true,
    });
  });

  test("under start, one aclEnable=true is the broker's and the NameServer's, with one file", async () => {
    const file = await put(
      "start.conf",
      "aclEnable=true\naclPlainFile=acl/plain.yml\naclWatchIntervalMs=100\n",
    );
    const { config } = await load("start", { file });
    expect({
      broker: [
        config.broker.broker.aclEnable,
        config.broker.limits.aclPlainFile,
        config.broker.limits.aclWatchIntervalMs,
      ],
      namesrv: [
        config.namesrv.acl.aclEnable,
        config.namesrv.acl.aclPlainFile,
        config.namesrv.acl.aclWatchIntervalMs,
      ],
    }).toEqual({ broker: [true, "acl/plain.yml", 100], namesrv: [true, "acl/plain.yml", 100] });
  });

  test("a broker's file may not name aclReadNeedSignature (a NameServer key)", async () => {
    const file = await put("broker.conf", "aclReadNeedSignature=true\n");
    expect(await configError(load("broker", { file }))).toStartWith(
      `${file}:1: aclReadNeedSignature: unknown key`,
    );
  });
});

describe("innerClientAuthenticationCredentials", () => {
  test("Java's JSON form gives the broker its account", async () => {
    const file = await put(
      "broker.conf",
      'innerClientAuthenticationCredentials={"accessKey":"rocketmq2","secretKey":"12345678"}\n',
    );
    const { config } = await load("broker", { file });
    expect(innerCredentialsOf(config.auth)).toEqual({ accessKey: "rocketmq2", secretKey: "12345678" });
  });

  test("empty by default: the broker signs nothing", async () => {
    const { config } = await load("broker");
    expect(innerCredentialsOf(config.auth)).toBeNull();
  });

  test("a value that cannot be used stops the load, and the message never repeats the secret", async () => {
    const cases: [string, string][] = [
      ['{"accessKey":"rocketmq2","secretKey":"s3cr3t-value"', "is not JSON"],
      ['["rocketmq2","s3cr3t-value"]', "is not a JSON object"],
      ['{"accessKey":"rocketmq2"}', "needs a non-empty secretKey"],
      ['{"secretKey":"s3cr3t-value"}', "needs a non-empty accessKey"],
      ['{"accessKey":"rocketmq2","secretKey":"s3cr3t-value","secret":"x"}', "has an unknown field 'secret'"],
    ];
    for (const [value, problem] of cases) {
      const file = await put("broker.conf", `innerClientAuthenticationCredentials=${value}\n`);
      const message = await configError(load("broker", { file }));
      expect(message).toStartWith(`${file}:1: innerClientAuthenticationCredentials: ${problem}`);
      expect(message).not.toContain("s3cr3t");
    }
    expect(readInnerCredentials('{"accessKey":"a1","secretKey":"s1","securityToken":"t"}')).toEqual({
      accessKey: "a1",
      secretKey: "s1",
      securityToken: "t",
    });
  });
});

describe("run-time changes may not touch access control", () => {
  test("a changes file naming an ACL key is an error naming file and line", async () => {
    const home = join(dir, "home");
    for (const [path, line] of [
      [join(home, "namesrv", "namesrv-runtime.properties"), "aclEnable=false"],
      [join(home, "namesrv", "namesrv-runtime.properties"), "aclReadNeedSignature=false"],
      [join(home, "store", "config", "broker-runtime.properties"), "aclPlainFile=/tmp/other.yml"],
      [join(home, "store", "config", "broker-runtime.properties"), "innerClientAuthenticationCredentials="],
    ] as const) {
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, `${line}\n`);
      const key = line.slice(0, line.indexOf("="));
      expect(await configError(load("start", { overrides: { rocketbunHome: home } }))).toBe(
        `${path}:1: ${key}: may not be changed at run time; set it in the -c file`,
      );
      await rm(path);
    }
  });
});
