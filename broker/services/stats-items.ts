/**
 * Per-topic and per-group traffic statistics, as Java's BrokerStatsManager keeps them for
 * VIEW_BROKER_STATS_DATA (mqadmin statsAll, dashboards, exporters): each item counts a value and
 * the number of times it was added, and is sampled every 10 s (the last 7 samples: a minute),
 * every 10 min (the last 7: an hour) and every hour (the last 25: a day). A figure is the
 * difference between the first and last sample of its list: sum, tps = sum per second over the
 * span between them, avgpt = sum per add. Items come into being on first use, one per topic or
 * `topic@group`; an item without traffic for a day leaves, and each statistic keeps at most
 * STATS_ITEMS_MAX, since clients name the keys.
 */

/** Java's BrokerStatsManager statistic names that this broker counts. */
export const StatsName = {
  TOPIC_PUT_NUMS: "TOPIC_PUT_NUMS",
  TOPIC_PUT_SIZE: "TOPIC_PUT_SIZE",
  GROUP_GET_NUMS: "GROUP_GET_NUMS",
  GROUP_GET_SIZE: "GROUP_GET_SIZE",
  SNDBCK_PUT_NUMS: "SNDBCK_PUT_NUMS",
  BROKER_PUT_NUMS: "BROKER_PUT_NUMS",
  BROKER_GET_NUMS: "BROKER_GET_NUMS",
} as const;

export type StatsNameValue = (typeof StatsName)[keyof typeof StatsName];

/** The statistics keyed by topic, and those keyed by `topic@group`. */
export const TOPIC_STATS: readonly StatsNameValue[] = [StatsName.TOPIC_PUT_NUMS, StatsName.TOPIC_PUT_SIZE];
export const GROUP_STATS: readonly StatsNameValue[] = [
  StatsName.GROUP_GET_NUMS,
  StatsName.GROUP_GET_SIZE,
  StatsName.SNDBCK_PUT_NUMS,
];

/** Java's BrokerStatsManager.buildStatsKey for group statistics. */
export function groupStatsKey(topic: string, group: string): string {
  return `${topic}@${group}`;
}

interface Sample {
  readonly at: number;
  readonly times: number;
  readonly value: number;
}

/** One of the three sample lists: its period and how many samples it keeps. */
interface Window {
  readonly periodMs: number;
  readonly keep: number;
}

export const MINUTE_WINDOW: Window = { periodMs: 10_000, keep: 7 };
export const HOUR_WINDOW: Window = { periodMs: 10 * 60_000, keep: 7 };
export const DAY_WINDOW: Window = { periodMs: 60 * 60_000, keep: 25 };
const WINDOWS = [MINUTE_WINDOW, HOUR_WINDOW, DAY_WINDOW] as const;

/** Java's StatsSnapshot as BrokerStatsItem carries it. */
export interface StatsFigures {
  sum: number;
  tps: number;
  avgpt: number;
}

export class StatsItem {
  value = 0;
  times = 0;
  private readonly samples: Sample[][] = [[], [], []];

  add(value: number, times: number): void {
    this.value += value;
    this.times += times;
  }

  /** Takes a sample for `window`; the first one starts from zero one period earlier, as in Java. */
  sample(window: Window, now: number): void {
    const list = this.samples[WINDOWS.indexOf(window)]!;
    if (list.length === 0) list.push({ at: now - window.periodMs, times: 0, value: 0 });
    list.push({ at: now, times: this.times, value: this.value });
    if (list.length > window.keep) list.shift();
  }

  /** True once a whole day window has been sampled and nothing was added across it. */
  get idleForADay(): boolean {
    const day = this.samples[WINDOWS.indexOf(DAY_WINDOW)]!;
    const first = day[0];
    return day.length >= DAY_WINDOW.keep && first!.times === this.times && first!.value === this.value;
  }

  figures(window: Window): StatsFigures {
    const list = this.samples[WINDOWS.indexOf(window)]!;
    if (list.length === 0) return { sum: 0, tps: 0, avgpt: 0 };
    const first = list[0]!;
    const last = list[list.length - 1]!;
    const sum = last.value - first.value;
    const times = last.times - first.times;
    return { sum, tps: (sum * 1000) / (last.at - first.at), avgpt: times > 0 ? sum / times : 0 };
  }
}

/**
 * Items per statistic at most: keys come from clients (a pull names its group), so a client
 * inventing groups must not grow the broker's memory without bound. Past it, new keys go uncounted
 * until idle items leave (a day without traffic, checked at each hourly sample).
 */
export const STATS_ITEMS_MAX = 100_000;

export class StatsItems {
  private readonly sets = new Map<string, Map<string, StatsItem>>();

  constructor(private readonly itemsMax = STATS_ITEMS_MAX) {}

  add(name: StatsNameValue, key: string, value: number, times = 1): void {
    let set = this.sets.get(name);
    if (set === undefined) {
      set = new Map();
      this.sets.set(name, set);
    }
    let item = set.get(key);
    if (item === undefined) {
      if (set.size >= this.itemsMax) return;
      item = new StatsItem();
      set.set(key, item);
    }
    item.add(value, times);
  }

  /** Items kept for `name`. */
  size(name: StatsNameValue): number {
    return this.sets.get(name)?.size ?? 0;
  }

  get(name: string, key: string): StatsItem | undefined {
    return this.sets.get(name)?.get(key);
  }

  /** Samples every item for `window`; the hourly (day) sample also drops items idle for a day. */
  sample(window: Window, now = Date.now()): void {
    for (const set of this.sets.values())
      for (const [key, item] of set) {
        item.sample(window, now);
        if (window === DAY_WINDOW && item.idleForADay) set.delete(key);
      }
  }

  /** Forgets the items of topics or groups that are gone (Java's onTopicDeleted / onGroupDeleted). */
  forget(names: readonly StatsNameValue[], matches: (key: string) => boolean): void {
    for (const name of names) {
      const set = this.sets.get(name);
      if (set !== undefined) for (const key of set.keys()) if (matches(key)) set.delete(key);
    }
  }
}
