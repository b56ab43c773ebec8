/**
 * A file that mirrors in-memory state (topics.json, kvConfig.json, runtime config changes). Every
 * write renders the latest state; a failed write (EMFILE, ENOSPC, ...) is retried later with the
 * state as it is then, and is logged once per run of failures, not once per attempt.
 */
import type { Logger } from "../log.ts";
import { atomicWriteFile } from "./atomic-file.ts";

/** Writes the whole file; atomicWriteFile unless a test injects another. */
export type StateWriter = (path: string, data: string | Uint8Array) => Promise<void>;

/** First retry after a failed write; each further failure doubles it, up to the maximum. */
export const DEFAULT_STATE_FILE_RETRY_MS = 500;
export const DEFAULT_STATE_FILE_RETRY_MS_MAX = 30_000;

export interface StateFileOptions {
  readonly path: string;
  /** The content for the state as it is now; called at the start of each write. */
  readonly render: () => string | Uint8Array;
  readonly log: Logger;
  /** What the file holds, for log lines ("topic table"). */
  readonly what: string;
  readonly write?: StateWriter;
  readonly retryMs?: number;
  readonly retryMsMax?: number;
}

export class StateFile {
  readonly path: string;
  private dirty = false;
  private running: Promise<boolean> | undefined;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  /** Consecutive failed writes; 0 when the file matches the last state written. */
  private failures = 0;
  private closed = false;
  private readonly write: StateWriter;

  constructor(private readonly options: StateFileOptions) {
    this.path = options.path;
    this.write = options.write ?? ((path, data) => atomicWriteFile(path, data));
  }

  /** The state changed; the next save writes it. */
  markDirty(): void {
    this.dirty = true;
  }

  /** True while the file may lag the state: unsaved changes, a write under way, or a retry due. */
  get pending(): boolean {
    return this.dirty || this.running !== undefined;
  }

  /**
   * Writes the latest state if it changed. Resolves true when the file holds it, false when the
   * write failed (a retry is scheduled). Never rejects: the state stays authoritative in memory.
   */
  async save(): Promise<boolean> {
    // One write at a time; a change made during a write is picked up by the next one.
    while (this.running) await this.running;
    if (!this.dirty) return true;
    this.dirty = false;
    this.running = this.attempt().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  /** Cancels a scheduled retry and makes one last attempt if the file lags. */
  async close(): Promise<boolean> {
    this.closed = true;
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    const saved = await this.save();
    // Said whatever the episode logged before: this loss is final.
    if (!saved) {
      this.options.log.error(
        { path: this.path },
        `closing with the ${this.options.what} not written; its last changes are lost`,
      );
    }
    return saved;
  }

  private async attempt(): Promise<boolean> {
    const { path, what, log } = this.options;
    try {
      await this.write(path, this.options.render());
    } catch (err) {
      this.dirty = true;
      this.failures++;
      if (this.failures === 1)
        log.error({ err, path }, `writing the ${what} failed; retrying with the latest state`);
      else
        log.debug(
          { err: (err as Error).message, path, failures: this.failures },
          `writing the ${what} failed again`,
        );
      this.scheduleRetry();
      return false;
    }
    if (this.failures > 0) log.info({ path, failures: this.failures }, `the ${what} is written again`);
    this.failures = 0;
    return true;
  }

  private scheduleRetry(): void {
    if (this.closed || this.retryTimer) return;
    const base = this.options.retryMs ?? DEFAULT_STATE_FILE_RETRY_MS;
    const max = this.options.retryMsMax ?? DEFAULT_STATE_FILE_RETRY_MS_MAX;
    const delay = Math.min(max, base * 2 ** Math.min(this.failures - 1, 30));
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      void this.save();
    }, delay);
    this.retryTimer.unref?.();
  }
}
