/** RocketMQ's DataVersion (spec §8.10): bumped on every change of a config table. */

export interface DataVersion {
  counter: number;
  stateVersion: number;
  timestamp: number;
}

export function newDataVersion(now: number): DataVersion {
  return { counter: 0, stateVersion: 0, timestamp: now };
}

export function bump(v: DataVersion, now: number): void {
  v.counter++;
  v.timestamp = now;
}

export function readDataVersion(raw: unknown, now: number): DataVersion {
  const r = (raw ?? {}) as Partial<DataVersion>;
  return {
    counter: Number(r.counter ?? 0),
    stateVersion: Number(r.stateVersion ?? 0),
    timestamp: Number(r.timestamp ?? now),
  };
}
