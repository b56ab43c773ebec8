/**
 * Broker counters for GET_BROKER_RUNTIME_INFO and GET_TOPIC_STATS_INFO (spec broker §12): totals and
 * the per-second rates over the last minute, kept in a fixed ring so memory never grows.
 */
import { GROUP_STATS, groupStatsKey, StatsItems, StatsName, TOPIC_STATS } from "./stats-items.ts";

const WINDOW_SECONDS = 60;

export class RateCounter {
  total = 0;
  private readonly ring = new Float64Array(WINDOW_SECONDS);
  private second: number;

  /** The total at this morning's and yesterday's midnight. */
  private readonly marks: DailyMarks;

  constructor(now = Date.now()) {
    this.second = Math.floor(now / 1000);
    this.marks = new DailyMarks(now);
  }

  add(n: number, now = Date.now()): void {
    this.roll(now);
    this.marks.roll(this.total, now);
    this.total += n;
    this.ring[this.second % WINDOW_SECONDS]! += n;
  }

  /** Average per second over the last minute. */
  perSecond(now = Date.now()): number {
    this.roll(now);
    let sum = 0;
    for (const v of this.ring) sum += v;
    return sum / WINDOW_SECONDS;
  }

  /** Java's ...TotalTodayMorning and ...TotalYesterdayMorning for this counter. */
  morningTotals(now = Date.now()): { today: number; yesterday: number } {
    this.marks.roll(this.total, now);
    return { today: this.marks.todayMorning, yesterday: this.marks.yesterdayMorning };
  }

  private roll(now: number): void {
    const s = Math.floor(now / 1000);
    if (s === this.second) return;
    for (let t = this.second + 1; t <= s && t <= this.second + WINDOW_SECONDS; t++)
      this.ring[t % WINDOW_SECONDS] = 0;
    this.second = s;
  }
}

/** The next local midnight after `now`, as Java's UtilAll.computeNextMorningTimeMillis. */
export function nextMorning(now: number): number {
  const d = new Date(now);
  return new Date(d.getFullYear(), d.getMonth(), d.getDate() + 1).getTime();
}

/**
 * A counter's total as it stood at this morning's and yesterday's local midnight (Java's BrokerStats
 * msgPutTotalTodayMorning / ...YesterdayMorning, which mqadmin subtracts for "today" and
 * "yesterday"). Java snapshots on a timer at midnight; here the first look after a midnight rolls
 * the marks, which gives the same figures because the total cannot change without a look (`add`).
 * Before the first midnight both are 0, as in Java.
 */
export class DailyMarks {
  todayMorning = 0;
  yesterdayMorning = 0;
  private rollAt: number;

  constructor(now = Date.now()) {
    this.rollAt = nextMorning(now);
  }

  /** Call with the total before it changes, and before reading the marks. */
  roll(total: number, now = Date.now()): void {
    if (now < this.rollAt) return;
    // One midnight passed: yesterday's morning is the old today's. Two or more: nothing was added
    // since the last look, so both mornings saw the current total.
    const days = now >= nextMorning(this.rollAt) ? 2 : 1;
    this.yesterdayMorning = days === 1 ? this.todayMorning : total;
    this.todayMorning = total;
    this.rollAt = nextMorning(now);
  }
}

export class BrokerStats {
  readonly bootTimestamp = Date.now();
  /** Per topic and group, for VIEW_BROKER_STATS_DATA. */
  readonly items = new StatsItems();
  readonly putNums = new RateCounter();
  readonly putSize = new RateCounter();
  readonly getNums = new RateCounter();
  readonly getSize = new RateCounter();

  /** `cluster` keys the broker totals (Java's BrokerStatsManager is made with the cluster name). */
  constructor(private readonly cluster: string) {}

  /**
   * A stored send, as Java's SendMessageProcessor counts it: the broker's rates (body bytes) and
   * the topic's statistics (bytes written).
   */
  countPut(topic: string, messages: number, bodyBytes: number, wroteBytes: number, now = Date.now()): void {
    this.putNums.add(messages, now);
    this.putSize.add(bodyBytes, now);
    this.items.add(StatsName.TOPIC_PUT_NUMS, topic, messages);
    this.items.add(StatsName.TOPIC_PUT_SIZE, topic, wroteBytes);
    // Java adds the broker totals' values only, not their times.
    this.items.add(StatsName.BROKER_PUT_NUMS, this.cluster, messages, 0);
  }

  /** A message sent back by a consumer (Java's incSendBackNums), keyed by its own topic. */
  countSendBack(topic: string, group: string, now = Date.now()): void {
    this.putNums.add(1, now);
    this.items.add(StatsName.SNDBCK_PUT_NUMS, groupStatsKey(topic, group), 1);
  }

  /** Java's onTopicDeleted: the topic's own items and its `topic@group` ones go. */
  forgetTopic(topic: string): void {
    const prefix = groupStatsKey(topic, "");
    this.items.forget(TOPIC_STATS, (key) => key === topic);
    this.items.forget(GROUP_STATS, (key) => key.startsWith(prefix));
  }

  /** Java's onGroupDeleted: every `topic@group` item of the group goes. */
  forgetGroup(group: string): void {
    const suffix = groupStatsKey("", group);
    this.items.forget(GROUP_STATS, (key) => key.endsWith(suffix));
  }

  /** A pull that found messages, as Java's PullMessageProcessor counts it. */
  countGet(topic: string, group: string, messages: number, bytes: number): void {
    this.getNums.add(messages);
    this.getSize.add(bytes);
    const key = groupStatsKey(topic, group);
    this.items.add(StatsName.GROUP_GET_NUMS, key, messages);
    this.items.add(StatsName.GROUP_GET_SIZE, key, bytes);
    this.items.add(StatsName.BROKER_GET_NUMS, this.cluster, messages, 0);
  }
}
