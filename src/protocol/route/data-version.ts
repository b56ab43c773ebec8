/**
 * DataVersion (spec remoting §8): a broker's topic-config version. Longs are kept exactly as read
 * (number, or bigint beyond 2^53) because equality decides whether a registration changed anything.
 */
import { asLong, asObject, type Long, parseJson } from "../json/index.ts";

export interface DataVersion {
  stateVersion: Long;
  timestamp: Long;
  counter: Long;
}

/** A fresh version: counter 0 at `now` (Java's `new DataVersion()`). */
export function newDataVersion(now = Date.now()): DataVersion {
  return { stateVersion: 0, timestamp: now, counter: 0 };
}

/** Java's nextVersion(stateVersion): timestamp = now, counter + 1. */
export function nextDataVersion(
  v: DataVersion,
  stateVersion: Long = v.stateVersion,
  now = Date.now(),
): DataVersion {
  const counter = typeof v.counter === "bigint" ? v.counter + 1n : v.counter + 1;
  return { stateVersion, timestamp: now, counter };
}

/** 5.x equality: stateVersion, timestamp and counter all equal (number and bigint compare by value). */
export function dataVersionEquals(a: DataVersion, b: DataVersion): boolean {
  // biome-ignore lint/suspicious/noDoubleEquals: loose equality compares a number with a bigint by value
  return a.stateVersion == b.stateVersion && a.timestamp == b.timestamp && a.counter == b.counter;
}

/** Reads a DataVersion from parsed JSON; 4.9.x peers omit stateVersion (0). */
export function readDataVersion(v: Parameters<typeof asObject>[0], path = "dataVersion"): DataVersion {
  const o = asObject(v, path);
  return {
    stateVersion: asLong(o.stateVersion, `${path}.stateVersion`, 0),
    timestamp: asLong(o.timestamp, `${path}.timestamp`, 0),
    counter: asLong(o.counter, `${path}.counter`, 0),
  };
}

export function decodeDataVersion(body: Uint8Array): DataVersion {
  return readDataVersion(parseJson(new TextDecoder().decode(body)));
}
