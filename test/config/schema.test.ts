import { describe, expect, test } from "bun:test";
import { brokerConfig } from "../../src/config/broker-config.ts";
import { ConfigError } from "../../src/config/errors.ts";
import { messageStoreConfig } from "../../src/config/message-store-config.ts";
import { namesrvConfig } from "../../src/config/namesrv-config.ts";
import {
  DEFAULT_SERVER_ASYNC_SEMAPHORE_VALUE,
  DEFAULT_SERVER_ONEWAY_SEMAPHORE_VALUE,
  nettyServerConfig,
} from "../../src/config/netty-config.ts";
import {
  claims,
  defaultsOf,
  defineSection,
  parseSection,
  unknownKeys,
  validateSection,
} from "../../src/config/schema.ts";

const demo = defineSection(
  "demoConfig",
  {
    port: { type: "int", default: 9876, min: 0, max: 65535 },
    offset: { type: "long", default: 0 },
    enabled: { type: "bool", default: false },
    name: {
      type: "string",
      default: "x",
      check: (v) => (v.includes("/") ? "must not contain /" : undefined),
    },
    mode: { type: "enum", default: "ASYNC_FLUSH", enumValues: ["ASYNC_FLUSH", "SYNC_FLUSH"] },
  },
  { ignoredKeys: ["serverSelectorThreads"] },
);

describe("defineSection / parseSection", () => {
  test("no entries gives the defaults", () => {
    expect(parseSection(demo, {})).toEqual({
      port: 9876,
      offset: 0,
      enabled: false,
      name: "x",
      mode: "ASYNC_FLUSH",
    });
  });

  test("entries are converted to their declared types and trimmed", () => {
    const values = parseSection(demo, {
      port: " 10911 ",
      offset: "-9007199254740991",
      enabled: "TRUE",
      name: "  broker-a ",
      mode: "SYNC_FLUSH",
    });
    expect(values).toEqual({
      port: 10911,
      offset: -9007199254740991,
      enabled: true,
      name: "broker-a",
      mode: "SYNC_FLUSH",
    });
  });

  test("role defaults replace table defaults, and input replaces both", () => {
    expect(parseSection(demo, { name: "file" }, { port: 10911, name: "role" })).toEqual({
      port: 10911,
      offset: 0,
      enabled: false,
      name: "file",
      mode: "ASYNC_FLUSH",
    });
  });

  test("the result is frozen", () => {
    const values = parseSection(demo, {});
    expect(Object.isFrozen(values)).toBe(true);
    expect(() => {
      (values as { port: number }).port = 1;
    }).toThrow(TypeError);
  });

  test("booleans accept true/false in any case and nothing else", () => {
    expect(["true", "False", "TRUE"].map((v) => parseSection(demo, { enabled: v }).enabled)).toEqual([
      true,
      false,
      true,
    ]);
    expect(() => parseSection(demo, { enabled: "yes" })).toThrow(
      'enabled: "yes" is not a bool (true or false)',
    );
  });

  test("each bad value names the key, the value and the expected type, all at once", () => {
    let error: unknown;
    try {
      parseSection(demo, { port: "abc", offset: "1.5", enabled: "1", mode: "async", name: "a/b" });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([
      { origin: undefined, key: "port", message: '"abc" is not an int' },
      { origin: undefined, key: "offset", message: '"1.5" is not a long' },
      { origin: undefined, key: "enabled", message: '"1" is not a bool (true or false)' },
      { origin: undefined, key: "name", message: "must not contain /" },
      { origin: undefined, key: "mode", message: '"async" is not one of ASYNC_FLUSH, SYNC_FLUSH' },
    ]);
    expect((error as ConfigError).message).toEqual(
      [
        'port: "abc" is not an int',
        'offset: "1.5" is not a long',
        'enabled: "1" is not a bool (true or false)',
        "name: must not contain /",
        'mode: "async" is not one of ASYNC_FLUSH, SYNC_FLUSH',
      ].join("\n"),
    );
  });

  test("ranges: declared min/max, Java int range, safe long range", () => {
    expect(() => parseSection(demo, { port: "70000" })).toThrow("port: 70000 is above the maximum 65535");
    expect(() => parseSection(demo, { port: "-1" })).toThrow("port: -1 is below the minimum 0");
    expect(() => parseSection(nettyServerConfig, { serverWorkerThreads: "2147483648" })).toThrow(
      "serverWorkerThreads: 2147483648 is above the maximum 2147483647",
    );
    expect(() => parseSection(demo, { offset: "9007199254740993" })).toThrow(
      "offset: 9007199254740993 is above the maximum 9007199254740991",
    );
  });

  test("validateSection names the origin of a bad value", () => {
    const result = validateSection(demo, new Map([["port", "x"]]), {}, () => "broker.conf:4");
    expect(result).toEqual({
      ok: false,
      problems: [{ origin: "broker.conf:4", key: "port", message: '"x" is not an int' }],
    });
  });

  test("a bad table default fails when the section is declared", () => {
    expect(() => defineSection("bad", { p: { type: "int", default: 5, max: 4 } })).toThrow(
      "bad.p: default 5 is above the maximum 4",
    );
    expect(() =>
      defineSection("bad", { m: { type: "enum", default: "C", enumValues: ["A", "B"] as string[] } }),
    ).toThrow('bad.m: default "C" is not one of A, B');
  });
});

describe("claims / unknownKeys", () => {
  test("a section claims its fields and its accepted-and-ignored Java keys", () => {
    expect([claims(demo, "port"), claims(demo, "serverSelectorThreads"), claims(demo, "nope")]).toEqual([
      true,
      true,
      false,
    ]);
  });

  test("unknown keys are listed by name in input order", () => {
    expect(unknownKeys([demo, namesrvConfig], ["port", "brokerNmae", "kvConfigPath", "zzz"])).toEqual([
      "brokerNmae",
      "zzz",
    ]);
  });
});

describe("RocketMQ sections", () => {
  test("netty server defaults are RocketMQ's", () => {
    const d = defaultsOf(nettyServerConfig);
    expect({
      bindAddress: d.bindAddress,
      serverOnewaySemaphoreValue: d.serverOnewaySemaphoreValue,
      serverAsyncSemaphoreValue: d.serverAsyncSemaphoreValue,
      serverChannelMaxIdleTimeSeconds: d.serverChannelMaxIdleTimeSeconds,
      serverSocketBacklog: d.serverSocketBacklog,
    }).toEqual({
      bindAddress: "0.0.0.0",
      serverOnewaySemaphoreValue: DEFAULT_SERVER_ONEWAY_SEMAPHORE_VALUE,
      serverAsyncSemaphoreValue: DEFAULT_SERVER_ASYNC_SEMAPHORE_VALUE,
      serverChannelMaxIdleTimeSeconds: 120,
      serverSocketBacklog: 1024,
    });
  });

  test("broker and store defaults from the spec table", () => {
    const b = defaultsOf(brokerConfig);
    const s = defaultsOf(messageStoreConfig);
    expect([
      b.brokerClusterName,
      b.brokerId,
      b.defaultTopicQueueNums,
      b.registerNameServerPeriod,
      b.autoCreateTopicEnable,
    ]).toEqual(["DefaultCluster", 0, 8, 30000, true]);
    expect([
      s.mappedFileSizeCommitLog,
      s.mappedFileSizeConsumeQueue,
      s.flushDiskType,
      s.brokerRole,
      s.deleteWhen,
      s.fileReservedTime,
      s.diskMaxUsedSpaceRatio,
      s.maxMessageSize,
      s.flushIntervalCommitLog,
    ]).toEqual([1073741824, 6000000, "ASYNC_FLUSH", "ASYNC_MASTER", "04", 72, 75, 4194304, 500]);
  });

  test("value checks: address lists, hours, delay levels", () => {
    expect(() => parseSection(brokerConfig, { namesrvAddr: "127.0.0.1:9876;nohost" })).toThrow(
      `namesrvAddr: "127.0.0.1:9876;nohost" is not a list of host:port separated by ';' (bad part "nohost")`,
    );
    expect(parseSection(brokerConfig, { namesrvAddr: "a:1;[::1]:9876;" }).namesrvAddr).toEqual(
      "a:1;[::1]:9876;",
    );
    expect(parseSection(messageStoreConfig, { deleteWhen: "04;16" }).deleteWhen).toEqual("04;16");
    expect(() => parseSection(messageStoreConfig, { deleteWhen: "25" })).toThrow(
      `deleteWhen: "25" is not a list of hours 0-23 separated by ';'`,
    );
    expect(() => parseSection(messageStoreConfig, { messageDelayLevel: "1s 5x" })).toThrow(
      `messageDelayLevel: "1s 5x" is not a list of durations like "1s 5s 1m 2h"`,
    );
  });

  test("Java keys without meaning here are claimed, not fields", () => {
    expect([
      claims(brokerConfig, "enablePopLog"),
      Object.hasOwn(brokerConfig.fields, "enablePopLog"),
    ]).toEqual([true, false]);
    expect(claims(messageStoreConfig, "enableDLegerCommitLog")).toBe(true);
  });
});
