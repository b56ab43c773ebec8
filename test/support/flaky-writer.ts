/** A file writer that fails like one does while descriptors are exhausted, for persistence tests. */
import { atomicWriteFile } from "../../src/config/atomic-file.ts";
import type { StateWriter } from "../../src/config/state-file.ts";

export interface FlakyWriter {
  /** While true, every write fails with EMFILE and touches nothing. */
  failing: boolean;
  /** Writes tried so far, failed ones included. */
  attempts: number;
  readonly write: StateWriter;
}

export function flakyWriter(
  delegate: StateWriter = (path, data) => atomicWriteFile(path, data),
): FlakyWriter {
  const w: FlakyWriter = {
    failing: false,
    attempts: 0,
    write: async (path, data) => {
      w.attempts++;
      if (w.failing) throw Object.assign(new Error("EMFILE: too many open files"), { code: "EMFILE" });
      await delegate(path, data);
    },
  };
  return w;
}
