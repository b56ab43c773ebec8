/**
 * The system topics admins may not touch (Java's TopicValidator) and retry-topic helpers. The name
 * rules and the topics nobody may send to are shared with the clients: src/protocol/topic-names.ts.
 */
import {
  AUTO_CREATE_TOPIC_KEY_TOPIC,
  DLQ_GROUP_TOPIC_PREFIX,
  NOT_ALLOWED_SEND_TOPICS,
  RETRY_GROUP_TOPIC_PREFIX,
} from "../../src/protocol/topic-names.ts";

export const BENCHMARK_TOPIC = "BenchmarkTest";
export const TRACE_TOPIC = "RMQ_SYS_TRACE_TOPIC";

const SYSTEM_TOPICS = new Set([
  ...NOT_ALLOWED_SEND_TOPICS,
  AUTO_CREATE_TOPIC_KEY_TOPIC,
  BENCHMARK_TOPIC,
  TRACE_TOPIC,
]);

export function isRetryTopic(topic: string): boolean {
  return topic.startsWith(RETRY_GROUP_TOPIC_PREFIX);
}

export function retryTopicOf(group: string): string {
  return RETRY_GROUP_TOPIC_PREFIX + group;
}

/** The group a `%RETRY%<group>` topic belongs to (Java's KeyBuilder.parseGroup). */
export function groupOfRetryTopic(topic: string): string {
  return topic.slice(RETRY_GROUP_TOPIC_PREFIX.length);
}

export function dlqTopicOf(group: string): string {
  return DLQ_GROUP_TOPIC_PREFIX + group;
}

/** Dead-letter topics have one queue (Java's DLQ_NUMS_PER_GROUP). */
export const DLQ_QUEUE_NUMS = 1;

/** The fixed system topic names (Java's TopicValidator.getSystemTopicSet). */
export function systemTopicNames(): string[] {
  return [...SYSTEM_TOPICS];
}

/** System topics: fixed names, `rmq_sys_` names, and names the broker adds at start (cluster, broker). */
export function isSystemTopic(topic: string, extra: ReadonlySet<string> = new Set()): boolean {
  return SYSTEM_TOPICS.has(topic) || topic.startsWith("rmq_sys_") || extra.has(topic);
}

/** The most queues a topic may have (BenchmarkTest, the largest system topic, has this many). */
export const TOPIC_QUEUE_NUMS_MAX = 1024;

/**
 * What is wrong with an admin's queue counts, or undefined. Java checks nothing here; we refuse
 * what cannot work: a negative or huge count, or a topic with no queue at all (one side at 0 is
 * the usual way to drain or fill a topic while resizing it).
 */
export function queueNumsProblem(readQueueNums: number, writeQueueNums: number): string | undefined {
  for (const [name, n] of [
    ["readQueueNums", readQueueNums],
    ["writeQueueNums", writeQueueNums],
  ] as const) {
    if (n < 0 || n > TOPIC_QUEUE_NUMS_MAX) {
      return `${name}[${n}] is illegal, it must be within 0..${TOPIC_QUEUE_NUMS_MAX}`;
    }
  }
  if (readQueueNums === 0 && writeQueueNums === 0) {
    return "readQueueNums and writeQueueNums are both 0: the topic would have no queue";
  }
  return undefined;
}
