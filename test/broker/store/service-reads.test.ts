/**
 * The store reads the schedule and timer services rely on, for both stores: consume-queue units
 * with their tags slot (a delivery time in SCHEDULE_TOPIC_XXXX, the slot time in the timer topic,
 * negated for a delete entry) and records by span. The file store rebuilds the same slots from
 * the CommitLog when its consume queues are deleted.
 */
import { describe, expect, test } from "bun:test";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { FileMessageStore } from "../../../broker/store/file-store.ts";
import { MemoryMessageStore } from "../../../broker/store/memory-store.ts";
import type { MessageStore } from "../../../broker/store/message-store.ts";
import { decodeRecord, javaStringHash } from "../../../src/protocol/message/index.ts";
import { manualClock, message, tempDir, text } from "./helpers.ts";

const LEVELS = "1s 5s 10s";
const NOW = 1_700_000_000_000;

/** Puts one of each kind; returns what the units' tags slots must hold, in put order. */
async function putKinds(store: MessageStore) {
  await store.putMessage(message("T", 0, "plain", { TAGS: "TagA" }));
  await store.putMessage(message("SCHEDULE_TOPIC_XXXX", 1, "level 2", { DELAY: "2", REAL_TOPIC: "T" }));
  await store.putMessage(message("rmq_sys_wheel_timer", 0, "timer", { TIMER_OUT_MS: String(NOW + 7000) }));
  await store.putMessage(
    message("rmq_sys_wheel_timer", 0, "delete", {
      TIMER_OUT_MS: String(NOW + 7000),
      TIMER_DEL_UNIQKEY: "T+U",
    }),
  );
  await store.putMessage(message("rmq_sys_wheel_timer", 0, "no slot", { TAGS: "x" }));
}

async function slots(store: MessageStore) {
  const units = [
    ...(await store.readQueueUnits("T", 0, 0, 10)),
    ...(await store.readQueueUnits("SCHEDULE_TOPIC_XXXX", 1, 0, 10)),
    ...(await store.readQueueUnits("rmq_sys_wheel_timer", 0, 0, 10)),
  ];
  const records = await store.readRecords(units.map((u) => [u.phyOffset, u.size] as const));
  return units.map((u, i) => [text(decodeRecord(records[i]!).body), u.queueOffset, u.tagsCode]);
}

const EXPECTED = [
  ["plain", 0, javaStringHash("TagA")],
  ["level 2", 0, NOW + 5000],
  ["timer", 0, NOW + 7000],
  ["delete", 1, -(NOW + 7000)],
  ["no slot", 2, 0],
];

describe("store reads for the schedule and timer services", () => {
  test("memory store: units carry the delivery time, the slot time, or the negated slot of a delete entry", async () => {
    const store = new MemoryMessageStore({ messageDelayLevel: LEVELS }, manualClock(NOW).now);
    await store.open();
    await putKinds(store);
    expect(await slots(store)).toEqual(EXPECTED);
  });

  test("file store: the same slots, and the same again when the consume queues are rebuilt from the CommitLog", async () => {
    await using dir = await tempDir();
    const open = async () => {
      const store = new FileMessageStore(
        { storePathRootDir: dir.path, messageDelayLevel: LEVELS },
        { now: manualClock(NOW).now },
      );
      await store.open();
      return store;
    };
    const first = await open();
    await putKinds(first);
    const before = await slots(first);
    await first.shutdown();
    await rm(join(dir.path, "consumequeue"), { recursive: true, force: true });
    await rm(join(dir.path, "checkpoint"), { force: true });
    const again = await open();
    try {
      expect({ before, rebuilt: await slots(again) }).toEqual({ before: EXPECTED, rebuilt: EXPECTED });
      // A span that is not a record reads as undefined.
      const [unit] = await again.readQueueUnits("T", 0, 0, 1);
      expect(await again.readRecords([[unit!.phyOffset + 1, unit!.size]])).toEqual([undefined]);
    } finally {
      await again.shutdown();
    }
  });
});
