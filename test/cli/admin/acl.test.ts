/**
 * The ACL verbs and `--ak/--sk` of `rocketbun admin` as subprocesses against `rocketbun start` with
 * aclEnable=true: accounts created, used, listed by version and deleted; the global white list
 * updated; unsigned or half-keyed runs refused.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parsePlainAcl } from "../../../src/acl/plain-acl-file.ts";
import {
  type CliResult,
  runCli,
  type StartedRocketbun,
  startRocketbun,
} from "../../support/rocketbun-child.ts";
import { rows } from "./server.ts";

const ADMIN = ["--ak", "AdminKey01", "--sk", "admin-secret-01"];

let dir: string;
let aclFile: string;
let rb: StartedRocketbun;
let env: Record<string, string>;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "rocketbun-acl-cli-"));
  aclFile = join(dir, "plain_acl.yml");
  await writeFile(
    aclFile,
    "accounts:\n  - accessKey: AdminKey01\n    secretKey: admin-secret-01\n    admin: true\n",
  );
  env = { PATH: process.env.PATH ?? "", ROCKETBUN_LOG_LEVEL: "silent" };
  rb = await startRocketbun({
    name: "rocketbun-acl-cli",
    env,
    brokerConf: { aclEnable: "true", aclPlainFile: aclFile },
  });
  env.HOME = rb.home;
});

afterAll(async () => {
  await rb?.stop();
  await rm(dir, { recursive: true, force: true });
});

function admin(verb: string, args: string[], extraEnv: Record<string, string> = {}): Promise<CliResult> {
  return runCli(["admin", verb, "-n", rb.namesrvAddr, ...args], { ...env, ...extraEnv });
}

async function ok(verb: string, args: string[], extraEnv: Record<string, string> = {}): Promise<string> {
  const r = await admin(verb, args, extraEnv);
  expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: "" });
  return r.stdout;
}

describe("rocketbun admin with ACL on", () => {
  test("without keys a broker verb is refused; with an admin's --ak/--sk it runs", async () => {
    const refused = await admin("updateTopic", ["-t", "CliAcl", "-b", rb.brokerAddr]);
    expect([refused.code, refused.stdout]).toEqual([1, ""]);
    expect(refused.stderr).toContain("No accessKey is configured");
    await ok("updateTopic", ["-t", "CliAcl", "-b", rb.brokerAddr, ...ADMIN]);
  });

  test("updateAclConfig creates an account the broker accepts at once; deleteAccessConfig removes it", async () => {
    const created = await ok("updateAclConfig", [
      "-b",
      rb.brokerAddr,
      "-a",
      "CliUser01",
      "-s",
      "cli-secret-01",
      "-t",
      "CliAcl=PUB|SUB",
      "-i",
      "DENY",
      ...ADMIN,
    ]);
    expect(created).toContain(`create or update plain access config to ${rb.brokerAddr} success.`);
    expect(created).not.toContain("cli-secret-01");
    expect(parsePlainAcl(await readFile(aclFile, "utf8")).accounts.at(-1)).toEqual({
      accessKey: "CliUser01",
      secretKey: "cli-secret-01",
      admin: false,
      defaultTopicPerm: "DENY",
      topicPerms: ["CliAcl=PUB|SUB"],
    });
    // The new account's keys from the environment, as a script would pass them.
    const user = { ROCKETMQ_ACCESS_KEY: "CliUser01", ROCKETMQ_SECRET_KEY: "cli-secret-01" };
    await ok("sendMessage", ["-t", "CliAcl", "-p", "hello"], user);
    const denied = await admin("updateTopic", ["-t", "CliOther", "-b", rb.brokerAddr], user);
    expect(denied.stderr).toContain(
      "Need admin permission for request code=17, but accessKey=CliUser01 is not",
    );

    const deleted = await ok("deleteAccessConfig", ["-b", rb.brokerAddr, "-a", "CliUser01", ...ADMIN]);
    expect(deleted).toBe(
      `delete plain access config account from ${rb.brokerAddr} success.\naccount's accessKey is:CliUser01\n`,
    );
    const gone = await admin("sendMessage", ["-t", "CliAcl", "-p", "again"], user);
    expect(gone.code).toBe(1);
    const again = await admin("deleteAclConfig", ["-c", "DefaultCluster", "-a", "CliUser01", ...ADMIN]);
    expect([again.code, again.stderr]).toEqual([
      1,
      expect.stringContaining(
        "The accessKey[CliUser01] corresponding to accessConfig has been deleted failed.",
      ),
    ]);
  });

  test("clusterAclConfigVersion lists the file and its version for the cluster's masters", async () => {
    const listed = JSON.parse(
      await ok("clusterAclConfigVersion", ["-c", "DefaultCluster", "--json", ...ADMIN]),
    );
    expect(listed).toEqual([
      {
        clusterName: "DefaultCluster",
        brokerName: expect.any(String),
        brokerAddr: rb.brokerAddr,
        aclFilePath: aclFile,
        aclConfigVersionNum: expect.any(Number),
        aclLastUpdateTime: expect.any(Number),
      },
    ]);
    const table = rows(await ok("clusterAclConfigVersion", ["-b", rb.brokerAddr, ...ADMIN]));
    expect(table[0]).toEqual([
      "#Cluster Name",
      "#Broker Name",
      "#Broker Addr",
      "#AclFilePath",
      "#AclConfigVersionNum",
      "#AclLastUpdateTime",
    ]);
    expect(table[1]?.slice(2, 5)).toEqual([rb.brokerAddr, aclFile, String(listed[0].aclConfigVersionNum)]);
  });

  test("updateGlobalWhiteAddr lets unsigned runs from a listed address through", async () => {
    const r = await ok("updateGlobalWhiteAddr", [
      "-b",
      rb.brokerAddr,
      "-g",
      "10.255.255.*,127.0.0.1",
      ...ADMIN,
    ]);
    expect(r).toBe(`update global white remote addresses to ${rb.brokerAddr} success.\n`);
    await ok("sendMessage", ["-t", "CliAcl", "-p", "unsigned"]);
    expect(parsePlainAcl(await readFile(aclFile, "utf8")).globalWhiteRemoteAddresses).toEqual([
      "10.255.255.*",
      "127.0.0.1",
    ]);
    await ok("updateGlobalWhiteAddr", ["-b", rb.brokerAddr, "-g", "10.255.255.*", ...ADMIN]);
  });

  test("help lists the ACL verbs, and every verb's help --ak and --sk", async () => {
    const help = await runCli(["admin", "--help"], env);
    for (const v of [
      "updateAclConfig",
      "deleteAccessConfig",
      "deleteAclConfig",
      "clusterAclConfigVersion",
      "updateGlobalWhiteAddr",
    ])
      expect(help.stdout).toContain(`    ${v} `);
    const verbHelp = await runCli(["admin", "topicList", "--help"], env);
    expect(verbHelp.stdout).toContain("--ak KEY");
    expect(verbHelp.stdout).toContain("--sk SECRET");
  });

  test("--ak without --sk is a usage error", async () => {
    const r = await admin("topicList", ["--ak", "AdminKey01"]);
    expect([r.code, r.stderr]).toEqual([
      2,
      "rocketbun: --ak and --sk (or ROCKETMQ_ACCESS_KEY and ROCKETMQ_SECRET_KEY) go together (see rocketbun admin topicList --help)\n",
    ]);
  });
});
