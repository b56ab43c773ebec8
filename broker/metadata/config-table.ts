/**
 * Base of the persisted config tables: a JSON file under `<storePathRootDir>/config/`, a dirty
 * flag, and persistence on demand, periodically and on shutdown (spec §8.10).
 */
import type { Logger } from "../../src/log.ts";
import { readJsonFile, writeJsonFile } from "./json-file.ts";

export abstract class ConfigTable {
  protected dirty = false;
  private timer: ReturnType<typeof setInterval> | undefined;
  private persisting: Promise<void> | undefined;

  constructor(
    readonly path: string,
    protected readonly log: Logger,
    protected readonly now: () => number = Date.now,
  ) {}

  /** Fills the table from the parsed file content (undefined when there is no file). */
  protected abstract decode(raw: unknown): void;
  /** The JSON object to write. */
  protected abstract encode(): unknown;

  async load(): Promise<void> {
    this.decode(await readJsonFile(this.path));
    this.dirty = false;
  }

  protected markDirty(): void {
    this.dirty = true;
  }

  /** Writes the file if anything changed since the last write. */
  async persist(): Promise<void> {
    while (this.persisting) await this.persisting;
    if (!this.dirty) return;
    this.dirty = false;
    this.persisting = writeJsonFile(this.path, this.encode())
      .catch((err) => {
        this.dirty = true;
        throw err;
      })
      .finally(() => {
        this.persisting = undefined;
      });
    await this.persisting;
  }

  startPersisting(intervalMs: number): void {
    this.timer = setInterval(() => {
      this.persist().catch((err) => this.log.error({ err, path: this.path }, "config persist failed"));
    }, intervalMs);
    this.timer.unref?.();
  }

  /** Stops the timer and writes any last change. */
  async shutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.persist();
  }
}
