/** Shared helpers for store tests: temp dirs, message builders, a controllable clock. */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FileMessageStore } from "../../../broker/store/file-store.ts";
import type { MessageToStore } from "../../../broker/store/message-store.ts";
import type { StoreOptions } from "../../../broker/store/store-options.ts";
import { encodeProperties, hostAddress } from "../../../src/protocol/message/index.ts";

export async function tempDir(): Promise<{ path: string; [Symbol.asyncDispose](): Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), "rocketbun-store-"));
  return { path, [Symbol.asyncDispose]: () => rm(path, { recursive: true, force: true }) };
}

export const STORE_HOST = hostAddress("10.0.0.9", 10911);

export function message(
  topic: string,
  queueId: number,
  body: string | Uint8Array,
  props: Record<string, string> = {},
  sysFlag = 0,
): MessageToStore {
  const properties = new Map(Object.entries(props));
  return {
    topic,
    queueId,
    flag: 0,
    body: typeof body === "string" ? new TextEncoder().encode(body) : body,
    properties,
    propertiesString: encodeProperties(properties),
    bornTimestamp: 1_700_000_000_000,
    bornHost: hostAddress("127.0.0.1", 50000),
    storeHost: STORE_HOST,
    sysFlag,
    reconsumeTimes: 0,
    preparedTransactionOffset: 0,
  };
}

/** A clock tests move by hand. */
export function manualClock(start = 1_700_000_000_000): { now: () => number; advance(ms: number): void } {
  let t = start;
  return {
    now: () => t,
    advance(ms: number) {
      t += ms;
    },
  };
}

export function text(b: Uint8Array): string {
  return new TextDecoder().decode(b);
}

/** A file store opened in `root`, shut down when the `await using` scope that holds it ends. */
export async function openedFileStore(
  root: string,
  options: Partial<StoreOptions> = {},
): Promise<FileMessageStore & AsyncDisposable> {
  const store = new FileMessageStore({ storePathRootDir: root, ...options });
  await store.open();
  return Object.assign(store, { [Symbol.asyncDispose]: () => store.shutdown() });
}
