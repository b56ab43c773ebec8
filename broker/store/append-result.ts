/**
 * What an append reports (RocketMQ's AppendMessageResult). The offset message id is formatted
 * only when read, as RocketMQ 5 defers it behind a supplier: the send processor reads it once per
 * response, while puts that nobody answers (retries, schedules, replays) never pay for the hex.
 */
import { encodeOffsetMessageId, type HostAddress } from "../../src/protocol/message/index.ts";
import type { AppendMessageResult } from "./message-store.ts";

export class AppendResult implements AppendMessageResult {
  private id: string | undefined;

  constructor(
    private readonly storeHost: HostAddress,
    readonly wroteOffset: number,
    readonly wroteBytes: number,
    readonly queueOffset: number,
    readonly storeTimestamp: number,
    readonly msgNum: number,
    /** Each record's size, for a batch; undefined for one record. */
    private readonly sizes: readonly number[] | undefined,
  ) {}

  /** Offset message id (spec §3.1); a batch's ids joined by commas (spec §1.9 step 6). */
  get msgId(): string {
    if (this.id === undefined) {
      if (!this.sizes) this.id = encodeOffsetMessageId(this.storeHost, this.wroteOffset);
      else {
        const ids: string[] = [];
        let at = this.wroteOffset;
        for (const size of this.sizes) {
          ids.push(encodeOffsetMessageId(this.storeHost, at));
          at += size;
        }
        this.id = ids.join(",");
      }
    }
    return this.id;
  }

  /** Plain fields for logs and JSON, the id included. */
  toJSON(): AppendMessageResult {
    const { msgId, wroteOffset, wroteBytes, queueOffset, storeTimestamp, msgNum } = this;
    return { msgId, wroteOffset, wroteBytes, queueOffset, storeTimestamp, msgNum };
  }
}
