/**
 * The MessageStore conformance suite: every implementation (file, memory) must pass it.
 */
import { describe, expect, test } from "bun:test";
import type { MessageStore } from "../../../broker/store/message-store.ts";
import { GetMessageStatus, PutMessageStatus } from "../../../broker/store/status.ts";
import {
  decodeRecord,
  encodeOffsetMessageId,
  javaStringHash,
  MessageSysFlag,
} from "../../../src/protocol/message/index.ts";
import { manualClock, message, STORE_HOST, text } from "./helpers.ts";

export interface StoreHarness extends AsyncDisposable {
  readonly store: MessageStore;
}

export type StoreFactory = (now: () => number) => Promise<StoreHarness>;

const tagFilter = (tag: string) => ({
  isMatchedByConsumeQueue: (code: number) => code === javaStringHash(tag),
});

async function putAll(store: MessageStore, n: number, topic = "T", queueId = 0, tag?: (i: number) => string) {
  const results = [];
  for (let i = 0; i < n; i++) {
    const props: Record<string, string> = { KEYS: `k${i}`, UNIQ_KEY: `U${i}` };
    if (tag) props.TAGS = tag(i);
    results.push(await store.putMessage(message(topic, queueId, `body-${i}`, props)));
  }
  return results;
}

export function runSuite(name: string, factory: StoreFactory): void {
  describe(`MessageStore conformance: ${name}`, () => {
    test("puts get consecutive queue offsets and increasing physical offsets; the msgId is the offset id", async () => {
      const clock = manualClock();
      await using h = await factory(clock.now);
      const r = await putAll(h.store, 3);
      expect(r.map((x) => x.status)).toEqual(["PUT_OK", "PUT_OK", "PUT_OK"]);
      expect(r.map((x) => x.result!.queueOffset)).toEqual([0, 1, 2]);
      const offs = r.map((x) => x.result!.wroteOffset);
      expect(offs[1]).toBe(offs[0]! + r[0]!.result!.wroteBytes);
      expect(r[2]!.result!.msgId).toBe(encodeOffsetMessageId(STORE_HOST, offs[2]!));
      expect(h.store.getMaxOffsetInQueue("T", 0)).toBe(3);
    });

    test("a pull returns the exact stored records, decodable field for field", async () => {
      const clock = manualClock();
      await using h = await factory(clock.now);
      const [put] = await putAll(h.store, 1);
      const g = await h.store.getMessage("g", "T", 0, 0, 32, 1 << 20);
      expect({
        status: g.status,
        next: g.nextBeginOffset,
        min: g.minOffset,
        max: g.maxOffset,
        n: g.messages.length,
      }).toEqual({
        status: GetMessageStatus.FOUND,
        next: 1,
        min: 0,
        max: 1,
        n: 1,
      });
      const d = decodeRecord(g.messages[0]!);
      expect({
        topic: d.topic,
        queueId: d.queueId,
        queueOffset: d.queueOffset,
        phy: d.physicalOffset,
        body: text(d.body),
      }).toEqual({
        topic: "T",
        queueId: 0,
        queueOffset: 0,
        phy: put!.result!.wroteOffset,
        body: "body-0",
      });
      expect(d.storeTimestamp).toBe(clock.now());
      expect(await h.store.lookMessageByOffset(d.physicalOffset)).toEqual(g.messages[0]);
    });

    test("status and next offset follow spec §7.5 for every boundary", async () => {
      await using h = await factory(manualClock().now);
      const s = h.store;
      const pick = (r: Awaited<ReturnType<MessageStore["getMessage"]>>) => [r.status, r.nextBeginOffset];
      expect(pick(await s.getMessage("g", "none", 0, 5, 32, 1 << 20))).toEqual([
        GetMessageStatus.NO_MATCHED_LOGIC_QUEUE,
        0,
      ]);
      await putAll(s, 4);
      expect(pick(await s.getMessage("g", "T", 0, 4, 32, 1 << 20))).toEqual([
        GetMessageStatus.OFFSET_OVERFLOW_ONE,
        4,
      ]);
      expect(pick(await s.getMessage("g", "T", 0, 9, 32, 1 << 20))).toEqual([
        GetMessageStatus.OFFSET_OVERFLOW_BADLY,
        4,
      ]);
      expect(pick(await s.getMessage("g", "T", 0, -1, 32, 1 << 20))).toEqual([
        GetMessageStatus.OFFSET_TOO_SMALL,
        0,
      ]);
      expect(pick(await s.getMessage("g", "T", 0, 1, 2, 1 << 20))).toEqual([GetMessageStatus.FOUND, 3]);
      // The first message is always taken, then the byte limit stops the scan.
      const one = await s.getMessage("g", "T", 0, 0, 32, 1);
      expect([one.status, one.nextBeginOffset, one.messages.length]).toEqual([GetMessageStatus.FOUND, 1, 1]);
    });

    test("the tag filter skips units but still advances the next offset", async () => {
      await using h = await factory(manualClock().now);
      await putAll(h.store, 6, "T", 1, (i) => (i % 3 === 2 ? "B" : "A"));
      const g = await h.store.getMessage("g", "T", 1, 0, 32, 1 << 20, tagFilter("B"));
      expect([g.status, g.nextBeginOffset, g.messages.map((m) => text(decodeRecord(m).body))]).toEqual([
        GetMessageStatus.FOUND,
        6,
        ["body-2", "body-5"],
      ]);
      const none = await h.store.getMessage("g", "T", 1, 0, 32, 1 << 20, tagFilter("C"));
      expect([none.status, none.nextBeginOffset, none.messages]).toEqual([
        GetMessageStatus.NO_MATCHED_MESSAGE,
        6,
        [],
      ]);
    });

    test("a commit-log filter fills the batch with matches, scanning past the records it refuses", async () => {
      await using h = await factory(manualClock().now);
      await putAll(h.store, 12, "T", 1, (i) => (i % 4 === 3 ? "B" : "A"));
      // Refuses every record whose body does not end in 3 or 7 (like an SQL92 filter would).
      const filter = {
        isMatchedByConsumeQueue: () => true,
        isMatchedByCommitLog: (r: Uint8Array) => /[37]$/.test(text(decodeRecord(r).body)),
      };
      const two = await h.store.getMessage("g", "T", 1, 0, 2, 1 << 20, filter);
      expect([two.status, two.nextBeginOffset, two.messages.map((m) => text(decodeRecord(m).body))]).toEqual([
        GetMessageStatus.FOUND,
        8,
        ["body-3", "body-7"],
      ]);
      const rest = await h.store.getMessage("g", "T", 1, 8, 2, 1 << 20, filter);
      expect([rest.status, rest.nextBeginOffset, rest.messages]).toEqual([
        GetMessageStatus.NO_MATCHED_MESSAGE,
        12,
        [],
      ]);
    });

    test("a batch is stored as one record per message with consecutive offsets and comma-joined ids", async () => {
      await using h = await factory(manualClock().now);
      await putAll(h.store, 1, "B", 2);
      const r = await h.store.putMessages([message("B", 2, "x"), message("B", 2, "y"), message("B", 2, "z")]);
      expect([r.status, r.result!.queueOffset, r.result!.msgNum, r.result!.msgId.split(",").length]).toEqual([
        PutMessageStatus.PUT_OK,
        1,
        3,
        3,
      ]);
      const g = await h.store.getMessage("g", "B", 2, 1, 32, 1 << 20);
      expect(g.messages.map((m) => [decodeRecord(m).queueOffset, text(decodeRecord(m).body)])).toEqual([
        [1, "x"],
        [2, "y"],
        [3, "z"],
      ]);
      // Each id is the offset id of its own record, in order.
      expect(r.result!.msgId.split(",")).toEqual(g.messages.map((m) => decodeRecord(m).msgId));
      const mixed = await h.store.putMessages([message("B", 2, "x"), message("B", 3, "y")]);
      expect(mixed.status).toBe(PutMessageStatus.MESSAGE_ILLEGAL);
    });

    test("oversized bodies and properties are refused with the spec's statuses", async () => {
      await using h = await factory(manualClock().now);
      const big = await h.store.putMessage(message("T", 0, new Uint8Array(4 * 1024 * 1024 + 1)));
      const props = await h.store.putMessage(message("T", 0, "x", { P: "v".repeat(40000) }));
      expect([big.status, props.status]).toEqual([
        PutMessageStatus.MESSAGE_ILLEGAL,
        PutMessageStatus.PROPERTIES_SIZE_EXCEEDED,
      ]);
      expect(h.store.getMaxOffsetInQueue("T", 0)).toBe(0);
    });

    test("prepared transaction records get no consume-queue unit", async () => {
      await using h = await factory(manualClock().now);
      const r = await h.store.putMessage(
        message("T", 0, "half", {}, MessageSysFlag.TRANSACTION_PREPARED_TYPE),
      );
      expect([r.status, r.result!.queueOffset, h.store.getMaxOffsetInQueue("T", 0)]).toEqual([
        PutMessageStatus.PUT_OK,
        0,
        0,
      ]);
      expect(await h.store.lookMessageByOffset(r.result!.wroteOffset)).toBeDefined();
    });

    test("offsets by time, store times and commitlog offsets of a queue", async () => {
      const clock = manualClock();
      await using h = await factory(clock.now);
      const t0 = clock.now();
      const puts = [];
      for (let i = 0; i < 5; i++) {
        puts.push(await h.store.putMessage(message("T", 0, `m${i}`)));
        clock.advance(1000);
      }
      const s = h.store;
      expect(await s.getMessageStoreTimeStamp("T", 0, 2)).toBe(t0 + 2000);
      expect(await s.getEarliestMessageTime("T", 0)).toBe(t0);
      expect(await s.getCommitLogOffsetInQueue("T", 0, 3)).toBe(puts[3]!.result!.wroteOffset);
      expect(await s.getOffsetInQueueByTime("T", 0, t0 + 1500)).toBe(2);
      expect(await s.getOffsetInQueueByTime("T", 0, t0 + 1500, "UPPER")).toBe(1);
      expect(await s.getOffsetInQueueByTime("T", 0, t0 + 2000)).toBe(2);
      expect(await s.getOffsetInQueueByTime("T", 0, t0 + 99_000)).toBe(5);
      expect(await s.getOffsetInQueueByTime("T", 0, 0)).toBe(0);
      expect(await s.getMessageStoreTimeStamp("T", 0, 9)).toBe(-1);
    });

    test("messages are found by KEYS entry and by UNIQ_KEY", async () => {
      const clock = manualClock();
      await using h = await factory(clock.now);
      await h.store.putMessage(message("Q", 0, "a", { KEYS: "order-1 order-2", UNIQ_KEY: "ID1" }));
      await h.store.putMessage(message("Q", 1, "b", { KEYS: "order-2" }));
      await h.store.putMessage(message("Other", 0, "c", { KEYS: "order-2" }));
      const range = [clock.now() - 10_000, clock.now() + 10_000] as const;
      const bodies = async (key: string) =>
        (await h.store.queryMessage("Q", key, 32, ...range)).messages
          .map((m) => text(decodeRecord(m).body))
          .sort();
      expect([
        await bodies("order-2"),
        await bodies("order-1"),
        await bodies("ID1"),
        await bodies("nope"),
      ]).toEqual([["a", "b"], ["a"], ["a"], []]);
    });

    test("arrival listeners hear every dispatched message with the queue's new max offset", async () => {
      const clock = manualClock();
      await using h = await factory(clock.now);
      const heard: unknown[] = [];
      const off = h.store.onMessageArrived((topic, q, logicOffset, tagsCode, ts) =>
        heard.push([topic, q, logicOffset, tagsCode, ts]),
      );
      await putAll(h.store, 2, "L", 3, () => "TagA");
      await h.store.flush();
      off();
      await putAll(h.store, 1, "L", 3);
      await h.store.flush();
      expect(heard).toEqual([
        ["L", 3, 1, 2598919, clock.now()],
        ["L", 3, 2, 2598919, clock.now()],
      ]);
    });

    test("deleting a topic drops its queues", async () => {
      await using h = await factory(manualClock().now);
      await putAll(h.store, 2, "D", 0);
      expect(h.store.getTopicQueues().get("D")).toEqual([0]);
      expect(await h.store.deleteTopics(["D"])).toBe(1);
      expect([h.store.getTopicQueues().has("D"), h.store.getMaxOffsetInQueue("D", 0)]).toEqual([false, 0]);
    });
  });
}
