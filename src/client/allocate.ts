/**
 * Queue allocation among the consumers of a group (Java's AllocateMessageQueueAveragely): both
 * lists sorted, each consumer takes one contiguous block, the first `mqs mod cids` get one extra.
 */
import { compareMq, type MessageQueue } from "./message-queue.ts";

export type AllocateStrategy = (
  clientId: string,
  mqAll: readonly MessageQueue[],
  cidAll: readonly string[],
) => MessageQueue[];

export const allocateAveragely: AllocateStrategy = (clientId, mqAll, cidAll) => {
  const mqs = [...mqAll].sort(compareMq);
  const cids = [...cidAll].sort();
  const index = cids.indexOf(clientId);
  if (index < 0 || mqs.length === 0) return [];
  const mod = mqs.length % cids.length;
  const base = Math.floor(mqs.length / cids.length);
  const size = mqs.length <= cids.length ? 1 : mod > 0 && index < mod ? base + 1 : base;
  const start = mod > 0 && index < mod ? index * size : index * size + mod;
  const range = Math.min(size, mqs.length - start);
  const out: MessageQueue[] = [];
  for (let i = 0; i < range; i++) out.push(mqs[(start + i) % mqs.length]!);
  return out;
};
