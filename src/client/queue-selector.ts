/**
 * Queue selection for sends: round robin that skips penalised brokers and the broker that just
 * failed (Java's selectOneMessageQueue), by a caller's selector function, or by a sharding key
 * hashed as Java's SelectMessageQueueByHash does.
 */
import { javaStringHash } from "../protocol/message/index.ts";
import type { LatencyFaultTolerance } from "./latency-fault.ts";
import type { Message } from "./message.ts";
import type { MessageQueue } from "./message-queue.ts";

export type QueueSelector = (queues: readonly MessageQueue[], msg: Message) => MessageQueue;

export class RoundRobin {
  private readonly counters = new Map<string, number>();

  next(topic: string): number {
    const n = this.counters.get(topic) ?? Math.floor(Math.random() * 1024);
    this.counters.set(topic, (n + 1) & 0x7fffffff);
    return n;
  }
}

export function selectQueue(
  queues: readonly MessageQueue[],
  rr: RoundRobin,
  faults: LatencyFaultTolerance | null,
  lastFailedBroker: string | undefined,
): MessageQueue | undefined {
  if (queues.length === 0) return undefined;
  const start = rr.next(queues[0]!.topic);
  for (let i = 0; i < queues.length; i++) {
    const q = queues[(start + i) % queues.length]!;
    if (q.brokerName === lastFailedBroker && hasOtherBroker(queues, lastFailedBroker)) continue;
    if (faults && !faults.isAvailable(q.brokerName)) continue;
    return q;
  }
  // Everything is penalised: take the broker whose penalty ends first, else plain round robin.
  const best = faults?.leastBad(new Set(queues.map((q) => q.brokerName)));
  const pool = best ? queues.filter((q) => q.brokerName === best) : queues;
  return pool[start % pool.length];
}

function hasOtherBroker(queues: readonly MessageQueue[], broker: string): boolean {
  return queues.some((q) => q.brokerName !== broker);
}

/** Java's SelectMessageQueueByHash: |hashCode(key) mod queue count|. */
export function selectByShardingKey(queues: readonly MessageQueue[], key: string): MessageQueue {
  return queues[Math.abs(javaStringHash(key) % queues.length)]!;
}
