import { expect, test } from "bun:test";
import { mq, mqKey, mqText } from "../../src/client/message-queue.ts";

test("logs print a queue as topic@broker#queueId, from the queue or from its map key", () => {
  const q = mq("orders", "broker-a", 3);
  expect(mqText(q)).toBe("orders@broker-a#3");
  expect(mqText(mqKey(q))).toBe("orders@broker-a#3");
  expect(mqText(mqKey(q))).not.toContain("\u0000");
});
