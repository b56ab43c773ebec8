/**
 * DataVersion of a persisted config table (spec §8.10): the protocol's DataVersion, read from a
 * file leniently (a missing timestamp means "now") and kept as plain numbers so it writes as JSON.
 */
import { type DataVersion, newDataVersion, nextDataVersion } from "../../src/protocol/route/data-version.ts";

export type { DataVersion };
export { newDataVersion, nextDataVersion };

export function readDataVersion(raw: unknown, now: number): DataVersion {
  const r = (raw ?? {}) as Partial<Record<keyof DataVersion, unknown>>;
  return {
    counter: Number(r.counter ?? 0),
    stateVersion: Number(r.stateVersion ?? 0),
    timestamp: Number(r.timestamp ?? now),
  };
}
