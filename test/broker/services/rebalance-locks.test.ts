/**
 * The broker's queue lock table (spec broker §8.9) on a clock the test moves: expiry at exactly
 * maxLiveMs, transfer, unlock by owner only, release by connection, the sweep and the entry cap.
 */
import { describe, expect, test } from "bun:test";
import { RebalanceLocks } from "../../../broker/services/rebalance-locks.ts";
import type { Connection } from "../../../src/remoting/connection.ts";
import { silent } from "../../support/silent.ts";

const mq = (queueId: number, topic = "T") => ({ topic, brokerName: "b", queueId });
const ids = (list: { queueId: number }[]) => list.map((m) => m.queueId);
const conn = (remoteAddress: string) => ({ remoteAddress }) as unknown as Connection;

function table(maxLiveMs = 1000, locksMax = 100) {
  let now = 10_000;
  const locks = new RebalanceLocks({ maxLiveMs, locksMax, log: silent, now: () => now });
  return { locks, advance: (ms: number) => (now += ms) };
}

describe("rebalance locks", () => {
  test("a lock is held for exactly maxLiveMs after the owner's last lock, then moves to the asker", () => {
    const { locks, advance } = table(1000);
    /** Moves the clock by `ms`, then `clientId` asks for queue 0: the queue ids granted. */
    const after = (ms: number, clientId: string) => {
      advance(ms);
      return ids(locks.tryLockBatch("G", [mq(0)], clientId));
    };
    // A relocks at +1000 (a refresh); B is refused until more than 1000 ms after that.
    expect([
      after(0, "A"),
      after(0, "B"),
      after(1000, "B"),
      after(0, "A"),
      after(999, "B"),
      after(1, "B"),
      locks.holder("G", mq(0))?.clientId,
      after(1, "B"),
      locks.holder("G", mq(0))?.clientId,
    ]).toEqual([[0], [], [], [0], [], [], "A", [0], "B"]);
  });

  test("isLockAllExpired is false while any queue of the group is held, per group", () => {
    const { locks, advance } = table(1000);
    locks.tryLockBatch("G", [mq(0), mq(1)], "A");
    const held = [locks.isLockAllExpired("G"), locks.isLockAllExpired("H")];
    advance(1001);
    expect([...held, locks.isLockAllExpired("G")]).toEqual([false, true, true]);
  });

  test("unlock removes only the asker's entries", () => {
    const { locks } = table();
    locks.tryLockBatch("G", [mq(0)], "A");
    locks.tryLockBatch("G", [mq(1)], "B");
    locks.unlockBatch("G", [mq(0), mq(1), mq(2)], "B");
    expect([locks.holder("G", mq(0))?.clientId, locks.holder("G", mq(1)), locks.entries]).toEqual([
      "A",
      undefined,
      1,
    ]);
  });

  test("a closed connection releases the entries it locked last, not those another connection relocked", () => {
    const { locks } = table();
    const [c1, c2] = [conn("1.1.1.1:1"), conn("2.2.2.2:2")];
    locks.tryLockBatch("G", [mq(0), mq(1)], "A", c1);
    locks.tryLockBatch("G", [mq(1)], "A", c2);
    locks.tryLockBatch("H", [mq(0)], "B", c2);
    expect(locks.connectionClosed(c1)).toBe(1);
    expect([locks.holder("G", mq(0)), locks.holder("G", mq(1))?.clientId, locks.entries]).toEqual([
      undefined,
      "A",
      2,
    ]);
    expect([locks.connectionClosed(c2), locks.connectionClosed(c2), locks.entries]).toEqual([2, 0, 0]);
  });

  test("the sweep drops expired entries only", () => {
    const { locks, advance } = table(1000);
    locks.tryLockBatch("G", [mq(0)], "A");
    advance(600);
    locks.tryLockBatch("G", [mq(1)], "A");
    advance(500);
    expect([locks.sweep(), locks.entries, locks.holder("G", mq(1))?.clientId]).toEqual([1, 1, "A"]);
  });

  test("beyond locksMax new entries are refused; relocks of existing ones still succeed", () => {
    const { locks } = table(1000, 2);
    expect(ids(locks.tryLockBatch("G", [mq(0), mq(1), mq(2)], "A"))).toEqual([0, 1]);
    expect(ids(locks.tryLockBatch("G", [mq(1), mq(3)], "A"))).toEqual([1]);
  });
});
