import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { HostFacts } from "../../src/config/host.ts";
import { loadRoleConfig } from "../../src/config/load.ts";
import { formatConfig } from "../../src/config/print.ts";
import { parseProperties } from "../../src/config/properties.ts";
import { ROLE_NAMES } from "../../src/config/role-config.ts";

let dir = "";
let host: HostFacts;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "rocketbun-print-"));
  host = { homeDir: join(dir, "home"), hostName: "mq-host-1", localAddress: "192.0.2.10" };
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("formatConfig", () => {
  test("start -p comments out a shared key whose second value differs", async () => {
    const { sections } = await loadRoleConfig("start", { env: {}, host });
    const lines = formatConfig(sections).split("\n");
    expect(lines.filter((l) => l.includes("configBlackList="))).toEqual([
      "configBlackList=configBlackList;brokerConfigPath",
      "# configBlackList=configBlackList;configStorePath;kvConfigPath (namesrvConfig; a file sets both)",
    ]);
  });

  test("namesrv -p prints each section under a comment header, in RocketMQ's order", async () => {
    const { sections } = await loadRoleConfig("namesrv", { env: {}, host });
    const text = formatConfig(sections);
    const headers = text.split("\n").filter((l) => l.startsWith("#"));
    expect(headers).toEqual([
      "# namesrvConfig",
      "# nettyServerConfig",
      "# nettyClientConfig",
      "# rocketbunConfig",
      "# namesrvAclConfig",
      "# tlsConfig",
    ]);
    expect(text.split("\n")).toContain("listenPort=9876");
    expect(text.split("\n")).toContain(
      `kvConfigPath=${join(host.homeDir, "rocketbun", "namesrv", "kvConfig.json")}`,
    );
  });

  for (const role of ROLE_NAMES) {
    test(`${role}: the printed configuration, fed back as a file, loads to the same configuration`, async () => {
      const path = join(dir, `${role}-in.properties`);
      await writeFile(path, "rocketbunHome=/srv/rb\nlogLevel=debug\n");
      const first = await loadRoleConfig(role, { env: {}, host, file: path });
      const printed = join(dir, `${role}-printed.properties`);
      await writeFile(printed, formatConfig(first.sections));
      const second = await loadRoleConfig(role, { env: {}, host, file: printed });
      // Paths that default to the -c file itself differ by design; everything else must match, except
      // in `start`, where one configBlackList key serves both the broker and the NameServer.
      const expected = withoutFilePaths(first.config);
      if (role === "start") setNamesrvBlackList(expected, "configBlackList;brokerConfigPath");
      expect(withoutFilePaths(second.config)).toEqual(expected);
    });
  }

  test("broker -m prints only the important keys", async () => {
    const { sections } = await loadRoleConfig("broker", { env: {}, host });
    const printed = parseProperties(formatConfig(sections, { importantOnly: true }));
    expect([...printed.keys()]).toEqual([
      "brokerClusterName",
      "brokerName",
      "brokerId",
      "namesrvAddr",
      "brokerIP1",
      "autoCreateTopicEnable",
      "autoCreateSubscriptionGroup",
      "traceTopicEnable",
      "msgTraceTopicName",
      "transactionTimeOut",
      "transactionCheckMax",
      "transactionCheckInterval",
      "rejectTransactionMessage",
      "aclEnable",
      "fetchNamesrvAddrByAddressServer",
      "listenPort",
      "storePathRootDir",
      "storePathCommitLog",
      "flushDiskType",
      "flushIntervalCommitLog",
      "flushCommitLogTimed",
      "commitIntervalCommitLog",
      "fileReservedTime",
      "deleteWhen",
      "cleanFileForciblyEnable",
      "deleteFileBatchMax",
      "brokerRole",
      "haMasterAddress",
      "messageIndexEnable",
      "messageIndexSafe",
      "maxTransferBytesOnMessageInMemory",
      "maxTransferCountOnMessageInMemory",
      "maxTransferBytesOnMessageInDisk",
      "maxTransferCountOnMessageInDisk",
      "accessMessageInMemoryMaxRatio",
      "transientStorePoolEnable",
    ]);
    expect(printed.get("listenPort")).toEqual("10911");
  });
});

function setNamesrvBlackList(config: unknown, value: string): void {
  const namesrv = (config as { namesrv: { namesrv: Record<string, unknown> } }).namesrv.namesrv;
  namesrv.configBlackList = value;
}

/** Drops configStorePath / brokerConfigPath, which default to the `-c` file's own path. */
function withoutFilePaths(value: unknown): unknown {
  if (typeof value !== "object" || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (k !== "configStorePath" && k !== "brokerConfigPath") out[k] = withoutFilePaths(v);
  }
  return out;
}
