/**
 * The queue lock table of ordered consumption (spec broker §8.9; Java's RebalanceLockManager): per
 * (consumer group, MessageQueue) the client that owns the queue and when it last locked it.
 *
 * A lock is held while `now − lastUpdate ≤ maxLiveMs`. Locking succeeds for a free queue, for the
 * owner (which refreshes it) and for an expired entry (ownership moves to the asker); otherwise the
 * queue is left out of the answer. Unlock removes only the asker's entries. Beyond Java, an entry
 * also remembers the connection that last locked it, and a closed connection (or one the heartbeat
 * scan expired, which closes it) releases its entries at once: a crashed consumer's queues move to
 * the group's other members without waiting for the expiry.
 */
import type { Logger } from "pino";
import type { MessageQueueKey } from "../../src/protocol/body/queue-keyed.ts";
import type { Connection } from "../../src/remoting/connection.ts";

export interface LockHolder {
  readonly clientId: string;
  readonly lastUpdate: number;
}

interface LockEntry {
  readonly group: string;
  readonly key: string;
  readonly mq: MessageQueueKey;
  clientId: string;
  lastUpdate: number;
  /** The connection of the last lock or relock; null when locked in-process. */
  conn: Connection | null;
}

export interface RebalanceLocksOptions {
  maxLiveMs: number;
  locksMax: number;
  log: Logger;
  /** Clock for tests. */
  now?: () => number;
}

const keyOf = (mq: MessageQueueKey) => `${mq.topic}\u0000${mq.brokerName}\u0000${mq.queueId}`;

export class RebalanceLocks {
  /** group → queue key → entry. */
  private readonly groups = new Map<string, Map<string, LockEntry>>();
  /** The entries each connection locked last, so a close releases them without a scan. */
  private readonly byConn = new Map<Connection, Set<LockEntry>>();
  private size = 0;
  private sweeper: ReturnType<typeof setInterval> | null = null;
  private readonly now: () => number;

  constructor(private readonly o: RebalanceLocksOptions) {
    this.now = o.now ?? Date.now;
  }

  /** Sweeps expired entries every `maxLiveMs`, so the table holds only live locks and recent ones. */
  start(): void {
    if (this.sweeper) return;
    this.sweeper = setInterval(() => this.sweep(), this.o.maxLiveMs);
    this.sweeper.unref?.();
  }

  stop(): void {
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = null;
  }

  /** LOCK_BATCH_MQ: the queues of `mqs` that `clientId` holds after the call. */
  tryLockBatch(
    group: string,
    mqs: readonly MessageQueueKey[],
    clientId: string,
    conn: Connection | null = null,
  ): MessageQueueKey[] {
    const now = this.now();
    let table = this.groups.get(group);
    const locked: MessageQueueKey[] = [];
    for (const mq of mqs) {
      const key = keyOf(mq);
      const entry = table?.get(key);
      if (entry === undefined) {
        if (this.size >= this.o.locksMax) {
          this.o.log.warn({ group, clientId, locksMax: this.o.locksMax }, "lock table full, lock refused");
          continue;
        }
        if (!table) {
          table = new Map();
          this.groups.set(group, table);
        }
        const created: LockEntry = { group, key, mq, clientId, lastUpdate: now, conn: null };
        table.set(key, created);
        this.size++;
        this.attach(created, conn);
        locked.push(mq);
        continue;
      }
      if (entry.clientId === clientId || this.expired(entry, now)) {
        if (entry.clientId !== clientId) {
          this.o.log.warn(
            { group, mq: key, from: entry.clientId, to: clientId },
            "expired queue lock moves to a new owner",
          );
        }
        entry.clientId = clientId;
        entry.lastUpdate = now;
        this.attach(entry, conn);
        locked.push(mq);
        continue;
      }
      this.o.log.debug(
        { group, mq: key, holder: entry.clientId, asker: clientId },
        "queue locked by another",
      );
    }
    return locked;
  }

  /** UNLOCK_BATCH_MQ: removes the entries of `mqs` that `clientId` owns; others are left alone. */
  unlockBatch(group: string, mqs: readonly MessageQueueKey[], clientId: string): void {
    const table = this.groups.get(group);
    if (!table) return;
    for (const mq of mqs) {
      const key = keyOf(mq);
      const entry = table.get(key);
      if (entry === undefined) continue;
      if (entry.clientId !== clientId) {
        this.o.log.debug(
          { group, mq: key, holder: entry.clientId, asker: clientId },
          "unlock by non-owner ignored",
        );
        continue;
      }
      this.remove(entry);
    }
  }

  /** The live holder of a queue, if any. */
  holder(group: string, mq: MessageQueueKey): LockHolder | undefined {
    const entry = this.groups.get(group)?.get(keyOf(mq));
    if (!entry || this.expired(entry, this.now())) return undefined;
    return { clientId: entry.clientId, lastUpdate: entry.lastUpdate };
  }

  /** Whether no queue of the group is locked now (Java's isLockAllExpired; spec §9.3). */
  isLockAllExpired(group: string): boolean {
    const table = this.groups.get(group);
    if (!table) return true;
    const now = this.now();
    for (const entry of table.values()) if (!this.expired(entry, now)) return false;
    return true;
  }

  /** Releases every entry last locked through `conn` (its connection closed or expired). */
  connectionClosed(conn: Connection): number {
    const entries = this.byConn.get(conn);
    if (!entries) return 0;
    const released = entries.size;
    for (const entry of [...entries]) this.remove(entry);
    if (released > 0)
      this.o.log.info({ addr: conn.remoteAddress, released }, "queue locks of a closed connection released");
    return released;
  }

  /** Drops expired entries; returns how many. */
  sweep(): number {
    const now = this.now();
    let dropped = 0;
    for (const table of [...this.groups.values()]) {
      for (const entry of [...table.values()]) {
        if (!this.expired(entry, now)) continue;
        this.remove(entry);
        dropped++;
      }
    }
    return dropped;
  }

  get entries(): number {
    return this.size;
  }

  private expired(entry: LockEntry, now: number): boolean {
    return now - entry.lastUpdate > this.o.maxLiveMs;
  }

  private attach(entry: LockEntry, conn: Connection | null): void {
    if (entry.conn === conn) return;
    this.detach(entry);
    entry.conn = conn;
    if (conn === null) return;
    let set = this.byConn.get(conn);
    if (!set) {
      set = new Set();
      this.byConn.set(conn, set);
    }
    set.add(entry);
  }

  private detach(entry: LockEntry): void {
    if (entry.conn === null) return;
    const set = this.byConn.get(entry.conn);
    set?.delete(entry);
    if (set?.size === 0) this.byConn.delete(entry.conn);
    entry.conn = null;
  }

  private remove(entry: LockEntry): void {
    const table = this.groups.get(entry.group);
    if (table?.get(entry.key) !== entry) return;
    table.delete(entry.key);
    this.detach(entry);
    this.size--;
    if (table.size === 0) this.groups.delete(entry.group);
  }
}
