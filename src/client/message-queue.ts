/** MessageQueue: (topic, brokerName, queueId), the unit of routing, allocation and offsets. */

export interface MessageQueue {
  readonly topic: string;
  readonly brokerName: string;
  readonly queueId: number;
}

/** A stable map key; equality of queues is equality of keys. */
export function mqKey(mq: MessageQueue): string {
  return `${mq.topic}\u0000${mq.brokerName}\u0000${mq.queueId}`;
}

/** Java's MessageQueue.compareTo: topic, then broker name, then queue id. */
export function compareMq(a: MessageQueue, b: MessageQueue): number {
  if (a.topic !== b.topic) return a.topic < b.topic ? -1 : 1;
  if (a.brokerName !== b.brokerName) return a.brokerName < b.brokerName ? -1 : 1;
  return a.queueId - b.queueId;
}

export function mq(topic: string, brokerName: string, queueId: number): MessageQueue {
  return { topic, brokerName, queueId };
}
