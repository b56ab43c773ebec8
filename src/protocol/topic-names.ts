/**
 * Topic names and prefixes with a meaning in RocketMQ (spec broker §1.5, §9.1), shared by the broker,
 * its store and the clients so each is written once.
 */
export const RETRY_GROUP_TOPIC_PREFIX = "%RETRY%";
export const DLQ_GROUP_TOPIC_PREFIX = "%DLQ%";
/** The template topic auto-created topics are copied from. */
export const AUTO_CREATE_TOPIC_KEY_TOPIC = "TBW102";
/** Where delay-level messages wait (one queue per level). */
export const SCHEDULE_TOPIC = "SCHEDULE_TOPIC_XXXX";
