/**
 * LongPollService: which held pulls a dispatched message wakes, deadlines, closed connections and
 * the held-pulls bound. Events are recorded into one transcript per test.
 */
import { expect, test } from "bun:test";
import { type HeldPull, LongPollService } from "../../broker/services/long-poll.ts";
import type { Connection } from "../../src/remoting/connection.ts";

function conn(): Connection & { closed: boolean } {
  return { closed: false } as unknown as Connection & { closed: boolean };
}

function pull(
  log: string[],
  name: string,
  c: Connection,
  over: Partial<HeldPull> & { tags?: number[] } = {},
): HeldPull {
  return {
    conn: c,
    topic: "T",
    queueId: 0,
    offset: 0,
    deadline: Date.now() + 60_000,
    matches: (code) => code === undefined || over.tags === undefined || over.tags.includes(code),
    wake: () => log.push(`wake ${name}`),
    ...over,
  };
}

test("a message wakes only the held pulls of its queue that it matches and whose offset it passes", () => {
  const log: string[] = [];
  const lp = new LongPollService();
  const c = conn();
  lp.hold(pull(log, "q0-any", c));
  lp.hold(pull(log, "q0-tag7", c, { tags: [7] }));
  lp.hold(pull(log, "q0-at5", c, { offset: 5 }));
  lp.hold(pull(log, "q1", c, { queueId: 1 }));
  lp.hold(pull(log, "other-topic", c, { topic: "U" }));
  lp.notifyMessageArriving("T", 0, 1, 3);
  log.push(`held ${lp.size}`);
  lp.notifyMessageArriving("T", 0, 2, 7);
  log.push(`held ${lp.size}`);
  lp.notifyMessageArriving("T", 0, 6, 3);
  log.push(`held ${lp.size}`);
  lp.wakeAll();
  expect(log).toEqual([
    "wake q0-any",
    "held 4",
    "wake q0-tag7",
    "held 3",
    "wake q0-at5",
    "held 2",
    "wake q1",
    "wake other-topic",
  ]);
  expect(lp.size).toBe(0);
});

test("a held pull is woken once at its deadline, and a later message does not wake it again", async () => {
  const log: string[] = [];
  const lp = new LongPollService();
  const woken = Promise.withResolvers<void>();
  lp.hold({
    ...pull(log, "p", conn()),
    deadline: Date.now() + 30,
    wake: () => {
      log.push("wake p");
      woken.resolve();
    },
  });
  await woken.promise;
  lp.notifyMessageArriving("T", 0, 1);
  expect({ log, held: lp.size }).toEqual({ log: ["wake p"], held: 0 });
});

test("closing a connection drops its held pulls without waking them; other connections' pulls stay", () => {
  const log: string[] = [];
  const lp = new LongPollService();
  const a = conn();
  const b = conn();
  lp.hold(pull(log, "a1", a));
  lp.hold(pull(log, "a2", a, { queueId: 3 }));
  lp.hold(pull(log, "b1", b));
  a.closed = true;
  lp.connectionClosed(a);
  log.push(`held ${lp.size}`);
  lp.notifyMessageArriving("T", 0, 1);
  lp.notifyMessageArriving("T", 3, 1);
  expect(log).toEqual(["held 1", "wake b1"]);
});

test("a pull on a closed connection, or beyond heldPullsMax, is not held", () => {
  const log: string[] = [];
  const lp = new LongPollService(2);
  const closed = conn();
  closed.closed = true;
  const open = conn();
  expect([
    lp.hold(pull(log, "closed", closed)),
    lp.hold(pull(log, "p1", open)),
    lp.hold(pull(log, "p2", open)),
    lp.hold(pull(log, "p3", open)),
  ]).toEqual(["closed", "held", "held", "full"]);
  lp.wakeAll();
  expect(log).toEqual(["wake p1", "wake p2"]);
});

test("a held pull whose connection closed before its message arrived is released without waking", () => {
  const log: string[] = [];
  const lp = new LongPollService();
  const c = conn();
  lp.hold(pull(log, "p", c));
  c.closed = true;
  lp.notifyMessageArriving("T", 0, 1);
  expect({ log, held: lp.size }).toEqual({ log: [], held: 0 });
});
