/** MessageQueue: (topic, brokerName, queueId), the unit of routing, allocation and offsets. */

export interface MessageQueue {
  readonly topic: string;
  readonly brokerName: string;
  readonly queueId: number;
}

/** A stable map key; equality of queues is equality of keys. */
/** Keys of queue objects already seen: pull loops ask for the same queue's key on every pull. */
const keys = new WeakMap<MessageQueue, string>();

export function mqKey(mq: MessageQueue): string {
  let key = keys.get(mq);
  if (key === undefined) {
    key = `${mq.topic}\u0000${mq.brokerName}\u0000${mq.queueId}`;
    keys.set(mq, key);
  }
  return key;
}

/** How logs and messages print a queue (or its `mqKey`): `topic@broker#queueId`. */
export function mqText(mq: MessageQueue | string): string {
  if (typeof mq !== "string") return `${mq.topic}@${mq.brokerName}#${mq.queueId}`;
  const [topic, brokerName, queueId] = mq.split("\u0000");
  return `${topic}@${brokerName}#${queueId}`;
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
