/**
 * Topic names and prefixes with a meaning in RocketMQ (spec broker §1.5, §9.1), and the rules a
 * topic or group name must follow (spec broker §1.6, Java's TopicValidator and the client's
 * Validators), shared by the broker, its store and the clients so each is written once.
 */
export const RETRY_GROUP_TOPIC_PREFIX = "%RETRY%";
export const DLQ_GROUP_TOPIC_PREFIX = "%DLQ%";
/** The template topic auto-created topics are copied from. */
export const AUTO_CREATE_TOPIC_KEY_TOPIC = "TBW102";
/** Where delay-level messages wait (one queue per level). */
export const SCHEDULE_TOPIC = "SCHEDULE_TOPIC_XXXX";
/** Where RocketMQ 5 timer messages wait, queue 0 (spec pop-timer-filter §B.2 step 9). */
export const TIMER_TOPIC = "rmq_sys_wheel_timer";
export const SELF_TEST_TOPIC = "SELF_TEST_TOPIC";
export const OFFSET_MOVED_EVENT = "OFFSET_MOVED_EVENT";
export const TRANS_HALF_TOPIC = "RMQ_SYS_TRANS_HALF_TOPIC";
export const TRANS_OP_HALF_TOPIC = "RMQ_SYS_TRANS_OP_HALF_TOPIC";
export const TRANS_CHECK_MAX_TIME_TOPIC = "TRANS_CHECK_MAX_TIME_TOPIC";

export const TOPIC_MAX_LENGTH = 127;
/** 5.x lets %RETRY%/%DLQ% topics grow to 255 characters. */
export const RETRY_TOPIC_MAX_LENGTH = 255;
export const GROUP_MAX_LENGTH = 120;

const LEGAL = /^[%|a-zA-Z0-9_-]+$/;

/** Topics no producer may send to (NO_PERMISSION on the broker; refused before sending by clients). */
export const NOT_ALLOWED_SEND_TOPICS: ReadonlySet<string> = new Set([
  SCHEDULE_TOPIC,
  TRANS_HALF_TOPIC,
  TRANS_OP_HALF_TOPIC,
  TRANS_CHECK_MAX_TIME_TOPIC,
  SELF_TEST_TOPIC,
  OFFSET_MOVED_EVENT,
  // Not in Java's set, but a record sent there would be delivered by the timer service to whatever
  // REAL_TOPIC it names: only the broker's own send path may put into it.
  TIMER_TOPIC,
]);

/** A problem with the topic name, in Java's words, or null when the name is legal. */
export function topicNameProblem(topic: string): string | null {
  if (topic.trim() === "") return "The specified topic is blank.";
  if (!LEGAL.test(topic)) {
    return `The specified topic[${topic}] contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$`;
  }
  const max =
    topic.startsWith(RETRY_GROUP_TOPIC_PREFIX) || topic.startsWith(DLQ_GROUP_TOPIC_PREFIX)
      ? RETRY_TOPIC_MAX_LENGTH
      : TOPIC_MAX_LENGTH;
  if (topic.length > max) return `The specified topic is longer than topic max length ${max}.`;
  return null;
}

/** A problem with the group name, in Java's words, or null when the name is legal. */
export function groupNameProblem(group: string): string | null {
  if (group.trim() === "") return "the specified group is blank";
  if (!LEGAL.test(group)) {
    return `the specified group[${group}] contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$`;
  }
  if (group.length > GROUP_MAX_LENGTH)
    return `the specified group is longer than group max length ${GROUP_MAX_LENGTH}.`;
  return null;
}
