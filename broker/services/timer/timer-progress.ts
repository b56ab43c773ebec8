/**
 * `config/timerProgress.json`: how far the timer service got, written atomically after every
 * delivery round (and at most `timerFlushIntervalMs` apart). Recovery re-reads the timer topic's
 * queue from `lowWater` and keeps a unit as pending unless it is before `enqueueOffset` and due at
 * or before `firedUpTo` (then it was delivered, cancelled or expired). Java keeps a binary
 * `timercheck` with a timer log and wheel instead; this replaces all three (spec pop-timer-filter
 * §B.9: any structure that survives restarts).
 *
 *   enqueueOffset  queue offset up to which units were read, less any read-late unit not yet
 *                  delivered
 *   firedUpTo      every indexed entry due at or before this time (ms) is delivered
 *   lowWater       no unit below this queue offset is pending
 */
import { join } from "node:path";
import type { Logger } from "../../../src/log.ts";
import { ConfigTable, type ConfigTableOptions } from "../../metadata/config-table.ts";

export interface TimerProgressValues {
  enqueueOffset: number;
  firedUpTo: number;
  lowWater: number;
}

export class TimerProgress extends ConfigTable {
  values: TimerProgressValues = { enqueueOffset: 0, firedUpTo: 0, lowWater: 0 };
  /** Called at the start of every write for the values to write (a consistent snapshot). */
  snapshot: () => TimerProgressValues = () => this.values;

  constructor(storePathRootDir: string, log: Logger, options: ConfigTableOptions = {}) {
    super(join(storePathRootDir, "config", "timerProgress.json"), log, Date.now, options);
  }

  protected decode(raw: unknown): void {
    const r = (raw ?? {}) as Partial<Record<keyof TimerProgressValues, unknown>>;
    const num = (v: unknown) => (Number.isSafeInteger(Number(v)) ? Number(v) : 0);
    this.values = {
      enqueueOffset: num(r.enqueueOffset),
      firedUpTo: num(r.firedUpTo),
      lowWater: Math.min(num(r.lowWater), num(r.enqueueOffset)),
    };
  }

  protected encode(): unknown {
    this.values = this.snapshot();
    return this.values;
  }

  /** The state changed: the next persist writes it. */
  changed(): void {
    this.markDirty();
  }
}
