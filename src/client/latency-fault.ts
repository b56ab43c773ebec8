/**
 * Broker fault avoidance (Java's MQFaultStrategy + LatencyFaultToleranceImpl): a broker that
 * failed, or answered slowly, is not chosen for new sends until its penalty expires.
 */

/** Latency steps and the matching unavailability, as Java's defaults. */
const LATENCY_MAX_MS = [50, 100, 550, 1000, 2000, 3000, 15000] as const;
const NOT_AVAILABLE_MS = [0, 0, 30000, 60000, 120000, 180000, 600000] as const;
/** How long a broker that failed outright is avoided. */
export const DEFAULT_FAULT_ISOLATION_MS = 30_000;

export class LatencyFaultTolerance {
  private readonly until = new Map<string, number>();

  constructor(
    private readonly isolationMs = DEFAULT_FAULT_ISOLATION_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /** Records one send's outcome: latency on success, or isolation after a failure. */
  update(brokerName: string, latencyMs: number, failed: boolean): void {
    const penalty = failed ? this.isolationMs : penaltyFor(latencyMs);
    if (penalty <= 0) {
      this.until.delete(brokerName);
      return;
    }
    this.until.set(brokerName, this.now() + penalty);
  }

  isAvailable(brokerName: string): boolean {
    const t = this.until.get(brokerName);
    return t === undefined || t <= this.now();
  }

  /** The broker whose penalty ends first (used when every broker is penalised). */
  leastBad(candidates: Iterable<string>): string | undefined {
    let best: string | undefined;
    let bestUntil = Infinity;
    for (const b of candidates) {
      const t = this.until.get(b) ?? 0;
      if (t < bestUntil) {
        best = b;
        bestUntil = t;
      }
    }
    return best;
  }
}

function penaltyFor(latencyMs: number): number {
  for (let i = LATENCY_MAX_MS.length - 1; i >= 0; i--) {
    if (latencyMs >= LATENCY_MAX_MS[i]!) return NOT_AVAILABLE_MS[i]!;
  }
  return 0;
}
