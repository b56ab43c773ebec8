/**
 * The `checkpoint` file (spec §5.4): one 4 KiB page of big-endian i64 timestamps/offsets that
 * tell recovery how far the CommitLog, consume queues and index were known to be durable.
 *
 *  off  size  field
 *    0  i64   physicMsgTimestamp    store time of the last flushed CommitLog message
 *    8  i64   logicsMsgTimestamp    store time of the last message dispatched to a consume queue
 *   16  i64   indexMsgTimestamp     end time of the last fully flushed index file
 *   24  i64   masterFlushedOffset   [5.x] HA; 0 here
 *   32  i64   confirmPhyOffset      [5.x] last confirmed CommitLog offset
 */
import { constants } from "node:fs";
import { type FileHandle, open } from "node:fs/promises";
import { readI64, writeI64 } from "../../src/protocol/message/index.ts";

export const CHECKPOINT = {
  physicMsgTimestamp: [0, 8],
  logicsMsgTimestamp: [8, 8],
  indexMsgTimestamp: [16, 8],
  masterFlushedOffset: [24, 8],
  confirmPhyOffset: [32, 8],
} as const;
export const CHECKPOINT_FILE_BYTES = 4096;

/** Slack subtracted from the minimum timestamp, as RocketMQ does (spec §5.4 getMinTimestamp). */
const MIN_TIMESTAMP_SLACK_MS = 3000;

export type CheckpointValues = { -readonly [K in keyof typeof CHECKPOINT]: number };

export class Checkpoint {
  values: CheckpointValues = {
    physicMsgTimestamp: 0,
    logicsMsgTimestamp: 0,
    indexMsgTimestamp: 0,
    masterFlushedOffset: 0,
    confirmPhyOffset: 0,
  };
  private fh: FileHandle | undefined;

  constructor(readonly path: string) {}

  async load(): Promise<void> {
    this.fh = await open(this.path, constants.O_RDWR | constants.O_CREAT, 0o644);
    const buf = new Uint8Array(CHECKPOINT_FILE_BYTES);
    await this.fh.read(buf, 0, buf.length, 0);
    const dv = new DataView(buf.buffer);
    for (const k of Object.keys(CHECKPOINT) as (keyof typeof CHECKPOINT)[])
      this.values[k] = readI64(dv, CHECKPOINT[k][0]);
  }

  /** `max(0, min(physic, logics) − 3 s)`. */
  minTimestamp(): number {
    const v = this.values;
    return Math.max(0, Math.min(v.physicMsgTimestamp, v.logicsMsgTimestamp) - MIN_TIMESTAMP_SLACK_MS);
  }

  /** Moves the recorded points forward (never back) and writes them. */
  async advance(physic: number, logics: number, index: number, confirmPhyOffset: number): Promise<void> {
    const v = this.values;
    v.physicMsgTimestamp = Math.max(v.physicMsgTimestamp, physic);
    v.logicsMsgTimestamp = Math.max(v.logicsMsgTimestamp, logics);
    v.indexMsgTimestamp = Math.max(v.indexMsgTimestamp, index);
    v.confirmPhyOffset = confirmPhyOffset;
    await this.flush();
  }

  /** Writes the whole page and syncs it. */
  async flush(): Promise<void> {
    if (!this.fh) throw new Error("checkpoint not loaded");
    const buf = new Uint8Array(CHECKPOINT_FILE_BYTES);
    const dv = new DataView(buf.buffer);
    for (const k of Object.keys(CHECKPOINT) as (keyof typeof CHECKPOINT)[])
      writeI64(dv, CHECKPOINT[k][0], this.values[k]);
    await this.fh.write(buf, 0, buf.length, 0);
    await this.fh.datasync();
  }

  async close(): Promise<void> {
    await this.fh?.close();
    this.fh = undefined;
  }
}
