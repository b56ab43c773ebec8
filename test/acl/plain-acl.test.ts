/**
 * PlainAcl over a real file in a temp dir: created when missing, reloaded when it changes (a broken
 * edit keeps the ACL in force and is logged), and rewritten by the admin updates with the next
 * DataVersion, each checked before anything is written.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { AclConfigError } from "../../src/acl/errors.ts";
import { type AccountUpdate, PlainAcl } from "../../src/acl/plain-acl.ts";
import { parsePlainAcl } from "../../src/acl/plain-acl-file.ts";
import { waitFor } from "../support/rocketbun-child.ts";
import { SAMPLE_ACL } from "./support.ts";

let dir: string;
let file: string;
let logs: { level: number; msg: string; err?: string }[];
const opened: PlainAcl[] = [];

function acl(watchIntervalMs = 60_000): PlainAcl {
  const log = pino({ level: "info" }, { write: (line: string) => void logs.push(JSON.parse(line)) });
  const a = new PlainAcl({ file, watchIntervalMs, log });
  opened.push(a);
  return a;
}

const accountKeys = (a: PlainAcl) => [...a.snapshot.accounts.keys()];
const errors = () => logs.filter((l) => l.level >= 50).map((l) => `${l.msg} | ${l.err ?? ""}`);

const update = (fields: Partial<AccountUpdate> & { accessKey: string }): AccountUpdate => ({
  secretKey: null,
  whiteRemoteAddress: null,
  admin: null,
  defaultTopicPerm: null,
  defaultGroupPerm: null,
  topicPerms: null,
  groupPerms: null,
  ...fields,
});

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "rocketbun-acl-"));
  file = join(dir, "conf", "plain_acl.yml");
  logs = [];
});

afterEach(async () => {
  for (const a of opened.splice(0)) a.stop();
  await rm(dir, { recursive: true, force: true });
});

describe("loading", () => {
  test("a missing file is created empty, nothing is allowed, and a warning says so", async () => {
    const a = acl();
    await a.open();
    expect(parsePlainAcl(await readFile(file, "utf8")).accounts).toEqual([]);
    expect(accountKeys(a)).toEqual([]);
    expect(logs.some((l) => l.level === 40 && l.msg.includes("created it empty"))).toBe(true);
  });

  test("a broken file stops the start, naming the file and the problem", async () => {
    await Bun.write(file, "accounts:\n  - accessKey: RocketMQ\n    secretKey: short\n");
    await expect(acl().open()).rejects.toThrow(
      `${file}: accounts[0]: The accessKey=RocketMQ and secretKey=*** cannot be null`,
    );
    await Bun.write(file, "accounts: [");
    await expect(acl().open()).rejects.toThrow(`${file}: not valid YAML`);
  });
});

describe("reloading", () => {
  test("an edited file is put in force; an unchanged one is not read again", async () => {
    await Bun.write(file, SAMPLE_ACL);
    const a = acl();
    await a.open();
    expect(accountKeys(a)).toEqual(["RocketMQ", "rocketmq2"]);
    expect(await a.reloadIfChanged()).toBe(false);
    await Bun.write(file, `${SAMPLE_ACL}\n  - {accessKey: account3, secretKey: secret33}\n`);
    expect(await a.reloadIfChanged()).toBe(true);
    expect(accountKeys(a)).toEqual(["RocketMQ", "rocketmq2", "account3"]);
  });

  test("a broken edit keeps the ACL in force and is logged once, loudly; fixing it reloads", async () => {
    await Bun.write(file, SAMPLE_ACL);
    const a = acl();
    await a.open();
    await Bun.write(
      file,
      "accounts:\n  - accessKey: RocketMQ\n    topicPerms: [oops]\n    secretKey: 12345678\n",
    );
    expect(await a.reloadIfChanged()).toBe(false);
    expect(await a.reloadIfChanged()).toBe(false);
    expect(accountKeys(a)).toEqual(["RocketMQ", "rocketmq2"]);
    expect(errors()).toEqual([
      `ACL file NOT reloaded: it cannot be used; the ACL loaded before stays in force | ${file}: accounts[0]: Parse resource permission failed for topic:oops`,
    ]);
    await Bun.write(file, "accounts:\n  - {accessKey: account9, secretKey: secret99}\n");
    expect(await a.reloadIfChanged()).toBe(true);
    expect(accountKeys(a)).toEqual(["account9"]);
  });

  test("an emptied file is skipped, as Java skips it (a reader may catch a rewrite half done)", async () => {
    await Bun.write(file, SAMPLE_ACL);
    const a = acl();
    await a.open();
    await Bun.write(file, "");
    expect(await a.reloadIfChanged()).toBe(false);
    expect(accountKeys(a)).toEqual(["RocketMQ", "rocketmq2"]);
  });

  test("a deleted file keeps the ACL in force and is logged", async () => {
    await Bun.write(file, SAMPLE_ACL);
    const a = acl();
    await a.open();
    await rm(file);
    expect(await a.reloadIfChanged()).toBe(false);
    expect(accountKeys(a)).toEqual(["RocketMQ", "rocketmq2"]);
    expect(errors()).toEqual(["ACL file is gone; the ACL loaded before stays in force | "]);
  });

  test("the watcher notices an edit by itself", async () => {
    await Bun.write(file, SAMPLE_ACL);
    const a = acl(20);
    await a.open();
    a.startWatching();
    await Bun.write(file, "accounts:\n  - {accessKey: watched1, secretKey: secret99}\n");
    await waitFor("the edit in force", () => a.snapshot.accounts.has("watched1"));
    expect(accountKeys(a)).toEqual(["watched1"]);
  });
});

describe("admin updates", () => {
  test("a new account is added to the file with the next DataVersion and is in force at once", async () => {
    await Bun.write(file, `${SAMPLE_ACL}dataVersion:\n  - {timestamp: 1700000000000, counter: 7}\n`);
    const a = acl();
    await a.open();
    expect(a.versionInfo().version).toEqual({ stateVersion: 0, timestamp: 1_700_000_000_000, counter: 7 });
    const before = Date.now();
    await a.updateAccount(
      update({ accessKey: "account3", secretKey: "secret33", topicPerms: ["topicZ=PUB"] }),
    );
    const written = parsePlainAcl(await readFile(file, "utf8"));
    expect(written.accounts.at(-1)).toEqual({
      accessKey: "account3",
      secretKey: "secret33",
      admin: false,
      topicPerms: ["topicZ=PUB"],
    });
    expect(written.dataVersion[0]!.counter).toBe(8);
    expect(written.dataVersion[0]!.timestamp).toBeGreaterThanOrEqual(before);
    expect(a.versionInfo().version.counter).toBe(8);
    expect(a.snapshot.accounts.get("account3")?.perms.get("topicZ")).toBe(4);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  test("an update merges into the account: given fields replace, absent ones stay", async () => {
    await Bun.write(file, SAMPLE_ACL);
    const a = acl();
    await a.open();
    await a.updateAccount(
      update({ accessKey: "rocketmq2", secretKey: "87654321", topicPerms: ["topicB=SUB"], admin: false }),
    );
    expect(parsePlainAcl(await readFile(file, "utf8")).accounts[1]).toEqual({
      accessKey: "rocketmq2",
      secretKey: "87654321",
      whiteRemoteAddress: "192.168.1.*",
      admin: false,
      topicPerms: ["topicB=SUB"],
    });
  });

  test("an update that would not load is refused before the file is touched", async () => {
    await Bun.write(file, SAMPLE_ACL);
    const a = acl();
    await a.open();
    const bad: [Partial<AccountUpdate>, string][] = [
      [
        { secretKey: "short" },
        "The accessKey=account3 and secretKey=*** cannot be null and length should longer than 6",
      ],
      [{ secretKey: "secret33", topicPerms: ["t=ALL"] }, "Parse resource permission error for t=ALL."],
      [{ secretKey: "secret33", topicPerms: ["t"] }, "Parse Resource format error for t."],
      [
        { secretKey: "secret33", whiteRemoteAddress: "1.2.3" },
        "NetAddress examine Exception netAddress is 1.2.3",
      ],
    ];
    for (const [fields, message] of bad) {
      await expect(a.updateAccount(update({ accessKey: "account3", ...fields }))).rejects.toThrow(message);
    }
    expect(await readFile(file, "utf8")).toBe(SAMPLE_ACL);
  });

  test("delete removes the account, and says false for one that is not there", async () => {
    await Bun.write(file, SAMPLE_ACL);
    const a = acl();
    await a.open();
    expect(await a.deleteAccount("rocketmq2")).toBe(true);
    expect(await a.deleteAccount("rocketmq2")).toBe(false);
    expect(accountKeys(a)).toEqual(["RocketMQ"]);
    expect(parsePlainAcl(await readFile(file, "utf8")).accounts.map((x) => x.accessKey)).toEqual([
      "RocketMQ",
    ]);
  });

  test("the global white list is replaced; another file than the one in use is refused", async () => {
    await Bun.write(file, SAMPLE_ACL);
    const a = acl();
    await a.open();
    await a.updateGlobalWhiteAddrs(["127.0.0.1", "10.*.*.*"], null);
    expect(parsePlainAcl(await readFile(file, "utf8")).globalWhiteRemoteAddresses).toEqual([
      "127.0.0.1",
      "10.*.*.*",
    ]);
    expect(a.snapshot.globalWhite("10.1.2.3")).toBe(true);
    await a.updateGlobalWhiteAddrs([], file);
    expect(a.snapshot.globalWhite("10.1.2.3")).toBe(false);
    await expect(a.updateGlobalWhiteAddrs(["*"], "/etc/other.yml")).rejects.toBeInstanceOf(AclConfigError);
    await expect(a.updateGlobalWhiteAddrs(["10.1"], null)).rejects.toThrow("NetAddress examine");
  });
});
