/**
 * The broker locks an orderly consumer holds (Java's RebalanceImpl.lock/lockAll/unlock/unlockAll with
 * ProcessQueue.locked and lastLockTimestamp; spec broker §8.9). A queue counts as locked here for
 * `maxLiveMs` (30 s) after the broker last granted it, half the broker's 60 s: a consumer that can
 * no longer relock stops consuming well before the broker gives the queue to another member.
 */
import type { ClientInstance } from "./client-instance.ts";
import { type MessageQueue, mqKey, mqText } from "./message-queue.ts";

/** Java's `rocketmq.client.rebalance.lockInterval`: how often every owned queue is relocked. */
export const DEFAULT_LOCK_INTERVAL_MS = 20_000;
/** Java's `rocketmq.client.rebalance.lockMaxLiveTime`: how long a granted lock is trusted here. */
export const DEFAULT_LOCK_MAX_LIVE_MS = 30_000;
/** Java's timeout for LOCK_BATCH_MQ and UNLOCK_BATCH_MQ. */
const LOCK_CALL_TIMEOUT_MS = 1000;

export interface QueueLockState {
  readonly locked: boolean;
  /** When the broker last granted the lock (ms), 0 if never. */
  readonly lastLockTimestamp: number;
}

export class QueueLocks {
  /** Queues the broker granted, with when it last did. */
  private readonly granted = new Map<string, { mq: MessageQueue; at: number }>();

  constructor(
    private readonly client: ClientInstance,
    private readonly group: string,
    private readonly maxLiveMs = DEFAULT_LOCK_MAX_LIVE_MS,
  ) {}

  /** Whether the queue's lock was granted and is still fresh (ProcessQueue.isLocked && !isLockExpired). */
  isLocked(mq: MessageQueue, now = Date.now()): boolean {
    const g = this.granted.get(mqKey(mq));
    return g !== undefined && now - g.at <= this.maxLiveMs;
  }

  state(mq: MessageQueue): QueueLockState {
    const g = this.granted.get(mqKey(mq));
    return { locked: this.isLocked(mq), lastLockTimestamp: g?.at ?? 0 };
  }

  /** Locks one queue at its broker; true when granted. Failures are logged and count as refusals. */
  async lock(mq: MessageQueue): Promise<boolean> {
    await this.lockAll([mq]);
    return this.isLocked(mq);
  }

  /** Locks (or relocks) the queues, one request per broker; refused ones stop counting as locked. */
  async lockAll(mqs: readonly MessageQueue[]): Promise<void> {
    await Promise.all(
      [...byBroker(mqs)].map(async ([brokerName, list]) => {
        let locked: MessageQueue[];
        try {
          const addr = await this.client.masterAddr(brokerName, list[0]!.topic);
          locked = await this.client.broker.lockBatch(addr, this.request(list), LOCK_CALL_TIMEOUT_MS);
        } catch (err) {
          // Leave the state alone: a lock the broker may still hold stays trusted until it ages out.
          this.client.log.warn({ broker: brokerName, err: (err as Error).message }, "lock batch failed");
          return;
        }
        const now = Date.now();
        const ok = new Set(locked.map(mqKey));
        for (const mq of list) {
          const key = mqKey(mq);
          if (ok.has(key)) this.granted.set(key, { mq, at: now });
          else if (this.granted.delete(key)) this.client.log.warn({ mq: mqText(key) }, "queue lock lost");
        }
      }),
    );
  }

  /**
   * The connection to a broker closed. A RocketBun broker releases the locks taken through a
   * connection when it closes, and another member may take those queues at once; so they stop
   * counting as locked here until relocked (a broker that kept them grants them again).
   */
  connectionLost(addr: string): void {
    for (const [key, g] of this.granted) {
      if (this.client.routes.masterAddr(g.mq.brokerName) !== addr) continue;
      this.granted.delete(key);
      this.client.log.info({ mq: mqText(key), addr }, "queue lock dropped with the broker connection");
    }
  }

  /**
   * Gives the queues back: they stop counting as locked here at once, then the brokers are told
   * (oneway when a rebalance drops a queue, awaited at shutdown). Failures are logged; the broker
   * lock then ends with its expiry or with this client's connection.
   */
  async unlockAll(mqs: readonly MessageQueue[], oneway: boolean): Promise<void> {
    for (const mq of mqs) this.granted.delete(mqKey(mq));
    await Promise.all(
      [...byBroker(mqs)].map(async ([brokerName, list]) => {
        try {
          const addr = await this.client.masterAddr(brokerName, list[0]!.topic);
          await this.client.broker.unlockBatch(addr, this.request(list), oneway, LOCK_CALL_TIMEOUT_MS);
        } catch (err) {
          this.client.log.warn({ broker: brokerName, err: (err as Error).message }, "unlock batch failed");
        }
      }),
    );
  }

  private request(mqSet: MessageQueue[]) {
    return { consumerGroup: this.group, clientId: this.client.clientId, onlyThisBroker: false, mqSet };
  }
}

function byBroker(mqs: readonly MessageQueue[]): Map<string, MessageQueue[]> {
  const out = new Map<string, MessageQueue[]>();
  for (const mq of mqs) {
    const list = out.get(mq.brokerName);
    if (list) list.push(mq);
    else out.set(mq.brokerName, [mq]);
  }
  return out;
}
