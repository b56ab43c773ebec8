/**
 * CommitLog recovery (spec §5.5): scan from the last trustworthy point, verifying magic,
 * length, position and CRC; cut a torn tail; drop consume-queue units beyond the cut; then
 * replay the scanned range through the same Dispatcher as live appends.
 */
import { stat } from "node:fs/promises";
import type { Logger } from "../../src/log.ts";
import {
  checkRecord,
  MagicCode,
  RECORD,
  readI64,
  storeTimestampPosition,
} from "../../src/protocol/message/index.ts";
import type { Checkpoint } from "./checkpoint.ts";
import type { CommitLog } from "./commitlog.ts";
import type { ConsumeQueueStore } from "./consume-queue-store.ts";
import type { Dispatcher } from "./dispatch.ts";
import { parseDispatchRequest } from "./dispatch-request.ts";
import type { IndexService } from "./index-service.ts";
import { RecoveryProgress } from "./recovery-progress.ts";

/** Bytes read per step while scanning; a larger record is read on its own. */
const SCAN_BLOCK_BYTES = 8 * 1024 * 1024;

export interface RecoveryReport {
  readonly abnormal: boolean;
  readonly scanFrom: number;
  readonly validEnd: number;
  readonly truncatedBytes: number;
  readonly invalidReason: string | undefined;
  readonly scannedBytes: number;
}

type OnRecord = (bytes: Uint8Array, pos: number) => void;

/**
 * Scans valid records from `from` (a record boundary) and returns where validity ends.
 * `onRecord` sees each valid record, in order; `onAdvance` the CommitLog offset after each.
 */
export async function scanCommitLog(
  cl: CommitLog,
  from: number,
  checkCrc: boolean,
  onRecord?: OnRecord,
  onAdvance?: (offset: number) => void,
): Promise<{ end: number; reason: string | undefined }> {
  let offset = from;
  for (let seg = cl.segments.find(offset); seg; seg = cl.segments.find(offset)) {
    let block: Uint8Array = new Uint8Array(0);
    let blockStart = 0; // segment-relative position of block[0]
    for (;;) {
      const rel = offset - seg.start;
      const left = seg.size - rel;
      if (left < 8) break;
      if (blockStart + block.length - rel < 8) {
        block = await seg.read(rel, Math.min(SCAN_BLOCK_BYTES, left));
        blockStart = rel;
      }
      const size = new DataView(block.buffer, block.byteOffset).getInt32(rel - blockStart);
      if (size > 0 && size <= left && rel + size > blockStart + block.length) {
        block = await seg.read(rel, Math.max(size, Math.min(SCAN_BLOCK_BYTES, left)));
        blockStart = rel;
      }
      // Zeros where a record would start: the normal end of the data, not damage.
      if (size === 0 && new DataView(block.buffer, block.byteOffset).getInt32(rel - blockStart + 4) === 0) {
        return { end: offset, reason: undefined };
      }
      const r = checkRecord(block, rel - blockStart, block.length, { checkCrc, physicalOffset: offset });
      if (r.kind === "invalid") return { end: offset, reason: r.reason };
      if (r.kind === "blank") break;
      onRecord?.(block, rel - blockStart);
      offset += r.size;
      onAdvance?.(offset);
    }
    offset = seg.end;
  }
  return { end: offset, reason: undefined };
}

/** Store time of the first record of the segment starting at `start`, or undefined. */
async function firstStoreTimestamp(cl: CommitLog, start: number): Promise<number | undefined> {
  const seg = cl.segments.find(start);
  if (!seg) return undefined;
  const head = await seg.read(0, 128);
  const dv = new DataView(head.buffer);
  const magic = dv.getInt32(RECORD.magicCode[0]);
  if (magic !== MagicCode.MESSAGE && magic !== MagicCode.MESSAGE_V2) return undefined;
  return readI64(dv, storeTimestampPosition(dv.getInt32(RECORD.sysFlag[0])));
}

/**
 * Where the data probably ends, for progress lines only: files are created sparse at full size
 * (segment.ts), so the last one's allocated blocks are about what was written into it. Where the
 * file system allocates everything, or stat fails, the estimate is the end of the last file.
 */
async function estimatedDataEnd(cl: CommitLog): Promise<number> {
  const last = cl.segments.segments.at(-1)!;
  const allocated = await stat(last.path).then(
    (s) => s.blocks * 512,
    () => last.size,
  );
  return last.start + Math.min(last.size, allocated);
}

export interface RecoverDeps {
  readonly cl: CommitLog;
  readonly cqs: ConsumeQueueStore;
  readonly index: IndexService | undefined;
  readonly checkpoint: Checkpoint;
  readonly dispatcher: Dispatcher;
  readonly checkCrc: boolean;
  readonly log: Logger;
  /** Milliseconds between progress lines (RecoveryProgress's default when absent). */
  readonly progressIntervalMs?: number;
}

/** Runs recovery; `abnormal` = the abort file was present (spec §5.5 steps 3-4). */
export async function recover(d: RecoverDeps, abnormal: boolean): Promise<RecoveryReport> {
  const { cl, cqs, index } = d;
  const segs = cl.segments.segments;
  if (segs.length === 0) {
    // No CommitLog at all: nothing can be referenced (spec §5.5 step 6).
    await cqs.destroyAll();
    await index?.destroy();
    cl.setEnd(0);
    return {
      abnormal,
      scanFrom: 0,
      validEnd: 0,
      truncatedBytes: 0,
      invalidReason: undefined,
      scannedBytes: 0,
    };
  }
  // Everything below the newest dispatched record is assumed dispatched; start at its segment.
  let trusted = cqs.maxPhyOffset();
  if (index) trusted = Math.min(trusted, index.indexedBelow - 1);
  let startSeg =
    cl.segments.find(Math.max(trusted, 0)) ?? (trusted < segs[0]!.start ? segs[0]! : segs.at(-1)!);
  if (abnormal) {
    // Also go back to the newest segment whose first message predates the checkpoint.
    const minTs = d.checkpoint.minTimestamp();
    let pick = segs[0]!;
    for (let i = segs.length - 1; i >= 0; i--) {
      const ts = await firstStoreTimestamp(cl, segs[i]!.start);
      if (ts !== undefined && ts !== 0 && ts <= minTs) {
        pick = segs[i]!;
        break;
      }
    }
    if (pick.start < startSeg.start) startSeg = pick;
  }
  const from = startSeg.start;
  const lastEnd = segs.at(-1)!.end;
  const progress = new RecoveryProgress({ log: d.log, abnormal, intervalMs: d.progressIntervalMs });
  progress.begin(from, await estimatedDataEnd(cl));
  const { end, reason } = await scanCommitLog(cl, from, d.checkCrc, undefined, (offset) =>
    progress.advance("check", offset),
  );
  progress.checked(end);
  let truncated = 0;
  if (end < lastEnd) {
    if (reason) d.log.warn({ validEnd: end, reason }, "commitlog: cutting an invalid tail");
    truncated = reason ? lastEnd - end : 0;
    await cl.segments.truncateFrom(end);
  }
  cl.setEnd(end);
  await cqs.truncateFromPhy(end);
  index?.limitIndexedBelow(end);
  await scanCommitLog(
    cl,
    from,
    false,
    (bytes, pos) =>
      d.dispatcher.dispatch(parseDispatchRequest(bytes, pos, d.dispatcher.delayLevelsMs), false),
    (offset) => progress.advance("dispatch", offset),
  );
  await cqs.deleteExpired(cl.minOffset);
  progress.end({ validEnd: end, truncatedBytes: truncated });
  return {
    abnormal,
    scanFrom: from,
    validEnd: end,
    truncatedBytes: truncated,
    invalidReason: reason,
    scannedBytes: end - from,
  };
}
