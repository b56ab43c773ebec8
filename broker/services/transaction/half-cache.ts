/**
 * The half messages stored lately, by CommitLog offset: END_TRANSACTION mostly follows its half
 * within milliseconds, and finding it here spares two CommitLog reads and a decode per
 * transaction. Bounded by count and bytes, oldest out first; a miss reads the store.
 */
import type { HostAddress } from "../../../src/protocol/message/index.ts";
import type { MessageToStore, PutMessageResult } from "../../store/message-store.ts";

/** The fields of a half record END_TRANSACTION reads. */
export interface HalfRecord {
  readonly topic: string;
  readonly queueOffset: number;
  readonly physicalOffset: number;
  readonly flag: number;
  readonly sysFlag: number;
  readonly bornTimestamp: number;
  readonly bornHost: HostAddress;
  readonly storeHost: HostAddress;
  readonly reconsumeTimes: number;
  readonly body: Uint8Array;
  readonly propertiesString: string;
  readonly properties: ReadonlyMap<string, string>;
}

const ENTRIES_MAX = 16_384;
const BYTES_MAX = 16 * 1024 * 1024;

export class HalfCache {
  private readonly byOffset = new Map<number, HalfRecord>();
  private bytes = 0;
  /**
   * Offsets in insertion order from `head` (some already forgotten): evicting through the Map's
   * own iterator would rescan its deleted front on every insert once full.
   */
  private order: number[] = [];
  private head = 0;

  /** Called after a half message's put: remembered only when the store took it. */
  stored(msg: MessageToStore, put: PutMessageResult): void {
    const r = put.result;
    if (!r || msg.propertiesString === undefined) return;
    const half: HalfRecord = {
      topic: msg.topic,
      queueOffset: r.queueOffset,
      physicalOffset: r.wroteOffset,
      flag: msg.flag,
      sysFlag: msg.sysFlag,
      bornTimestamp: msg.bornTimestamp,
      bornHost: msg.bornHost,
      storeHost: msg.storeHost,
      reconsumeTimes: msg.reconsumeTimes,
      // A copy of its own: the request's body is a view into the socket chunk it arrived in, often
      // a Buffer, whose slice() is another view (Node's semantics), not a copy. Kept until the END,
      // that view held the whole chunk (and every frame in it) past a young collection: the heap
      // then grew by megabytes per collection and the server spent more on GC than on the send.
      body: new Uint8Array(msg.body),
      propertiesString: msg.propertiesString,
      properties: msg.properties,
    };
    this.byOffset.set(r.wroteOffset, half);
    this.order.push(r.wroteOffset);
    this.bytes += msg.body.length + msg.propertiesString.length;
    while ((this.byOffset.size > ENTRIES_MAX || this.bytes > BYTES_MAX) && this.head < this.order.length) {
      this.forget(this.order[this.head++]!);
    }
    // Most halves are forgotten by their END long before eviction: drop their stale offsets.
    if (this.order.length - this.head > 2 * ENTRIES_MAX) {
      this.order = this.order.slice(this.head).filter((o) => this.byOffset.has(o));
      this.head = 0;
    }
  }

  get(physicalOffset: number): HalfRecord | undefined {
    return this.byOffset.get(physicalOffset);
  }

  forget(physicalOffset: number): void {
    const half = this.byOffset.get(physicalOffset);
    if (!half) return;
    this.byOffset.delete(physicalOffset);
    this.bytes -= half.body.length + half.propertiesString.length;
  }
}
