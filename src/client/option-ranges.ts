/**
 * Numeric options checked when a producer or consumer is created, as Java's checkConfig does
 * (DefaultMQPushConsumerImpl, DefaultLitePullConsumerImpl): a value out of range is refused with
 * INVALID_PARAMETER naming the option, instead of misbehaving later. Durations also stay within
 * what a JS timer can hold: a longer one fires at once, so an interval of 2^31 ms would run every
 * millisecond.
 */
import { clientError } from "./errors.ts";

/** The longest delay setTimeout/setInterval honour (2^31 - 1 ms, about 24.8 days). */
export const TIMER_MS_MAX = 2_147_483_647;

/** [min, max] per option name; options absent from the object are not checked. */
export type Ranges = Readonly<Record<string, readonly [min: number, max: number]>>;

const ms = (min = 1): readonly [number, number] => [min, TIMER_MS_MAX];

/** Checked for every client instance (resolveClientOptions). */
export const CLIENT_RANGES: Ranges = {
  mqClientApiTimeoutMs: ms(),
  pollNameServerIntervalMs: ms(),
  heartbeatBrokerIntervalMs: ms(),
};

export const PRODUCER_RANGES: Ranges = {
  sendMsgTimeoutMs: ms(),
  retryTimesWhenSendFailed: [0, 100],
  retryTimesWhenSendAsyncFailed: [0, 100],
  compressMsgBodyOverBytes: [0, Number.MAX_SAFE_INTEGER],
  compressLevel: [0, 9],
  maxMessageBytes: [1, Number.MAX_SAFE_INTEGER],
  faultIsolationMs: ms(0),
};

/** Java's limits: consumeThreadMax 1-1000, batch sizes 1-1024, pullThresholdForQueue 1-65535. */
export const PUSH_CONSUMER_RANGES: Ranges = {
  consumeConcurrency: [1, 1000],
  consumeBatchSize: [1, 1024],
  pullBatchSize: [1, 1024],
  maxReconsumeTimes: [-1, 10_000],
  rebalanceIntervalMs: ms(),
  persistConsumerOffsetIntervalMs: ms(),
  brokerSuspendMaxMs: ms(0),
  consumerTimeoutWhenSuspendMs: ms(),
  pullErrorDelayMs: ms(0),
};

export const LITE_PULL_CONSUMER_RANGES: Ranges = {
  pullBatchSize: [1, 1024],
  suspendMs: ms(0),
  pullErrorDelayMs: ms(0),
};

/** pullThresholdForQueue 1-65535; pullThresholdSizeForQueue 1 byte to 1 GiB. */
export const FLOW_LIMIT_RANGES: Ranges = {
  messagesMax: [1, 65_535],
  bytesMax: [1, 1024 * 1024 * 1024],
};

/** Throws INVALID_PARAMETER for the first option outside its range (or not an integer). */
export function checkRanges(options: object, ranges: Ranges, prefix = ""): void {
  const values = options as Record<string, unknown>;
  for (const [name, [min, max]] of Object.entries(ranges)) {
    const v = values[name];
    if (v === undefined) continue;
    if (typeof v !== "number" || !Number.isInteger(v) || v < min || v > max)
      throw clientError(`${prefix}${name} ${String(v)} is out of range [${min}, ${max}]`);
  }
}

/** A consumer's options: its own ranges, then its flowLimits. */
export function checkConsumerRanges(options: { flowLimits?: object }, ranges: Ranges): void {
  checkRanges(options, ranges);
  if (options.flowLimits !== undefined) checkRanges(options.flowLimits, FLOW_LIMIT_RANGES, "flowLimits.");
}
