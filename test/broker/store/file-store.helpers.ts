/** Opening, reopening and inspecting a file store in tests. */
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { FileMessageStore, type FileStoreDeps } from "../../../broker/store/file-store.ts";
import type { StoreOptions } from "../../../broker/store/store-options.ts";
import { decodeRecord } from "../../../src/protocol/message/index.ts";

export const SMALL: Partial<StoreOptions> = {
  mappedFileSizeCommitLog: 4096,
  mappedFileSizeConsumeQueue: 50 * 20,
  maxHashSlotNum: 32,
  maxIndexNum: 64,
};

export async function openStore(
  root: string,
  options: Partial<StoreOptions> = {},
  deps: FileStoreDeps = {},
): Promise<FileMessageStore> {
  const s = new FileMessageStore({ storePathRootDir: root, ...SMALL, ...options }, deps);
  await s.open();
  return s;
}

/** Stops a store as a crash would: nothing flushed, the abort file left behind. */
export async function abandon(s: FileMessageStore): Promise<void> {
  s.flusher.stop();
  await s.index?.close().catch(() => {});
  await s.cqs.closeAll();
  await s.cl.close();
  await s.checkpoint.close();
  await s.releaseLock(); // the kernel drops a killed process's lock
  // Timers are unref'd; stop them so the abandoned store does nothing more.
  await (s as unknown as { timers: ReturnType<typeof setInterval>[] }).timers.forEach(clearInterval);
}

export async function commitLogFiles(root: string): Promise<string[]> {
  return (await readdir(join(root, "commitlog"))).sort();
}

/** Every message of a queue, read through the pull path: [queueOffset, body]. */
export async function readQueue(
  s: FileMessageStore,
  topic: string,
  queueId: number,
): Promise<[number, string][]> {
  const out: [number, string][] = [];
  let offset = s.getMinOffsetInQueue(topic, queueId);
  for (;;) {
    const g = await s.getMessage("g", topic, queueId, offset, 32, 1 << 20);
    for (const m of g.messages) {
      const d = decodeRecord(m);
      out.push([d.queueOffset, new TextDecoder().decode(d.body)]);
    }
    if (g.nextBeginOffset === offset || g.status === "OFFSET_OVERFLOW_ONE") break;
    offset = g.nextBeginOffset;
  }
  return out;
}
