/**
 * `config/delayOffset.json` (spec §9.5): `{"offsetTable":{<level>:<next CQ offset>}}`, the progress
 * of each delay level's queue in SCHEDULE_TOPIC_XXXX.
 */
import { join } from "node:path";
import type { Logger } from "../../src/log.ts";
import { ConfigTable, type ConfigTableOptions } from "./config-table.ts";

export class DelayOffsets extends ConfigTable {
  readonly table = new Map<number, number>();

  constructor(
    storePathRootDir: string,
    log: Logger,
    now: () => number = Date.now,
    options: ConfigTableOptions = {},
  ) {
    super(join(storePathRootDir, "config", "delayOffset.json"), log, now, options);
  }

  protected decode(raw: unknown): void {
    const r = (raw ?? {}) as { offsetTable?: Record<string, number> };
    this.table.clear();
    for (const [level, offset] of Object.entries(r.offsetTable ?? {}))
      this.table.set(Number(level), Number(offset));
  }

  protected encode(): unknown {
    return { offsetTable: Object.fromEntries(this.table) };
  }

  get(level: number): number {
    return this.table.get(level) ?? 0;
  }

  set(level: number, offset: number): void {
    this.table.set(level, offset);
    this.markDirty();
  }
}
