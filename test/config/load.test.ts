import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { namesrvAclConfig } from "../../src/config/acl-config.ts";
import { brokerConfig } from "../../src/config/broker-config.ts";
import { gatewayConfig } from "../../src/config/gateway-config.ts";
import type { HostFacts } from "../../src/config/host.ts";
import { type LoadOptions, loadRoleConfig } from "../../src/config/load.ts";
import { messageStoreConfig } from "../../src/config/message-store-config.ts";
import { namesrvConfig } from "../../src/config/namesrv-config.ts";
import { nettyClientConfig, nettyServerConfig } from "../../src/config/netty-config.ts";
import { rocketbunBrokerConfig, rocketbunConfig, startConfig } from "../../src/config/rocketbun-config.ts";
import { defaultsOf } from "../../src/config/schema.ts";
import { tlsConfig } from "../../src/config/tls-config.ts";
import { configError } from "./helpers.ts";

let dir = "";
let host: HostFacts;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "rocketbun-config-"));
  host = { homeDir: join(dir, "home"), hostName: "mq-host-1", localAddress: "192.0.2.10" };
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function file(name: string, text: string | Uint8Array): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, text);
  return path;
}

/** Loads with an empty environment and fixed host facts unless the test says otherwise. */
const load = <R extends "namesrv" | "broker" | "gateway" | "start">(role: R, options: LoadOptions = {}) =>
  loadRoleConfig(role, { env: {}, host, ...options });

const BROKER_CONF = `# A typical broker.conf, as shipped in RocketMQ's distribution plus the usual edits.
brokerClusterName = DefaultCluster
brokerName = broker-a
brokerId = 0
deleteWhen = 04
fileReservedTime = 48
brokerRole = ASYNC_MASTER
flushDiskType = ASYNC_FLUSH
listenPort=10921
namesrvAddr=10.0.0.1:9876;10.0.0.2:9876
storePathRootDir=/data/rocketmq/store
storePathCommitLog=/data/rocketmq/store/commitlog
autoCreateTopicEnable=false
brokerIP1=10.0.0.5
mappedFileSizeCommitLog=536870912
sendMessageThreadPoolNums=16
maxMessageSize=8388608
messageDelayLevel=1s 5s 10s 30s 1m 2m 3m 4m 5m 6m 7m 8m 9m 10m 20m 30m 1h 2h 4h
`;

describe("namesrv", () => {
  test("with no file, every section is its defaults with paths under the home directory", async () => {
    const { config, ignoredKeys } = await load("namesrv");
    expect(config).toEqual({
      rocketbun: { ...defaultsOf(rocketbunConfig), rocketbunHome: join(host.homeDir, "rocketbun") },
      namesrv: {
        ...defaultsOf(namesrvConfig),
        kvConfigPath: join(host.homeDir, "rocketbun", "namesrv", "kvConfig.json"),
        configStorePath: join(host.homeDir, "rocketbun", "namesrv", "namesrv-runtime.properties"),
      },
      nettyServer: { ...defaultsOf(nettyServerConfig), listenPort: 9876 },
      nettyClient: defaultsOf(nettyClientConfig),
      acl: defaultsOf(namesrvAclConfig),
      tls: defaultsOf(tlsConfig),
      runtimeChanges: new Map(),
    });
    expect(ignoredKeys).toEqual([]);
  });

  test("a namesrv.properties sets NamesrvConfig and Netty keys; configStorePath stays a file of the NameServer's own", async () => {
    const path = await file(
      "namesrv.properties",
      "listenPort=9877\norderMessageEnable=true\nscanNotActiveBrokerInterval=10000\n" +
        "serverChannelMaxIdleTimeSeconds=60\nconnectTimeoutMillis=1000\nkvConfigPath=/srv/kv.json\n",
    );
    const { config, file: loadedFrom } = await load("namesrv", { file: path });
    expect(loadedFrom).toEqual(path);
    expect(config.namesrv).toEqual({
      ...defaultsOf(namesrvConfig),
      kvConfigPath: "/srv/kv.json",
      configStorePath: join(host.homeDir, "rocketbun", "namesrv", "namesrv-runtime.properties"),
      orderMessageEnable: true,
      scanNotActiveBrokerInterval: 10000,
    });
    expect(config.nettyServer).toEqual({
      ...defaultsOf(nettyServerConfig),
      listenPort: 9877,
      serverChannelMaxIdleTimeSeconds: 60,
    });
    expect(config.nettyClient).toEqual({ ...defaultsOf(nettyClientConfig), connectTimeoutMillis: 1000 });
  });

  test("ROCKETBUN_NAMESRV_PORT beats the file; the result is deeply frozen", async () => {
    const path = await file("ns-port.properties", "listenPort=9877\n");
    const { config } = await load("namesrv", { file: path, env: { ROCKETBUN_NAMESRV_PORT: "19876" } });
    expect(config.nettyServer.listenPort).toEqual(19876);
    expect([
      Object.isFrozen(config),
      Object.isFrozen(config.nettyServer),
      Object.isFrozen(config.namesrv),
    ]).toEqual([true, true, true]);
  });
});

describe("broker", () => {
  test("a typical broker.conf loads into the broker, store and netty sections", async () => {
    const path = await file("broker.conf", BROKER_CONF);
    const { config, ignoredKeys } = await load("broker", {
      file: path,
      env: { NAMESRV_ADDR: "127.0.0.1:9876" },
    });
    expect(config.broker).toEqual({
      ...defaultsOf(brokerConfig),
      brokerClusterName: "DefaultCluster",
      brokerName: "broker-a",
      brokerId: 0,
      namesrvAddr: "10.0.0.1:9876;10.0.0.2:9876",
      brokerIP1: "10.0.0.5",
      brokerIP2: host.localAddress,
      brokerConfigPath: "/data/rocketmq/store/config/broker-runtime.properties",
      autoCreateTopicEnable: false,
      sendMessageThreadPoolNums: 16,
    });
    expect(config.messageStore).toEqual({
      ...defaultsOf(messageStoreConfig),
      storePathRootDir: "/data/rocketmq/store",
      storePathCommitLog: "/data/rocketmq/store/commitlog",
      deleteWhen: "04",
      fileReservedTime: 48,
      brokerRole: "ASYNC_MASTER",
      flushDiskType: "ASYNC_FLUSH",
      mappedFileSizeCommitLog: 536870912,
      maxMessageSize: 8388608,
      messageDelayLevel: "1s 5s 10s 30s 1m 2m 3m 4m 5m 6m 7m 8m 9m 10m 20m 30m 1h 2h 4h",
      haListenPort: 10922,
    });
    expect(config.nettyServer).toEqual({ ...defaultsOf(nettyServerConfig), listenPort: 10921 });
    expect(config.limits).toEqual(defaultsOf(rocketbunBrokerConfig));
    expect(ignoredKeys).toEqual([]);
  });

  test("without a file: port 10911, host name and address, NAMESRV_ADDR, paths under ROCKETBUN_HOME", async () => {
    const home = join(dir, "bunhome");
    const { config } = await load("broker", {
      env: { NAMESRV_ADDR: "10.1.1.1:9876", ROCKETBUN_HOME: home, ROCKETMQ_HOME: "/opt/rocketmq" },
    });
    expect(config.broker).toEqual({
      ...defaultsOf(brokerConfig),
      brokerName: "mq-host-1",
      brokerIP1: "192.0.2.10",
      brokerIP2: "192.0.2.10",
      namesrvAddr: "10.1.1.1:9876",
      rocketmqHome: "/opt/rocketmq",
      brokerConfigPath: join(home, "store", "config", "broker-runtime.properties"),
    });
    expect(config.messageStore).toEqual({
      ...defaultsOf(messageStoreConfig),
      storePathRootDir: join(home, "store"),
      storePathCommitLog: join(home, "store", "commitlog"),
      haListenPort: 10912,
    });
    expect([config.nettyServer.listenPort, config.rocketbun.rocketbunHome]).toEqual([10911, home]);
  });

  test("precedence: defaults < file < ROCKETBUN_BROKER_PORT < command line", async () => {
    const path = await file("port.conf", "listenPort=10921\n");
    const env = { ROCKETBUN_BROKER_PORT: "10931" };
    const fromEnv = await load("broker", { file: path, env });
    const fromFlag = await load("broker", { file: path, env, overrides: { listenPort: "10941" } });
    expect([fromEnv.config.nettyServer.listenPort, fromFlag.config.nettyServer.listenPort]).toEqual([
      10931, 10941,
    ]);
  });

  test("a master's brokerId is forced to 0; a SLAVE without a positive id is an error", async () => {
    const master = await load("broker", {
      file: await file("m.conf", "brokerId=3\nbrokerRole=SYNC_MASTER\n"),
    });
    expect(master.config.broker.brokerId).toEqual(0);
    const slave = await file("s.conf", "brokerRole=SLAVE\n");
    expect(await configError(load("broker", { file: slave }))).toEqual(
      `${slave}:1: brokerId: a SLAVE needs brokerId > 0`,
    );
    const ok = await load("broker", { file: await file("s1.conf", "brokerRole=SLAVE\nbrokerId=1\n") });
    expect(ok.config.broker.brokerId).toEqual(1);
  });

  test("RocketMQ's DLedger sample loads; the DLedger keys are accepted and reported as ignored", async () => {
    const path = await file(
      "dledger.conf",
      "brokerClusterName = RaftCluster\nbrokerName=RaftNode00\nlistenPort=30911\nnamesrvAddr=127.0.0.1:9876\n" +
        "storePathRootDir=/tmp/rmqstore/node00\nstorePathCommitLog=/tmp/rmqstore/node00/commitlog\n" +
        "enableDLegerCommitLog=true\ndLegerGroup=RaftNode00\n" +
        "dLegerPeers=n0-127.0.0.1:40911;n1-127.0.0.1:40912;n2-127.0.0.1:40913\ndLegerSelfId=n0\n" +
        "sendMessageThreadPoolNums=16\n",
    );
    const { config, ignoredKeys } = await load("broker", { file: path });
    expect(ignoredKeys).toEqual(["dLegerGroup", "dLegerPeers", "dLegerSelfId", "enableDLegerCommitLog"]);
    expect([config.broker.brokerClusterName, config.nettyServer.listenPort]).toEqual(["RaftCluster", 30911]);
  });

  test("an ISO-8859-1 file (Java's default encoding) is read", async () => {
    const path = await file("latin1.conf", new Uint8Array([...Buffer.from("brokerName=br"), 0xe9, 0x0a]));
    expect((await load("broker", { file: path })).config.broker.brokerName).toEqual("bré");
  });
});

describe("errors name the file, the key and the problem", () => {
  test("unknown keys are listed with their lines and a suggestion", async () => {
    const path = await file("typo.conf", "brokerName=a\nbrokerNmae=b\nlistenport=1\nzzzzzzzzz=1\n");
    expect(await configError(load("broker", { file: path }))).toEqual(
      [
        `${path}:2: brokerNmae: unknown key (did you mean brokerName?)`,
        `${path}:3: listenport: unknown key (did you mean listenPort?)`,
        `${path}:4: zzzzzzzzz: unknown key`,
      ].join("\n"),
    );
  });

  test("a key of another role is unknown", async () => {
    const path = await file("ns-with-broker-key.properties", "brokerName=broker-a\n");
    expect(await configError(load("namesrv", { file: path }))).toEqual(`${path}:1: brokerName: unknown key`);
  });

  test("bad values name the line, key, value and type; all are reported", async () => {
    const path = await file(
      "bad.conf",
      "# bad\nlistenPort=abc\nflushDiskType=async\nautoCreateTopicEnable=yes\n",
    );
    expect(await configError(load("broker", { file: path }))).toEqual(
      [
        `${path}:2: listenPort: "abc" is not an int`,
        `${path}:3: flushDiskType: "async" is not one of ASYNC_FLUSH, SYNC_FLUSH`,
        `${path}:4: autoCreateTopicEnable: "yes" is not a bool (true or false)`,
      ].join("\n"),
    );
  });

  test("an empty store root or home is refused rather than turned into relative paths", async () => {
    const path = await file("empty.conf", "storePathRootDir=\nrocketbunHome=\n");
    expect(await configError(load("broker", { file: path }))).toEqual(
      [`${path}:2: rocketbunHome: must not be empty`, `${path}:1: storePathRootDir: must not be empty`].join(
        "\n",
      ),
    );
  });

  test("a bad environment variable is named", async () => {
    expect(await configError(load("broker", { env: { ROCKETBUN_BROKER_PORT: "x" } }))).toEqual(
      'environment variable ROCKETBUN_BROKER_PORT: listenPort: "x" is not an int',
    );
    expect(await configError(load("broker", { env: { NAMESRV_ADDR: "nope" } }))).toEqual(
      `environment variable NAMESRV_ADDR: namesrvAddr: "nope" is not a list of host:port separated by ';' (bad part "nope")`,
    );
  });

  test("a missing file, a directory and a malformed escape", async () => {
    const missing = join(dir, "missing.conf");
    expect(await configError(load("broker", { file: missing }))).toEqual(`${missing}: config file not found`);
    const sub = join(dir, "a-directory");
    await mkdir(sub, { recursive: true });
    expect(await configError(load("broker", { file: sub }))).toEqual(
      `${sub}: is a directory, not a config file`,
    );
    const esc = await file("esc.conf", "brokerName=a\nbrokerIP1=\\u00zz\n");
    expect(await configError(load("broker", { file: esc }))).toEqual(
      `${esc}:2: malformed \\uXXXX escape "\\u00zz"`,
    );
  });

  test("an override of an unknown key is reported as from the command line", async () => {
    expect(await configError(load("gateway", { overrides: { gatewayPortt: "1" } }))).toEqual(
      "command line: gatewayPortt: unknown key (did you mean gatewayPort?)",
    );
  });
});

describe("gateway and start", () => {
  test("gateway: NAMESRV_ADDR and ROCKETBUN_GATEWAY_PORT, flags win", async () => {
    const env = { NAMESRV_ADDR: "10.0.0.1:9876", ROCKETBUN_GATEWAY_PORT: "8081" };
    expect((await load("gateway", { env })).config.gateway).toEqual({
      ...defaultsOf(gatewayConfig),
      namesrvAddr: "10.0.0.1:9876",
      gatewayPort: 8081,
    });
    const flagged = await load("gateway", { env, overrides: { gatewayPort: "9090", namesrvAddr: "h:1" } });
    expect(flagged.config.gateway).toEqual({
      ...defaultsOf(gatewayConfig),
      namesrvAddr: "h:1",
      gatewayPort: 9090,
    });
  });

  test("start: the broker's listenPort and the NameServer's port are separate; both clients use the local NameServer", async () => {
    const path = await file(
      "start.conf",
      "listenPort=10921\nbrokerName=solo\nserverChannelMaxIdleTimeSeconds=30\n",
    );
    const { config } = await load("start", {
      file: path,
      env: { NAMESRV_ADDR: "10.9.9.9:9876", ROCKETBUN_NAMESRV_PORT: "9886" },
      overrides: { gatewayPort: "8088" },
    });
    expect(config.start).toEqual({ ...defaultsOf(startConfig), namesrvListenPort: 9886 });
    expect(config.namesrv.nettyServer).toEqual({
      ...defaultsOf(nettyServerConfig),
      listenPort: 9886,
      serverChannelMaxIdleTimeSeconds: 30,
      bindAddress: "127.0.0.1",
    });
    expect(config.broker.nettyServer).toEqual({
      ...defaultsOf(nettyServerConfig),
      listenPort: 10921,
      serverChannelMaxIdleTimeSeconds: 30,
      bindAddress: "127.0.0.1",
    });
    expect([config.broker.broker.namesrvAddr, config.broker.broker.brokerName]).toEqual([
      "127.0.0.1:9886",
      "solo",
    ]);
    expect(config.gateway.gateway).toEqual({
      ...defaultsOf(gatewayConfig),
      gatewayPort: 8088,
      namesrvAddr: "127.0.0.1:9886",
      gatewayBindAddress: "127.0.0.1",
    });
  });

  test("start: a bad shared value is reported once", async () => {
    const path = await file("start-bad.conf", "connectTimeoutMillis=soon\n");
    expect(await configError(load("start", { file: path }))).toEqual(
      `${path}:1: connectTimeoutMillis: "soon" is not an int`,
    );
  });
});
