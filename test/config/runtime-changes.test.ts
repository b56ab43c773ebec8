import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { HostFacts } from "../../src/config/host.ts";
import { type LoadOptions, loadRoleConfig } from "../../src/config/load.ts";
import { namesrvConfig } from "../../src/config/namesrv-config.ts";
import { RuntimeChanges } from "../../src/config/runtime-changes.ts";
import { silent } from "../support/silent.ts";
import { configError } from "./helpers.ts";

let dir = "";
let home = "";
let host: HostFacts;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "rocketbun-runtime-"));
  home = join(dir, "home");
  host = { homeDir: join(dir, "user"), hostName: "mq-host-1", localAddress: "192.0.2.10" };
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function put(path: string, text: string): Promise<string> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, text);
  return path;
}

const namesrvRuntime = () => join(home, "namesrv", "namesrv-runtime.properties");
const brokerRuntime = () => join(home, "store", "config", "broker-runtime.properties");

/** `start --home <home>` with an empty environment unless the test says otherwise. */
function loadStart(options: LoadOptions = {}) {
  return loadRoleConfig("start", {
    env: {},
    host,
    ...options,
    overrides: { rocketbunHome: home, ...options.overrides },
  });
}

const START_CONF =
  "brokerName=broker-rt\nbrokerClusterName=ClusterRT\nflushDiskType=SYNC_FLUSH\nlistenPort=10921\n" +
  "orderMessageEnable=false\nbrokerPermission=6\n";

describe("run-time changes at start", () => {
  test("each role's changes apply over the -c file, to that role only", async () => {
    const file = await put(join(dir, "start.conf"), START_CONF);
    await put(namesrvRuntime(), "orderMessageEnable=true\nlistenPort=7777\nmyKey=1\n");
    await put(brokerRuntime(), "brokerPermission=4\n");
    const { config, sections } = await loadStart({ file });
    expect({
      orderMessageEnable: config.namesrv.namesrv.orderMessageEnable,
      // Under start the NameServer listens on namesrvListenPort; its own listenPort has no say.
      namesrvPort: config.namesrv.nettyServer.listenPort,
      brokerPermission: config.broker.broker.brokerPermission,
      brokerPort: config.broker.nettyServer.listenPort,
      brokerName: config.broker.broker.brokerName,
      flushDiskType: config.broker.messageStore.flushDiskType,
    }).toEqual({
      orderMessageEnable: true,
      namesrvPort: 9876,
      brokerPermission: 4,
      brokerPort: 10921,
      brokerName: "broker-rt",
      flushDiskType: "SYNC_FLUSH",
    });
    expect(config.namesrv.runtimeChanges).toEqual(
      new Map([
        ["orderMessageEnable", "true"],
        ["listenPort", "7777"],
        ["myKey", "1"],
      ]),
    );
    expect(config.broker.runtimeChanges).toEqual(new Map([["brokerPermission", "4"]]));
    // -p prints what will run.
    const printed = sections.find((s) => s.section === namesrvConfig)?.values;
    expect(printed?.orderMessageEnable).toBe(true);
  });

  test("precedence: the file < run-time changes < ROCKETBUN_* variables < command-line flags", async () => {
    const file = await put(join(dir, "broker.conf"), "listenPort=10921\nbrokerPermission=6\n");
    await put(brokerRuntime(), "listenPort=10931\nbrokerPermission=2\n");
    const load = (options: LoadOptions) =>
      loadRoleConfig("broker", {
        env: {},
        host,
        file,
        ...options,
        overrides: { rocketbunHome: home, ...options.overrides },
      });
    const ports = async (options: LoadOptions) => {
      const { config } = await load(options);
      return [config.nettyServer.listenPort, config.broker.brokerPermission];
    };
    expect(await ports({})).toEqual([10931, 2]);
    expect(await ports({ env: { ROCKETBUN_BROKER_PORT: "10941" } })).toEqual([10941, 2]);
    expect(
      await ports({ env: { ROCKETBUN_BROKER_PORT: "10941" }, overrides: { listenPort: "10951" } }),
    ).toEqual([10951, 2]);
  });

  test("a change file naming a path key or holding a bad value is an error naming the file and line", async () => {
    await put(namesrvRuntime(), "# comment\nkvConfigPath=/elsewhere/kv.json\n");
    expect(await configError(loadStart())).toEqual(
      `${namesrvRuntime()}:2: kvConfigPath: may not be changed at run time; set it in the -c file`,
    );
    await put(namesrvRuntime(), "scanNotActiveBrokerInterval=0\n");
    expect(await configError(loadStart())).toEqual(
      `${namesrvRuntime()}:1: scanNotActiveBrokerInterval: 0 is below the minimum 1`,
    );
  });

  test("configStorePath or brokerConfigPath naming the -c file itself is refused", async () => {
    const file = join(dir, "start.conf");
    await put(file, `configStorePath=${file}\n`);
    expect(await configError(loadStart({ file }))).toEqual(
      `${file}:1: configStorePath: names the -c file; run-time changes are kept in a file of the role's own, never in the operator's file`,
    );
    await put(file, `brokerConfigPath=${file}\n`);
    expect(await configError(loadRoleConfig("broker", { env: {}, host, file }))).toEqual(
      `${file}:1: brokerConfigPath: names the -c file; run-time changes are kept in a file of the role's own, never in the operator's file`,
    );
    const shared = join(dir, "shared.properties");
    await put(file, `configStorePath=${shared}\nbrokerConfigPath=${shared}\n`);
    expect(await configError(loadStart({ file }))).toEqual(
      `${file}:2: brokerConfigPath: is also configStorePath; the NameServer and the broker each need a file of their own`,
    );
  });
});

test("the changes file holds only the changed keys, sorted, under a header saying what it is", async () => {
  const path = join(dir, "x", "namesrv-runtime.properties");
  const changes = new RuntimeChanges({
    path,
    initial: new Map([["orderMessageEnable", "true"]]),
    log: silent,
  });
  changes.set([
    ["enableTopicList", "false"],
    ["orderMessageEnable", "false"],
  ]);
  expect(await changes.save()).toBe(true);
  expect(await readFile(path, "utf8")).toBe(
    "# Configuration changed at run time; applied over the -c file at every start.\n" +
      "# Written by RocketBun: delete a line to return to the value of the -c file.\n" +
      "enableTopicList=false\norderMessageEnable=false\n",
  );
  await changes.close();
});
