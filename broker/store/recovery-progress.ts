/**
 * Lines a person reads while the store recovers: a long recovery (gigabytes of CommitLog after a
 * crash) otherwise prints nothing until it is over, and looks hung. After a crash (the abort file was
 * present, spec §5.5) it logs a start line, a progress line at most every `intervalMs` while the
 * CommitLog is checked and then replayed through the Dispatcher, and a done line with the duration.
 * A normal recovery only logs progress, and only when it runs past the interval.
 */
import type { Logger } from "../../src/log.ts";

/** Milliseconds between progress lines. */
export const DEFAULT_RECOVERY_PROGRESS_INTERVAL_MS = 5000;

/**
 * Records between clock reads: performance.now() costs about 40 ns here, 1-2% of a record's
 * recovery, and 128 records take well under a millisecond, so lines stay on time.
 */
export const CLOCK_EVERY_RECORDS = 128;

const MIB = 1024 * 1024;

export type RecoveryPhase = "check" | "dispatch";

export interface RecoveryProgressOptions {
  readonly log: Logger;
  readonly abnormal: boolean;
  readonly intervalMs?: number;
  /** Milliseconds; tests pass a fake clock. */
  readonly now?: () => number;
  /** Records between clock reads (CLOCK_EVERY_RECORDS); tests pass 1. */
  readonly clockEvery?: number;
}

export interface RecoveryOutcome {
  readonly validEnd: number;
  readonly truncatedBytes: number;
}

const mib = (bytes: number) => (bytes / MIB).toFixed(1);
const percent = (part: number, whole: number) => (whole <= 0 ? 100 : Math.min(100, (part * 100) / whole));

export class RecoveryProgress {
  private readonly log: Logger;
  private readonly abnormal: boolean;
  private readonly intervalMs: number;
  private readonly now: () => number;
  private readonly clockEvery: number;
  private records = 0;
  private readonly started: number;
  private lastLine: number;
  private from = 0;
  /** Where the data is estimated to end: the check's 100%. */
  private to = 0;
  /** Where the check found the last valid record's end; the replay's 100%. */
  private validEnd = 0;
  /** Records handed to the Dispatcher so far. */
  dispatched = 0;

  constructor(o: RecoveryProgressOptions) {
    this.log = o.log;
    this.abnormal = o.abnormal;
    this.intervalMs = o.intervalMs ?? DEFAULT_RECOVERY_PROGRESS_INTERVAL_MS;
    this.now = o.now ?? (() => performance.now());
    this.clockEvery = o.clockEvery ?? CLOCK_EVERY_RECORDS;
    this.started = this.now();
    this.lastLine = this.started;
  }

  private get prefix(): string {
    return this.abnormal ? "abnormal recovery" : "recovery";
  }

  /** The range to scan is known (`to` estimated): after a crash, say how much there is to check. */
  begin(from: number, to: number): void {
    this.from = from;
    this.to = to;
    this.validEnd = to;
    if (!this.abnormal) return;
    this.log.warn(
      { scanFrom: from, bytes: to - from },
      `abnormal recovery: about ${mib(to - from)} MiB of commitlog to check (the last shutdown was not clean)`,
    );
  }

  /** The check pass ended at `validEnd`; the replay goes that far. */
  checked(validEnd: number): void {
    this.validEnd = validEnd;
  }

  /** Called after each record; logs when an interval has passed since the last line. */
  advance(phase: RecoveryPhase, offset: number): void {
    if (phase === "dispatch") this.dispatched++;
    if (++this.records % this.clockEvery !== 0) return;
    const t = this.now();
    if (t - this.lastLine < this.intervalMs) return;
    this.lastLine = t;
    const done = offset - this.from;
    const whole = (phase === "check" ? this.to : this.validEnd) - this.from;
    const share = `${mib(done)} of ${mib(whole)} MiB (${percent(done, whole).toFixed(0)}%)`;
    const seconds = ((t - this.started) / 1000).toFixed(1);
    if (phase === "check") {
      this.log.info({ offset, bytes: done }, `${this.prefix}: checked ${share}, ${seconds} s so far`);
    } else {
      this.log.info(
        { offset, bytes: done, records: this.dispatched },
        `${this.prefix}: re-dispatched ${this.dispatched} records, ${share}, ${seconds} s so far`,
      );
    }
  }

  /** After a crash, the closing line: how long, how much was kept and how much was cut. */
  end(outcome: RecoveryOutcome): void {
    if (!this.abnormal) return;
    const seconds = ((this.now() - this.started) / 1000).toFixed(1);
    this.log.info(
      { validEnd: outcome.validEnd, records: this.dispatched, truncatedBytes: outcome.truncatedBytes },
      `abnormal recovery done in ${seconds} s: ${mib(outcome.validEnd - this.from)} MiB checked, ` +
        `${this.dispatched} records re-dispatched, ${outcome.truncatedBytes} bytes of torn tail cut`,
    );
  }
}
