import { describe, expect, test } from "bun:test";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ConsumerOffsets } from "../../../broker/metadata/consumer-offsets.ts";
import { DelayOffsets } from "../../../broker/metadata/delay-offsets.ts";
import { parseLenientJson } from "../../../broker/metadata/json-file.ts";
import { SubscriptionGroups, subscriptionGroupConfig } from "../../../broker/metadata/subscription-groups.ts";
import { TopicConfigs } from "../../../broker/metadata/topic-configs.ts";
import { logger } from "../../../src/log.ts";
import { topicConfig } from "../../../src/protocol/route/topic-config.ts";
import { tempDir } from "../store/helpers.ts";

const log = logger("test");
const now = () => 1_700_000_000_000;

describe("broker metadata files", () => {
  test("fastjson's unquoted integer keys are read; strings containing such text are left alone", () => {
    expect(parseLenientJson('{"offsetTable":{"T@g":{0:12,1:7}},"s":"{3:4}"}')).toEqual({
      offsetTable: { "T@g": { "0": 12, "1": 7 } },
      s: "{3:4}",
    });
  });

  test("a Java-written consumerOffset.json loads, and persisting round-trips through the same shape", async () => {
    await using dir = await tempDir();
    const offsets = new ConsumerOffsets(dir.path, log, now);
    await mkdir(join(dir.path, "config"));
    await writeFile(offsets.path, '{"offsetTable":{"orders@billing":{0:12,3:7}}}');
    await offsets.load();
    expect([offsets.query("billing", "orders", 3), offsets.query("billing", "orders", 1)]).toEqual([7, -1]);
    offsets.commit("billing", "orders", 1, 99);
    await offsets.persist();
    expect(JSON.parse(await readFile(offsets.path, "utf8"))).toEqual({
      offsetTable: { "orders@billing": { "0": 12, "1": 99, "3": 7 } },
    });
    // The previous version is kept as .bak, and used when the main file is damaged.
    await writeFile(offsets.path, "{not json");
    const again = new ConsumerOffsets(dir.path, log, now);
    await again.load();
    expect(again.query("billing", "orders", 0)).toBe(12);
  });

  test("topics.json and subscriptionGroup.json use RocketMQ's field names and bump dataVersion", async () => {
    await using dir = await tempDir();
    const topics = new TopicConfigs(dir.path, log, now);
    await topics.load();
    topics.put(topicConfig("orders", { readQueueNums: 4, writeQueueNums: 4 }));
    await topics.shutdown();
    expect(JSON.parse(await readFile(topics.path, "utf8"))).toEqual({
      dataVersion: { counter: 1, stateVersion: 0, timestamp: now() },
      topicConfigTable: {
        orders: {
          topicName: "orders",
          readQueueNums: 4,
          writeQueueNums: 4,
          perm: 6,
          topicFilterType: "SINGLE_TAG",
          topicSysFlag: 0,
          order: false,
          attributes: {},
        },
      },
    });
    const groups = new SubscriptionGroups(dir.path, log, now);
    await groups.load();
    expect(groups.get("TOOLS_CONSUMER")).toEqual(subscriptionGroupConfig("TOOLS_CONSUMER"));
    groups.put({ ...subscriptionGroupConfig("billing"), retryMaxTimes: 3 });
    await groups.persist();
    const reread = new SubscriptionGroups(dir.path, log, now);
    await reread.load();
    expect([reread.get("billing")?.retryMaxTimes, reread.dataVersion.counter]).toEqual([3, 1]);
  });

  test("delayOffset.json keeps the next offset per level", async () => {
    await using dir = await tempDir();
    const d = new DelayOffsets(dir.path, log, now);
    await d.load();
    d.set(1, 15);
    d.set(3, 7);
    await d.persist();
    const written = JSON.parse(await readFile(d.path, "utf8"));
    // 5.x writes a data version beside the table; each change moves it on.
    expect({ ...written, dataVersion: written.dataVersion.counter }).toEqual({
      offsetTable: { "1": 15, "3": 7 },
      dataVersion: 2,
    });
    const d2 = new DelayOffsets(dir.path, log, now);
    await d2.load();
    expect([d2.get(1), d2.get(2), d2.get(3)]).toEqual([15, 0, 7]);
  });
});
