/**
 * `config/delayOffset.json` (spec §9.5): `{"offsetTable":{<level>:<next CQ offset>}}`, the progress
 * of each delay level's queue in SCHEDULE_TOPIC_XXXX.
 */
import { join } from "node:path";
import type { Logger } from "../../src/log.ts";
import { ConfigTable, type ConfigTableOptions } from "./config-table.ts";
import { type DataVersion, newDataVersion, nextDataVersion, readDataVersion } from "./data-version.ts";

export class DelayOffsets extends ConfigTable {
  readonly table = new Map<number, number>();
  /** [5.x] written beside the table; moves on with every change. */
  dataVersion: DataVersion = newDataVersion(this.now());

  constructor(
    storePathRootDir: string,
    log: Logger,
    now: () => number = Date.now,
    options: ConfigTableOptions = {},
  ) {
    super(join(storePathRootDir, "config", "delayOffset.json"), log, now, options);
  }

  protected decode(raw: unknown): void {
    const r = (raw ?? {}) as { offsetTable?: Record<string, number>; dataVersion?: unknown };
    this.table.clear();
    for (const [level, offset] of Object.entries(r.offsetTable ?? {}))
      this.table.set(Number(level), Number(offset));
    this.dataVersion = readDataVersion(r.dataVersion, this.now());
  }

  protected encode(): unknown {
    return { offsetTable: Object.fromEntries(this.table), dataVersion: this.dataVersion };
  }

  /**
   * What Java's ScheduleMessageService.encode() gives a slave or an admin (GET_ALL_DELAY_OFFSET):
   * the levels as bare number keys, as fastjson writes an Integer-keyed map, and [5.x] the
   * dataVersion. Only levels that have delivered (or were loaded) appear, as in Java, in level
   * order (the order Java's hash map of small Integer keys yields).
   */
  wireForm(): { offsetTable: Map<number, number>; dataVersion: DataVersion } {
    const offsetTable = new Map([...this.table].sort(([a], [b]) => a - b));
    return { offsetTable, dataVersion: { ...this.dataVersion } };
  }

  get(level: number): number {
    return this.table.get(level) ?? 0;
  }

  set(level: number, offset: number): void {
    this.table.set(level, offset);
    this.dataVersion = nextDataVersion(this.dataVersion, this.dataVersion.stateVersion, this.now());
    this.markDirty();
  }
}
