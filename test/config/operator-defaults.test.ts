/**
 * Issue 20's defaults: one home (~/rocketbun) for every role, a home that cannot be a directory
 * named before anything starts, every problem of a load in one report, `start` on loopback, and a
 * broker bound to one address publishing that address.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { HostFacts } from "../../src/config/host.ts";
import { type LoadOptions, loadRoleConfig } from "../../src/config/load.ts";
import { configureLogOutput, consoleFormatOf, logger, setLogLevel } from "../../src/log.ts";
import { configError } from "./helpers.ts";

let dir = "";
let host: HostFacts;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "rocketbun-opdefaults-"));
  host = { homeDir: join(dir, "user"), hostName: "mq-host-1", localAddress: "192.0.2.10" };
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const load = <R extends "namesrv" | "broker" | "gateway" | "start">(role: R, options: LoadOptions = {}) =>
  loadRoleConfig(role, { env: {}, host, ...options });

describe("one home", () => {
  test("every role keeps its data under ~/rocketbun by default", async () => {
    const home = join(host.homeDir, "rocketbun");
    expect((await load("broker")).config.messageStore.storePathRootDir).toBe(join(home, "store"));
    expect((await load("namesrv")).config.namesrv.kvConfigPath).toBe(join(home, "namesrv", "kvConfig.json"));
    expect((await load("start")).config.broker.messageStore.storePathRootDir).toBe(join(home, "store"));
  });

  test("a home that is a file, or under one, is named as the problem", async () => {
    const blocker = join(dir, "a-file");
    await writeFile(blocker, "x");
    const msg = await configError(load("broker", { overrides: { rocketbunHome: blocker } }));
    expect(msg).toContain(`rocketbunHome`);
    expect(msg).toContain(`${blocker} is not a directory`);
    const below = await configError(
      load("namesrv", { overrides: { rocketbunHome: join(blocker, "x", "y") } }),
    );
    expect(below).toContain(`cannot be created: ${blocker} is not a directory`);
  });

  test("a home that does not exist yet but can be created is fine", async () => {
    const fresh = join(dir, "new", "deeper");
    const { config } = await load("broker", { overrides: { rocketbunHome: fresh } });
    expect(config.rocketbun.rocketbunHome).toBe(fresh);
  });
});

test("unknown keys and bad values of one file are reported together", async () => {
  const path = join(dir, "broker.conf");
  await writeFile(path, "listenPortt=1\nflushDiskType=SOMETIMES\nbrokerId=abc\n");
  const msg = await configError(load("broker", { file: path }));
  expect(msg).toContain("listenPortt");
  expect(msg).toContain("flushDiskType");
  expect(msg).toContain("brokerId");
});

describe("addresses", () => {
  test("start listens on loopback unless told otherwise; bindAddress opens every server", async () => {
    const local = (await load("start")).config;
    expect([
      local.namesrv.nettyServer.bindAddress,
      local.broker.nettyServer.bindAddress,
      local.gateway.gateway.gatewayBindAddress,
    ]).toEqual(["127.0.0.1", "127.0.0.1", "127.0.0.1"]);
    const open = (
      await load("start", { overrides: { bindAddress: "0.0.0.0", gatewayBindAddress: "0.0.0.0" } })
    ).config;
    expect([open.namesrv.nettyServer.bindAddress, open.broker.nettyServer.bindAddress]).toEqual([
      "0.0.0.0",
      "0.0.0.0",
    ]);
  });

  test("a broker bound to one address publishes it as brokerIP1; on every interface, the host's address", async () => {
    const bound = (await load("broker", { overrides: { bindAddress: "127.0.0.1" } })).config;
    expect(bound.broker.brokerIP1).toBe("127.0.0.1");
    const wildcard = (await load("broker")).config;
    expect(wildcard.broker.brokerIP1).toBe("192.0.2.10");
    const given = (await load("broker", { overrides: { bindAddress: "127.0.0.1", brokerIP1: "10.0.0.5" } }))
      .config;
    expect(given.broker.brokerIP1).toBe("10.0.0.5");
  });
});

describe("log output", () => {
  test("auto is pretty on a terminal and JSON on a pipe; explicit formats win", () => {
    expect(consoleFormatOf("auto", true)).toBe("pretty");
    expect(consoleFormatOf("auto", false)).toBe("json");
    expect(consoleFormatOf("json", true)).toBe("json");
    expect(consoleFormatOf("pretty", false)).toBe("pretty");
  });

  test("logDir gets JSON lines in rocketbun.*.log", async () => {
    const logDir = join(dir, "logs");
    await mkdir(logDir);
    await configureLogOutput({ format: "json", dir: logDir, isTty: false });
    setLogLevel("info");
    try {
      logger("test").info({ marker: 42 }, "written to the log file");
      await Bun.sleep(200);
      const files = (await readdir(logDir)).filter((f) => f.startsWith("rocketbun"));
      expect(files.length).toBe(1);
      const text = await readFile(join(logDir, files[0]!), "utf8");
      const line = JSON.parse(text.trim().split("\n").at(-1)!);
      expect([line.msg, line.marker, line.component]).toEqual(["written to the log file", 42, "test"]);
    } finally {
      setLogLevel("silent");
      await configureLogOutput({ format: "json", dir: "", isTty: false });
    }
  });
});

describe("the sample configs in conf/", () => {
  const conf = (name: string) => join(import.meta.dir, "..", "..", "conf", name);

  test("conf/broker.conf loads and sets what its comments say", async () => {
    const { config } = await load("broker", { file: conf("broker.conf") });
    expect([config.broker.brokerName, config.nettyServer.bindAddress, config.broker.brokerIP1]).toEqual([
      "broker-a",
      "127.0.0.1",
      "127.0.0.1",
    ]);
  });

  test("conf/namesrv.properties loads", async () => {
    const { config } = await load("namesrv", { file: conf("namesrv.properties") });
    expect(config.nettyServer.listenPort).toBe(9876);
  });

  test("the two masters of conf/2m-noslave differ in name, port and store", async () => {
    const a = (await load("broker", { file: conf("2m-noslave/broker-a.conf") })).config;
    const b = (await load("broker", { file: conf("2m-noslave/broker-b.conf") })).config;
    expect([a.broker.brokerName, b.broker.brokerName]).toEqual(["broker-a", "broker-b"]);
    expect([a.nettyServer.listenPort, b.nettyServer.listenPort]).toEqual([10911, 10921]);
    expect(a.messageStore.storePathRootDir).not.toBe(b.messageStore.storePathRootDir);
  });
});
