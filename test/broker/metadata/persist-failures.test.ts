import { expect, test } from "bun:test";
import { readFile } from "node:fs/promises";
import { ConsumerOffsets } from "../../../broker/metadata/consumer-offsets.ts";
import { writeJsonFile } from "../../../broker/metadata/json-file.ts";
import { SubscriptionGroups, subscriptionGroupConfig } from "../../../broker/metadata/subscription-groups.ts";
import { TopicConfigs } from "../../../broker/metadata/topic-configs.ts";
import { TopicManager } from "../../../broker/topics/topic-manager.ts";
import { topicConfig } from "../../../src/protocol/route/topic-config.ts";
import { type FlakyWriter, flakyWriter } from "../../support/flaky-writer.ts";
import { waitFor } from "../../support/rocketbun-child.ts";
import { silent } from "../../support/silent.ts";
import { tempDir } from "../store/helpers.ts";

const now = () => 1_700_000_000_000;

const options = (w: FlakyWriter) => ({ write: w.write, retryMs: 1 });

test("topics.json: a failed write leaves the old file intact and the retry writes the latest table", async () => {
  await using dir = await tempDir();
  const writer = flakyWriter(writeJsonFile);
  const topics = new TopicConfigs(dir.path, silent, now, options(writer));
  await topics.load();
  topics.put(topicConfig("A", { readQueueNums: 1, writeQueueNums: 1 }));
  expect(await topics.persist()).toBe(true);
  const before = await readFile(topics.path);

  writer.failing = true;
  topics.put(topicConfig("B"));
  expect(await topics.persist()).toBe(false);
  topics.put(topicConfig("C"));
  await waitFor("a failed retry", () => writer.attempts >= 3);
  expect(await readFile(topics.path)).toEqual(before);

  writer.failing = false;
  await waitFor("topics.json with the latest table", async () => {
    const saved = JSON.parse(await readFile(topics.path, "utf8"));
    return Object.keys(saved.topicConfigTable).join() === "A,B,C";
  });
  await topics.shutdown();
});

test("a topic created while topics.json cannot be written is in effect and reported; the file catches up", async () => {
  await using dir = await tempDir();
  const writer = flakyWriter(writeJsonFile);
  const table = new TopicConfigs(dir.path, silent, now, options(writer));
  const manager = new TopicManager(
    {
      brokerClusterName: "C",
      brokerName: "b",
      autoCreateTopicEnable: true,
      defaultTopicQueueNums: 8,
      clusterTopicEnable: true,
      brokerTopicEnable: true,
      traceTopicEnable: false,
      brokerPermission: 6,
    },
    table,
  );
  await manager.load();
  const changed: string[] = [];
  manager.onChanged = (_tc, name) => changed.push(name);
  writer.failing = true;
  await manager.put(topicConfig("orders", { readQueueNums: 2, writeQueueNums: 2 }));
  await manager.createIfAbsent("%RETRY%g", 1, 6);
  expect(manager.get("orders")?.writeQueueNums).toBe(2);
  expect(changed).toEqual(["orders", "%RETRY%g"]);
  writer.failing = false;
  await waitFor("topics.json with both topics", async () => {
    const saved = JSON.parse(await readFile(table.path, "utf8"));
    return saved.topicConfigTable.orders && saved.topicConfigTable["%RETRY%g"];
  });
  await table.shutdown();
});

test("consumer offsets and subscription groups: the periodic persist writes the latest state after a failure", async () => {
  await using dir = await tempDir();
  const writer = flakyWriter(writeJsonFile);
  const offsets = new ConsumerOffsets(dir.path, silent, now, { write: writer.write, retryMs: 60_000 });
  const groups = new SubscriptionGroups(dir.path, silent, now, { write: writer.write, retryMs: 60_000 });
  await Promise.all([offsets.load(), groups.load()]);
  writer.failing = true;
  offsets.commit("g", "T", 0, 5);
  groups.put(subscriptionGroupConfig("g"));
  expect([await offsets.persist(), await groups.persist()]).toEqual([false, false]);
  offsets.commit("g", "T", 0, 9);
  writer.failing = false;
  // The scheduled retry is a minute away; the periodic persist gets there first.
  offsets.startPersisting(1);
  groups.startPersisting(1);
  await waitFor("consumerOffset.json with offset 9", async () => {
    const text = await readFile(offsets.path, "utf8").catch(() => "{}");
    return JSON.parse(text).offsetTable?.["T@g"]?.["0"] === 9;
  });
  await waitFor("subscriptionGroup.json with g", async () => {
    const text = await readFile(groups.path, "utf8").catch(() => "{}");
    return JSON.parse(text).subscriptionGroupTable?.g !== undefined;
  });
  expect([await offsets.shutdown(), await groups.shutdown()]).toEqual([true, true]);
});
