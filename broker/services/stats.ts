/**
 * Broker counters for GET_BROKER_RUNTIME_INFO and GET_TOPIC_STATS_INFO (spec broker §12): totals and
 * the per-second rates over the last minute, kept in a fixed ring so memory never grows.
 */
const WINDOW_SECONDS = 60;

export class RateCounter {
  total = 0;
  private readonly ring = new Float64Array(WINDOW_SECONDS);
  private second = Math.floor(Date.now() / 1000);

  add(n: number, now = Date.now()): void {
    this.roll(now);
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

  private roll(now: number): void {
    const s = Math.floor(now / 1000);
    if (s === this.second) return;
    for (let t = this.second + 1; t <= s && t <= this.second + WINDOW_SECONDS; t++)
      this.ring[t % WINDOW_SECONDS] = 0;
    this.second = s;
  }
}

export class BrokerStats {
  readonly bootTimestamp = Date.now();
  readonly putNums = new RateCounter();
  readonly putSize = new RateCounter();
  readonly getNums = new RateCounter();
  readonly getSize = new RateCounter();
}
