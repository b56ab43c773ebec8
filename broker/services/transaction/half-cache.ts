/**
 * The half messages stored lately, by CommitLog offset: END_TRANSACTION mostly follows its half
 * within milliseconds, and finding it here spares two CommitLog reads and a decode per
 * transaction. Bounded by count and bytes, oldest out first; a miss reads the store.
 * Bodies are copied into a slab (body-slab.ts), not into an array each: a body the slab is about
 * to overwrite leaves the cache with it, unless an END holds it (then the new body gets a copy of
 * its own instead).
 */
import type { HostAddress } from "../../../src/protocol/message/index.ts";
import type { MessageToStore, PutMessageResult } from "../../store/message-store.ts";
import { BodySlab } from "./body-slab.ts";

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
/** Bytes of the body slab: at 1 KiB a body, half the entries the count bound allows. */
const SLAB_BYTES = 8 * 1024 * 1024;
/** Bodies larger than this get a copy of their own: a few would empty the ring for the small ones. */
const SLAB_BODY_BYTES_MAX = 64 * 1024;

interface Entry extends HalfRecord {
  /** The body's virtual start in the slab; -1 for a body with a copy of its own. */
  slabStart: number;
  /** ENDs reading the entry now: its slab bytes stay until they are done. */
  holds: number;
  /** Forgotten while held: leaves the map at its last release. */
  forgotten: boolean;
}

export class HalfCache {
  private readonly byOffset = new Map<number, Entry>();
  private readonly slab: BodySlab;
  /**
   * Offsets of the halves whose bodies went into the slab, oldest first from `slabHead` (some
   * already forgotten). Numbers, not entries: a forgotten half is garbage at once.
   */
  private inSlab: number[] = [];
  private slabHead = 0;
  private bytes = 0;
  /**
   * Offsets in insertion order from `head` (some already forgotten): evicting through the Map's
   * own iterator would rescan its deleted front on every insert once full.
   */
  private order: number[] = [];
  private head = 0;

  constructor(slabBytes = SLAB_BYTES) {
    this.slab = new BodySlab(slabBytes);
  }

  /** Called after a half message's put: remembered only when the store took it. */
  stored(msg: MessageToStore, put: PutMessageResult): void {
    const r = put.result;
    if (!r || msg.propertiesString === undefined) return;
    const slabStart = this.slabStartFor(msg.body.length);
    const body = slabStart < 0 ? new Uint8Array(msg.body) : this.slab.write(slabStart, msg.body);
    const half: Entry = {
      topic: msg.topic,
      queueOffset: r.queueOffset,
      physicalOffset: r.wroteOffset,
      flag: msg.flag,
      sysFlag: msg.sysFlag,
      bornTimestamp: msg.bornTimestamp,
      bornHost: msg.bornHost,
      storeHost: msg.storeHost,
      reconsumeTimes: msg.reconsumeTimes,
      // A copy, never the request's body: that is a view into the socket chunk it arrived in, often
      // a Buffer, whose slice() is another view (Node's semantics), not a copy. Kept until the END,
      // that view held the whole chunk (and every frame in it) past a young collection: the heap
      // then grew by megabytes per collection and the server spent more on GC than on the send.
      body,
      propertiesString: msg.propertiesString,
      properties: msg.properties,
      slabStart,
      holds: 0,
      forgotten: false,
    };
    if (slabStart >= 0) this.inSlab.push(r.wroteOffset);
    this.byOffset.set(r.wroteOffset, half);
    this.order.push(r.wroteOffset);
    this.bytes += msg.body.length + msg.propertiesString.length;
    while ((this.byOffset.size > ENTRIES_MAX || this.bytes > BYTES_MAX) && this.head < this.order.length) {
      this.forget(this.order[this.head++]!);
    }
    // Most halves are forgotten by their END long before eviction: drop their stale offsets.
    if (this.order.length - this.head > 2 * ENTRIES_MAX) {
      this.order = this.order.slice(this.head).filter((o) => this.has(o));
      this.head = 0;
    }
  }

  /**
   * The cached half at `physicalOffset`, held: its body (a view of the slab) stays as it is until
   * `release`, which every hold must be paired with once the body is no longer read.
   */
  hold(physicalOffset: number): HalfRecord | undefined {
    const half = this.byOffset.get(physicalOffset);
    if (!half || half.forgotten) return undefined;
    half.holds++;
    return half;
  }

  release(half: HalfRecord): void {
    const e = half as Entry;
    if (--e.holds === 0 && e.forgotten) this.byOffset.delete(e.physicalOffset);
  }

  /** Whether a half is cached at `physicalOffset` (tests). */
  has(physicalOffset: number): boolean {
    const half = this.byOffset.get(physicalOffset);
    return half !== undefined && !half.forgotten;
  }

  /** Drops the half at `physicalOffset`; one held stays in the slab until released. */
  forget(physicalOffset: number): void {
    const half = this.byOffset.get(physicalOffset);
    if (!half || half.forgotten) return;
    half.forgotten = true;
    this.bytes -= half.body.length + half.propertiesString.length;
    if (half.holds === 0) this.byOffset.delete(physicalOffset);
  }

  /**
   * Where in the slab a body of `length` bytes goes, after forgetting the cached halves whose
   * bodies it overwrites (oldest first); -1 (a copy of its own) when it is large or an END
   * holds those bytes.
   */
  private slabStartFor(length: number): number {
    if (length > SLAB_BODY_BYTES_MAX) return -1;
    const start = this.slab.startFor(length);
    for (; this.slabHead < this.inSlab.length; this.slabHead++) {
      const oldest = this.byOffset.get(this.inSlab[this.slabHead]!);
      if (!oldest) continue;
      if (!this.slab.overwrites(start, length, oldest.slabStart)) break;
      if (oldest.holds > 0) return -1;
      this.forget(oldest.physicalOffset);
    }
    if (this.slabHead > ENTRIES_MAX) {
      this.inSlab = this.inSlab.slice(this.slabHead);
      this.slabHead = 0;
    }
    return start;
  }
}
