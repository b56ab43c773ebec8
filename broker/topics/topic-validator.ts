/**
 * Topic and group name rules (spec broker §1.6, Java's TopicValidator): allowed characters,
 * length limits, the topics nobody may send to, and the system topics admins may not touch.
 */
import {
  AUTO_CREATE_TOPIC_KEY_TOPIC,
  DLQ_GROUP_TOPIC_PREFIX,
  RETRY_GROUP_TOPIC_PREFIX,
  SCHEDULE_TOPIC,
} from "../../src/protocol/topic-names.ts";

export const TOPIC_MAX_LENGTH = 127;
/** 5.x lets %RETRY%/%DLQ% topics grow to 255 characters. */
export const RETRY_TOPIC_MAX_LENGTH = 255;
export const GROUP_MAX_LENGTH = 120;

export { AUTO_CREATE_TOPIC_KEY_TOPIC, DLQ_GROUP_TOPIC_PREFIX, RETRY_GROUP_TOPIC_PREFIX, SCHEDULE_TOPIC };
export const SELF_TEST_TOPIC = "SELF_TEST_TOPIC";
export const BENCHMARK_TOPIC = "BenchmarkTest";
export const OFFSET_MOVED_EVENT = "OFFSET_MOVED_EVENT";
export const TRANS_HALF_TOPIC = "RMQ_SYS_TRANS_HALF_TOPIC";
export const TRANS_OP_HALF_TOPIC = "RMQ_SYS_TRANS_OP_HALF_TOPIC";
export const TRANS_CHECK_MAX_TIME_TOPIC = "TRANS_CHECK_MAX_TIME_TOPIC";
export const TRACE_TOPIC = "RMQ_SYS_TRACE_TOPIC";

const LEGAL = /^[%|a-zA-Z0-9_-]+$/;

/** Topics no producer may send to (NO_PERMISSION). */
export const NOT_ALLOWED_SEND_TOPICS: ReadonlySet<string> = new Set([
  SCHEDULE_TOPIC,
  TRANS_HALF_TOPIC,
  TRANS_OP_HALF_TOPIC,
  TRANS_CHECK_MAX_TIME_TOPIC,
  SELF_TEST_TOPIC,
  OFFSET_MOVED_EVENT,
]);

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

/** A problem with the name, in Java's words, or null when the name is legal. */
export function topicNameProblem(topic: string): string | null {
  if (topic.trim() === "") return "The specified topic is blank.";
  if (!LEGAL.test(topic)) {
    return `The specified topic[${topic}] contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$`;
  }
  const max =
    isRetryTopic(topic) || topic.startsWith(DLQ_GROUP_TOPIC_PREFIX)
      ? RETRY_TOPIC_MAX_LENGTH
      : TOPIC_MAX_LENGTH;
  if (topic.length > max) return `The specified topic is longer than topic max length ${max}.`;
  return null;
}

export function groupNameProblem(group: string): string | null {
  if (group.trim() === "") return "the specified group is blank";
  if (!LEGAL.test(group)) {
    return `the specified group[${group}] contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$`;
  }
  if (group.length > GROUP_MAX_LENGTH)
    return `the specified group is longer than group max length ${GROUP_MAX_LENGTH}.`;
  return null;
}

/** System topics: fixed names, `rmq_sys_` names, and names the broker adds at start (cluster, broker). */
export function isSystemTopic(topic: string, extra: ReadonlySet<string> = new Set()): boolean {
  return SYSTEM_TOPICS.has(topic) || topic.startsWith("rmq_sys_") || extra.has(topic);
}
