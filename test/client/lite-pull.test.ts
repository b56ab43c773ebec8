import { describe, expect, test } from "bun:test";
import {
  createLitePullConsumer,
  createProducer,
  type LitePullConsumer,
  type MessageExt,
} from "../../src/client/index.ts";
import { silent } from "../support/silent.ts";
import { startCluster } from "./harness.ts";

const text = (m: MessageExt) => new TextDecoder().decode(m.body);
const quick = { log: silent, suspendMs: 200, pullErrorDelayMs: 20 };

async function pollUntil(c: LitePullConsumer, n: number): Promise<string[]> {
  const out: string[] = [];
  while (out.length < n) out.push(...(await c.poll(2000)).map(text));
  return out;
}

describe("lite pull consumer", () => {
  test("seek to an offset, the start, a timestamp; commit stores the position for the next reader", async () => {
    await using cluster = await startCluster([
      {
        topics: [
          {
            topicName: "L",
            readQueueNums: 1,
            writeQueueNums: 1,
            perm: 6,
            topicFilterType: "SINGLE_TAG",
            topicSysFlag: 0,
            order: false,
            attributes: {},
          },
        ],
      },
    ]);
    const producer = await createProducer({ namesrvAddr: cluster.namesrvAddr, log: silent });
    const stamps: number[] = [];
    for (let i = 0; i < 10; i++) {
      await producer.send({ topic: "L", body: `m${i}` });
      stamps.push(cluster.broker.messages("L").find((m) => m.queueOffset === i)!.storeTimestamp);
    }
    const reader = await createLitePullConsumer({
      namesrvAddr: cluster.namesrvAddr,
      group: "LG",
      startFrom: "first",
      ...quick,
    });
    let second: LitePullConsumer | undefined;
    try {
      const [mq] = await reader.fetchQueues("L");
      await reader.assign([mq!]);
      const all = await pollUntil(reader, 10);
      reader.seek(mq!, 5);
      const fromFive = await pollUntil(reader, 5);
      await reader.seekToTimestamp(mq!, stamps[3]!);
      const fromTs = (await pollUntil(reader, 1))[0];
      await reader.seekToBegin(mq!);
      const fromBegin = (await pollUntil(reader, 1))[0];
      reader.seek(mq!, 7);
      const positionAfterSeek = reader.position(mq!);
      await reader.commit();
      second = await createLitePullConsumer({ namesrvAddr: cluster.namesrvAddr, group: "LG", ...quick });
      await second.assign([mq!]);
      const resumed = await pollUntil(second, 3);
      expect({ all, fromFive, fromBegin, positionAfterSeek, resumed }).toEqual({
        all: ["m0", "m1", "m2", "m3", "m4", "m5", "m6", "m7", "m8", "m9"],
        fromFive: ["m5", "m6", "m7", "m8", "m9"],
        fromBegin: "m0",
        positionAfterSeek: 7,
        resumed: ["m7", "m8", "m9"],
      });
      // Store timestamps have millisecond resolution: the seek lands on the first message of that millisecond.
      expect(Number(fromTs!.slice(1))).toBeLessThanOrEqual(3);
    } finally {
      await second?.shutdown();
      await reader.shutdown();
      await producer.shutdown();
    }
  });

  test("a poll with nothing to read resolves empty after its timeout", async () => {
    await using cluster = await startCluster([{ topics: ["E"] }]);
    const reader = await createLitePullConsumer({ namesrvAddr: cluster.namesrvAddr, group: "EG", ...quick });
    try {
      await reader.assign(await reader.fetchQueues("E"));
      expect(await reader.poll(30)).toEqual([]);
    } finally {
      await reader.shutdown();
    }
  });
});
