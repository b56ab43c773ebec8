/**
 * Samples the broker's statistics items on Java's schedule (every 10 s, 10 min and hour), so
 * VIEW_BROKER_STATS_DATA answers per-minute, per-hour and per-day figures.
 */
import type { BrokerService } from "./service.ts";
import { DAY_WINDOW, HOUR_WINDOW, MINUTE_WINDOW, type StatsItems } from "./stats-items.ts";

export class StatsSamplingService implements BrokerService {
  readonly name = "stats";
  private timers: ReturnType<typeof setInterval>[] = [];

  constructor(private readonly items: StatsItems) {}

  async start(): Promise<void> {
    for (const window of [MINUTE_WINDOW, HOUR_WINDOW, DAY_WINDOW]) {
      // The first sample now, as Java's schedulers start with no delay.
      this.items.sample(window);
      const t = setInterval(() => this.items.sample(window), window.periodMs);
      t.unref?.();
      this.timers.push(t);
    }
  }

  async stop(): Promise<void> {
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
  }
}
