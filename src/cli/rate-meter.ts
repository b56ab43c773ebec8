/**
 * The live rate line of `produce` and `consume`: counts and latencies per interval, printed once
 * a second (redrawn in place on a terminal, one line each on a pipe, as RocketMQ's benchmark tools
 * print), and the summary at the end.
 */

export interface RateSnapshot {
  /** Everything so far. */
  total: number;
  failed: number;
  /** Per second over the last interval. */
  tps: number;
  /** Mean and max latency over the last interval, ms; 0 when none. */
  avgMs: number;
  maxMs: number;
}

export class RateMeter {
  total = 0;
  failed = 0;
  private readonly startedAt: number;
  private windowStart: number;
  private windowCount = 0;
  private windowLatencySum = 0;
  private windowLatencyMax = 0;
  private latencySum = 0;
  private latencyMax = 0;

  constructor(private readonly now: () => number = () => performance.now()) {
    this.startedAt = now();
    this.windowStart = this.startedAt;
  }

  /** One success that took `latencyMs`. */
  ok(latencyMs: number): void {
    this.total++;
    this.windowCount++;
    this.windowLatencySum += latencyMs;
    this.latencySum += latencyMs;
    if (latencyMs > this.windowLatencyMax) this.windowLatencyMax = latencyMs;
    if (latencyMs > this.latencyMax) this.latencyMax = latencyMs;
  }

  fail(): void {
    this.failed++;
  }

  /** The interval since the last call, then a new interval starts. */
  take(): RateSnapshot {
    const now = this.now();
    const seconds = Math.max(1e-3, (now - this.windowStart) / 1000);
    const snap = {
      total: this.total,
      failed: this.failed,
      tps: this.windowCount / seconds,
      avgMs: this.windowCount > 0 ? this.windowLatencySum / this.windowCount : 0,
      maxMs: this.windowLatencyMax,
    };
    this.windowStart = now;
    this.windowCount = 0;
    this.windowLatencySum = 0;
    this.windowLatencyMax = 0;
    return snap;
  }

  /** Over the whole run. */
  summary(): { total: number; failed: number; elapsedMs: number; tps: number; avgMs: number; maxMs: number } {
    const elapsedMs = this.now() - this.startedAt;
    return {
      total: this.total,
      failed: this.failed,
      elapsedMs: Math.round(elapsedMs),
      tps: elapsedMs > 0 ? (this.total * 1000) / elapsedMs : 0,
      avgMs: this.total > 0 ? this.latencySum / this.total : 0,
      maxMs: this.latencyMax,
    };
  }
}

export interface RateLine {
  stop(): void;
}

/**
 * Prints `render(meter.take())` every `intervalMs` to `write`; on a terminal the line is redrawn
 * in place and ended by stop().
 */
export function startRateLine(
  meter: RateMeter,
  render: (s: RateSnapshot) => string,
  write: (text: string) => void,
  terminal: boolean,
  intervalMs = 1000,
): RateLine {
  let drawn = false;
  const timer = setInterval(() => {
    const line = render(meter.take());
    write(terminal ? `\r${line}\u001b[K` : `${line}\n`);
    drawn = true;
  }, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      if (terminal && drawn) write("\n");
    },
  };
}

/** Resolves on the first SIGINT or SIGTERM; the returned function removes the handlers. */
export function untilSignal(): { stopped: Promise<string>; dispose: () => void } {
  let resolve: (signal: string) => void = () => {};
  const stopped = new Promise<string>((r) => {
    resolve = r;
  });
  const onInt = () => resolve("SIGINT");
  const onTerm = () => resolve("SIGTERM");
  process.once("SIGINT", onInt);
  process.once("SIGTERM", onTerm);
  return {
    stopped,
    dispose: () => {
      process.off("SIGINT", onInt);
      process.off("SIGTERM", onTerm);
    },
  };
}
