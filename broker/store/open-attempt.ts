/**
 * Opening or creating a store file, retried after a failure. A transient error (EMFILE while
 * descriptors are exhausted, ENOSPC for a moment) must not be cached for the life of the process:
 * the next caller that needs the file starts a fresh attempt.
 */
import type { FileHandle } from "node:fs/promises";

export class OpenAttempt {
  private current: Promise<void>;
  private failed = false;

  constructor(private readonly run: () => Promise<void>) {
    this.current = this.start();
  }

  private start(): Promise<void> {
    const p = this.run();
    // A failure surfaces to whoever awaits the file; never as an unhandled rejection.
    p.catch(() => {
      if (this.current === p) this.failed = true;
    });
    return p;
  }

  /** Settles when the file is open; after a failed attempt, starts another. */
  get ready(): Promise<void> {
    if (this.failed) {
      this.failed = false;
      this.current = this.start();
    }
    return this.current;
  }

  /** The latest attempt, settled either way (for closing). */
  settled(): Promise<void> {
    return this.current.catch(() => {});
  }
}

/** Runs `prepare` on a just-opened file; closes the file if it fails, so a retry starts clean. */
export async function closedOnFailure(fh: FileHandle, prepare: () => Promise<unknown>): Promise<void> {
  try {
    await prepare();
  } catch (err) {
    await fh.close().catch(() => {});
    throw err;
  }
}
