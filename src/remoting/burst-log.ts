/**
 * BurstLog: one warning when a burst of like events starts and one line with the count when it
 * ends, so a flood of refused connections or evictions writes two log lines, not one per event
 * (a log line per event would make logging itself the bottleneck an attacker aims for).
 */
import type { Logger } from "pino";

/** A burst ends after this long without a new event. */
export const DEFAULT_BURST_QUIET_MS = 5_000;

export class BurstLog {
  private count = 0;
  private lastAt = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly log: Logger,
    private readonly message: string,
    private readonly quietMs = DEFAULT_BURST_QUIET_MS,
  ) {}

  /** Events in the current burst (0 when none is under way). */
  get inBurst(): number {
    return this.count;
  }

  /** Records one event; only the first of a burst is logged, with `fields`. */
  note(fields: Record<string, unknown> = {}): void {
    this.lastAt = Date.now();
    this.count++;
    if (this.count > 1) return;
    this.log.warn(fields, this.message);
    this.arm(this.quietMs);
  }

  /** Drops a pending summary (the owner is shutting down). */
  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.count = 0;
  }

  private arm(ms: number): void {
    this.timer = setTimeout(() => this.check(), ms);
    this.timer.unref?.();
  }

  private check(): void {
    const quiet = Date.now() - this.lastAt;
    if (quiet < this.quietMs) {
      this.arm(this.quietMs - quiet);
      return;
    }
    this.timer = null;
    this.log.info({ events: this.count }, `${this.message} (burst over)`);
    this.count = 0;
  }
}
