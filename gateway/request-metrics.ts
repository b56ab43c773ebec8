/**
 * HTTP request counts and latencies by method, route pattern and status, tallied in plain numbers
 * as requests finish and handed to Prometheus only when /metrics is scraped. prom-client checks
 * and hashes the labels on every inc and observe, which was most of a produce's bookkeeping;
 * here a request costs one map lookup and a few additions.
 *
 * The exposition is the one prom-client wrote before: a Counter (flushed by its collect hook) and
 * a histogram whose values are given to the registry in prom-client's own shape (bucket lines in
 * ascending `le`, then `+Inf`, `_sum`, `_count`; labels `le`, method, route).
 */
import type { Counter, Metric, Registry } from "prom-client";

/** One method + route + status since the process started (count pending for the counter). */
interface Tally {
  readonly method: string;
  readonly route: string;
  readonly status: number;
  readonly labels: { method: string; route: string; status: string };
  /** Requests not yet handed to the counter. */
  pending: number;
  readonly latency: LatencyTally;
}

/** One method + route: the histogram's state, kept here (never in prom-client). */
interface LatencyTally {
  readonly labels: { method: string; route: string };
  count: number;
  sum: number;
  /** Observations per bucket (not cumulative); index `bounds.length` is above every bound. */
  readonly buckets: number[];
}

export class RequestMetrics {
  private readonly tallies = new Map<string, Tally>();
  private readonly latencies = new Map<string, LatencyTally>();
  private readonly histogram: LatencyHistogram;
  /**
   * The tally observed last: a busy route answers the same status request after request, and the
   * key string of a map lookup (built per request) cost more than the counting itself.
   */
  private last: Tally | undefined;

  constructor(
    private readonly requests: Counter<"method" | "route" | "status">,
    latency: { name: string; help: string; buckets: readonly number[] },
    registry: Registry,
  ) {
    this.histogram = new LatencyHistogram(latency.name, latency.help, latency.buckets, this.latencies);
    // A custom metric object: the registry only calls get() (and reset()) on what it holds.
    registry.registerMetric(this.histogram as unknown as Metric);
  }

  /** Counts one request and its latency. Routes are patterns, so the tallies stay few. */
  observe(method: string, route: string, status: number, seconds: number): void {
    let t = this.last;
    if (t === undefined || t.status !== status || t.route !== route || t.method !== method) {
      t = this.tallyOf(method, route, status);
      this.last = t;
    }
    t.pending++;
    const l = t.latency;
    l.count++;
    l.sum += seconds;
    l.buckets[this.histogram.bucketOf(seconds)]!++;
  }

  /** Hands pending counts to the counter (its collect hook, run before every scrape). */
  flush(): void {
    for (const t of this.tallies.values()) {
      if (t.pending === 0) continue;
      this.requests.inc(t.labels, t.pending);
      t.pending = 0;
    }
  }

  private tallyOf(method: string, route: string, status: number): Tally {
    const key = `${method} ${route} ${status}`;
    let t = this.tallies.get(key);
    if (t === undefined) {
      t = {
        method,
        route,
        status,
        labels: { method, route, status: String(status) },
        pending: 0,
        latency: this.latencyOf(method, route),
      };
      this.tallies.set(key, t);
    }
    return t;
  }

  private latencyOf(method: string, route: string): LatencyTally {
    const key = `${method} ${route}`;
    let l = this.latencies.get(key);
    if (l === undefined) {
      l = {
        labels: { method, route },
        count: 0,
        sum: 0,
        buckets: new Array(this.histogram.size + 1).fill(0),
      };
      this.latencies.set(key, l);
    }
    return l;
  }
}

interface Value {
  labels: Record<string, string | number>;
  value: number;
  metricName: string;
}

/** The latency histogram as the registry reads it (prom-client's value shape). */
class LatencyHistogram {
  readonly type = "histogram";
  readonly aggregator = "sum";
  readonly size: number;

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly bounds: readonly number[],
    private readonly tallies: Map<string, LatencyTally>,
  ) {
    this.size = bounds.length;
  }

  /** The first bucket whose bound is ≥ `v` (prom-client's `le`); `size` when above them all. */
  bucketOf(v: number): number {
    const b = this.bounds;
    for (let i = 0; i < b.length; i++) if (v <= b[i]!) return i;
    return b.length;
  }

  async get() {
    const values: Value[] = [];
    const bucket = `${this.name}_bucket`;
    for (const t of this.tallies.values()) {
      // As prom-client: a label set appears with its first observation (again after a reset).
      if (t.count === 0) continue;
      let acc = 0;
      for (let i = 0; i < this.bounds.length; i++) {
        acc += t.buckets[i]!;
        values.push({ labels: { le: this.bounds[i]!, ...t.labels }, value: acc, metricName: bucket });
      }
      values.push({ labels: { le: "+Inf", ...t.labels }, value: t.count, metricName: bucket });
      values.push({ labels: { ...t.labels }, value: t.sum, metricName: `${this.name}_sum` });
      values.push({ labels: { ...t.labels }, value: t.count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  /** Zeroes every tally in place (the request tallies hold them). */
  reset(): void {
    for (const t of this.tallies.values()) {
      t.count = 0;
      t.sum = 0;
      t.buckets.fill(0);
    }
  }
}
