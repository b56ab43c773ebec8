/**
 * A held pull with an SQL92 filter wakes only for an arriving message whose properties match
 * (spec pop-timer-filter §C.6), as the broker wires it: the store's arrival listener passes the
 * message's properties, and the pull's `matches` asks the compiled expression.
 */
import { expect, test } from "bun:test";
import { arrivalMatches, sqlMessageFilter } from "../../../broker/filter/message-filters.ts";
import { LongPollService } from "../../../broker/services/long-poll.ts";
import { compileSql92 } from "../../../src/protocol/filter/index.ts";
import { PropertiesView } from "../../../src/protocol/message/index.ts";
import type { Connection } from "../../../src/remoting/connection.ts";

test("a held SQL92 pull sleeps through non-matching arrivals and wakes for a match", () => {
  const log: string[] = [];
  const lp = new LongPollService();
  const filter = sqlMessageFilter(compileSql92("region = 'eu' AND amount > 100"));
  lp.hold({
    conn: { closed: false } as unknown as Connection,
    topic: "T",
    queueId: 0,
    offset: 0,
    deadline: Date.now() + 60_000,
    matches: (_tagsCode, properties) => arrivalMatches(filter, properties),
    wake: () => log.push("wake"),
  });
  lp.notifyMessageArriving(
    "T",
    0,
    1,
    0,
    new Map([
      ["region", "us"],
      ["amount", "500"],
    ]),
  );
  lp.notifyMessageArriving("T", 0, 2, 0, new PropertiesView("region\u0001eu\u0002amount\u000150\u0002"));
  log.push(`held ${lp.size}`);
  lp.notifyMessageArriving("T", 0, 3, 0, new PropertiesView("region\u0001eu\u0002amount\u0001500\u0002"));
  log.push(`held ${lp.size}`);
  expect(log).toEqual(["held 1", "wake", "held 0"]);
});

test("without properties, or for a tag filter, an arrival always may match", () => {
  const sql = sqlMessageFilter(compileSql92("a = 1"));
  expect([
    arrivalMatches(sql, undefined),
    arrivalMatches(undefined, new Map()),
    arrivalMatches({ isMatchedByConsumeQueue: () => true }, new Map()),
    arrivalMatches(sql, new Map([["a", "2"]])),
  ]).toEqual([true, true, true, false]);
});
