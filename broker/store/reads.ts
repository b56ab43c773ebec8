/**
 * The pull read path shared by both stores (spec §7.5): status and next-offset rules, the
 * ConsumeQueue scan with tag filter and transfer limits, and the time searches (spec §8.3).
 */
import { readI64, storeTimestampPosition } from "../../src/protocol/message/index.ts";
import { CQ_UNIT, CQ_UNIT_BYTES, FILLER_SIZE } from "./consume-queue.ts";
import type { GetMessageResult, MessageFilter, QueueUnit } from "./message-store.ts";
import { BoundaryType, GetMessageStatus } from "./status.ts";

/** A logical queue as the read path sees it. */
export interface QueueView {
  readonly minOffset: number;
  readonly maxOffset: number;
  /** Up to `max` 20-byte units from `offset` (possibly fewer); read only: they may be a cache's view. */
  readUnits(offset: number, max: number): Promise<Uint8Array>;
}

/** The CommitLog as the read path sees it. */
export interface LogView {
  readonly minOffset: number;
  /** Records at the given (phyOffset, size) pairs, undefined where one is gone. */
  readRecords(spans: readonly (readonly [number, number])[]): Promise<(Uint8Array | undefined)[]>;
}

export interface ReadLimits {
  readonly maxFilterMessageSize: number;
}

function result(
  status: GetMessageStatus,
  nextBeginOffset: number,
  minOffset: number,
  maxOffset: number,
  messages: Uint8Array[] = [],
): GetMessageResult {
  const bufferTotalSize = messages.reduce((n, m) => n + m.length, 0);
  return {
    status,
    nextBeginOffset,
    minOffset,
    maxOffset,
    messages,
    bufferTotalSize,
    suggestPullingFromSlave: false,
  };
}

/** RocketMQ's getMessage status table and scan (spec §7.5). */
export async function getMessageFrom(
  queue: QueueView | undefined,
  log: LogView,
  offset: number,
  maxMsgNums: number,
  maxBytes: number,
  filter: MessageFilter | undefined,
  limits: ReadLimits,
): Promise<GetMessageResult> {
  if (!queue) return result(GetMessageStatus.NO_MATCHED_LOGIC_QUEUE, 0, 0, 0);
  const { minOffset, maxOffset } = queue;
  if (maxOffset === 0) return result(GetMessageStatus.NO_MESSAGE_IN_QUEUE, 0, minOffset, maxOffset);
  if (offset < minOffset) return result(GetMessageStatus.OFFSET_TOO_SMALL, minOffset, minOffset, maxOffset);
  if (offset === maxOffset) return result(GetMessageStatus.OFFSET_OVERFLOW_ONE, offset, minOffset, maxOffset);
  if (offset > maxOffset)
    return result(GetMessageStatus.OFFSET_OVERFLOW_BADLY, maxOffset, minOffset, maxOffset);

  const scanUnits = Math.max(Math.floor(limits.maxFilterMessageSize / CQ_UNIT_BYTES), maxMsgNums);
  const units = await queue.readUnits(offset, scanUnits);
  const n = Math.floor(units.length / CQ_UNIT_BYTES);
  if (n === 0) return result(GetMessageStatus.OFFSET_FOUND_NULL, offset, minOffset, maxOffset);
  const dv = new DataView(units.buffer, units.byteOffset, units.byteLength);
  const commitLogFilter = filter?.isMatchedByCommitLog?.bind(filter);
  const scan = commitLogFilter
    ? await scanMatching(dv, n, log, maxMsgNums, maxBytes, filter!, commitLogFilter)
    : await pickUnits(dv, n, log, maxMsgNums, maxBytes, filter);
  const { messages, examined, removing } = scan;
  const next = offset + examined;
  if (messages.length > 0) return result(GetMessageStatus.FOUND, next, minOffset, maxOffset, messages);
  const status = removing ? GetMessageStatus.MESSAGE_WAS_REMOVING : GetMessageStatus.NO_MATCHED_MESSAGE;
  return result(status, next, minOffset, maxOffset);
}

interface Scan {
  readonly messages: Uint8Array[];
  /** Units consumed: the next offset is the read offset plus this. */
  readonly examined: number;
  /** A record was gone (below the commit log's minimum, or unreadable). */
  readonly removing: boolean;
}

/** The units to read: all pass the consume-queue filter, until the batch or the byte limit is full. */
async function pickUnits(
  dv: DataView,
  n: number,
  log: LogView,
  maxMsgNums: number,
  maxBytes: number,
  filter: MessageFilter | undefined,
): Promise<Scan> {
  const picked: [number, number][] = [];
  let bytes = 0;
  let examined = 0;
  let removing = false;
  for (let i = 0; i < n; i++) {
    const at = i * CQ_UNIT_BYTES;
    const phy = readI64(dv, at + CQ_UNIT.phyOffset[0]);
    const size = dv.getInt32(at + CQ_UNIT.size[0]);
    if (picked.length >= maxMsgNums || (picked.length > 0 && bytes + size > maxBytes)) break;
    examined = i + 1;
    if (size === FILLER_SIZE || size <= 0) continue;
    if (phy < log.minOffset) {
      removing = true;
      continue;
    }
    if (filter && !filter.isMatchedByConsumeQueue(readI64(dv, at + CQ_UNIT.tagsCode[0]))) continue;
    picked.push([phy, size]);
    bytes += size;
  }
  const records = picked.length > 0 ? await log.readRecords(picked) : [];
  const messages: Uint8Array[] = [];
  for (const r of records) {
    if (r) messages.push(r);
    else removing = true;
  }
  return { messages, examined, removing };
}

/** Candidates read from the commit log at once when a filter needs the record (SQL92). */
const COMMIT_LOG_FILTER_CHUNK = 64;

/**
 * With a commit-log filter (SQL92) the batch is filled with matches, as Java's getMessage does:
 * candidates are read a chunk at a time and judged in queue order; the scan stops at the first
 * match that no longer fits, which is left for the next pull.
 */
async function scanMatching(
  dv: DataView,
  n: number,
  log: LogView,
  maxMsgNums: number,
  maxBytes: number,
  filter: MessageFilter,
  matches: (record: Uint8Array) => boolean,
): Promise<Scan> {
  const messages: Uint8Array[] = [];
  let bytes = 0;
  let examined = 0;
  let removing = false;
  let i = 0;
  while (i < n) {
    const picked: [number, number][] = [];
    const unitOf: number[] = [];
    for (; i < n && picked.length < COMMIT_LOG_FILTER_CHUNK; i++) {
      const at = i * CQ_UNIT_BYTES;
      const phy = readI64(dv, at + CQ_UNIT.phyOffset[0]);
      const size = dv.getInt32(at + CQ_UNIT.size[0]);
      if (size === FILLER_SIZE || size <= 0) continue;
      if (phy < log.minOffset) {
        removing = true;
        continue;
      }
      if (!filter.isMatchedByConsumeQueue(readI64(dv, at + CQ_UNIT.tagsCode[0]))) continue;
      picked.push([phy, size]);
      unitOf.push(i);
    }
    const records = picked.length > 0 ? await log.readRecords(picked) : [];
    for (let k = 0; k < records.length; k++) {
      const r = records[k];
      if (r && matches(r)) {
        if (messages.length > 0 && bytes + r.length > maxBytes) {
          return { messages, examined: unitOf[k]!, removing };
        }
        messages.push(r);
        bytes += r.length;
        if (messages.length >= maxMsgNums) return { messages, examined: unitOf[k]! + 1, removing };
      } else if (!r) {
        removing = true;
      }
    }
    examined = i;
  }
  return { messages, examined, removing };
}

/**
 * The units of `readUnits(offset, max)` as objects, for broker services that act on a queue's tags
 * slot: the schedule topic's delivery time (spec §9.5), the timer topic's due time. Fillers are
 * included, so a reader always moves past them; `holdsMessage` tells them apart.
 */
export async function readQueueUnitsOf(
  queue: QueueView | undefined,
  offset: number,
  max: number,
): Promise<QueueUnit[]> {
  if (!queue) return [];
  const from = Math.max(offset, queue.minOffset);
  const units = await queue.readUnits(from, max);
  const dv = new DataView(units.buffer, units.byteOffset, units.byteLength);
  const out: QueueUnit[] = [];
  for (let at = 0, i = 0; at + CQ_UNIT_BYTES <= units.length; at += CQ_UNIT_BYTES, i++) {
    out.push({
      queueOffset: from + i,
      phyOffset: readI64(dv, at + CQ_UNIT.phyOffset[0]),
      size: dv.getInt32(at + CQ_UNIT.size[0]),
      tagsCode: readI64(dv, at + CQ_UNIT.tagsCode[0]),
    });
  }
  return out;
}

/** A unit that points at a message: not a filler, not a unit left invalid by a cut. */
export function holdsMessage(u: QueueUnit): boolean {
  return u.size > 0 && u.size !== FILLER_SIZE && u.phyOffset >= 0;
}

/** Store time recorded in a stored record. */
export function recordStoreTimestamp(record: Uint8Array): number {
  const dv = new DataView(record.buffer, record.byteOffset, record.byteLength);
  return readI64(dv, storeTimestampPosition(dv.getInt32(36)));
}

/**
 * SEARCH_OFFSET_BY_TIMESTAMP over a queue whose store times never decrease (spec §8.3, 5.x):
 * LOWER = first offset stored at or after `timestamp` (maxOffset if none); UPPER = last offset
 * stored at or before it (minOffset if none). 0 for an empty queue.
 */
export async function offsetByTime(
  minOffset: number,
  maxOffset: number,
  timeAt: (offset: number) => Promise<number>,
  timestamp: number,
  boundary: BoundaryType,
): Promise<number> {
  if (maxOffset <= minOffset) return Math.max(maxOffset, 0);
  // First offset whose time is ≥ ts (LOWER) or > ts (UPPER); unreadable entries count as old.
  let lo = minOffset;
  let hi = maxOffset;
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    const t = await timeAt(mid);
    const after = boundary === BoundaryType.LOWER ? t >= timestamp : t > timestamp;
    if (after) hi = mid;
    else lo = mid + 1;
  }
  if (boundary === BoundaryType.LOWER) return lo;
  return Math.max(minOffset, lo - 1);
}
