/**
 * Base of the persisted config tables: a JSON file under `<storePathRootDir>/config/`, written on
 * demand, periodically and on shutdown (spec §8.10). A failed write leaves the previous file whole
 * and is retried with the table as it is then.
 */
import { basename } from "node:path";
import { StateFile, type StateWriter } from "../../src/config/state-file.ts";
import type { Logger } from "../../src/log.ts";
import { readJsonFile, renderJson, writeJsonFile } from "./json-file.ts";

export interface ConfigTableOptions {
  /** Replaces writeJsonFile, so tests can make writes fail. */
  readonly write?: StateWriter;
  readonly retryMs?: number;
}

export abstract class ConfigTable {
  private timer: ReturnType<typeof setInterval> | undefined;
  private readonly file: StateFile;

  constructor(
    readonly path: string,
    protected readonly log: Logger,
    protected readonly now: () => number = Date.now,
    options: ConfigTableOptions = {},
  ) {
    this.file = new StateFile({
      path,
      render: () => renderJson(this.encode()),
      log,
      what: basename(path),
      write: options.write ?? writeJsonFile,
      retryMs: options.retryMs,
    });
  }

  /** Fills the table from the parsed file content (undefined when there is no file). */
  protected abstract decode(raw: unknown): void;
  /** The JSON object to write. */
  protected abstract encode(): unknown;

  async load(): Promise<void> {
    this.decode(await readJsonFile(this.path));
  }

  protected markDirty(): void {
    this.file.markDirty();
  }

  /**
   * Writes the file if anything changed since the last write. Resolves false when the write
   * failed; the change stays in memory and a retry is scheduled.
   */
  persist(): Promise<boolean> {
    return this.file.save();
  }

  startPersisting(intervalMs: number): void {
    this.timer = setInterval(() => void this.persist(), intervalMs);
    this.timer.unref?.();
  }

  /** Stops the timers and writes any last change; false when that last write failed. */
  async shutdown(): Promise<boolean> {
    clearInterval(this.timer);
    return this.file.close();
  }
}
