/**
 * The checker's view of the half queue (spec broker §10.3): how far it has walked the half and op
 * queues, both kept as consume offsets of CID_SYS_RMQ_TRANS in consumerOffset.json (so pending
 * transactions survive restart and kill -9), and which half offsets at or past the walk's position
 * op records have finished. Op records are read from the op queue, the one source of truth after
 * a restart; the op writer also reports the ones it stores so counts are current between rounds,
 * and those records are not read back: what they hold is known already.
 */

import { MessageConst } from "../../../src/protocol/message/index.ts";
import { TRANS_HALF_TOPIC, TRANS_OP_HALF_TOPIC } from "../../../src/protocol/topic-names.ts";
import {
  HALF_QUEUE_ID,
  OP_REMOVE_TAG,
  parseOpBody,
  TRANS_CHECK_GROUP,
} from "../../../src/protocol/transaction.ts";
import type { ConsumerOffsets } from "../../metadata/consumer-offsets.ts";
import type { MessageStore } from "../../store/message-store.ts";
import { holdsMessage } from "../../store/reads.ts";
import { readParked } from "../stored-message.ts";
import { OffsetSet } from "./offset-set.ts";

/** Op units read per store call. */
const OP_PAGE = 256;
/**
 * Finished offsets behind the walk kept for copies that name their first half offset
 * (TRAN_PREPARED_QUEUE_OFFSET), and origins of such copies remembered: the oldest are forgotten
 * first. Only immune messages (CHECK_IMMUNITY_TIME_IN_SECONDS) and ends that arrive after their
 * half was re-appended land here.
 */
const LATE_FINISHED_MAX = 100_000;
/**
 * Op records this broker wrote and the walk has not reached, remembered so `readOps` skips them.
 * Past this many (a check interval of many small op records), the rest are read back as before.
 */
const OWN_OPS_MAX = 65_536;

const utf8 = new TextDecoder();

export class HalfProgress {
  /** Next half offset to walk (committed as CID_SYS_RMQ_TRANS's offset of the half queue). */
  private half = 0;
  /** Next op unit to read. */
  private opRead = 0;
  /** Finished half offsets ≥ `half` (a bit each: one per transaction ended). */
  private readonly finished = new OffsetSet();
  /** Finished half offsets below `half`, at most LATE_FINISHED_MAX of them. */
  private readonly lateFinished = new Set<number>();
  /**
   * The same offsets in insertion order, consumed from `lateHead`: evicting through a Set's own
   * iterator would rescan the deleted entries at its front every time, quadratic in a long run.
   */
  private lateOrder: number[] = [];
  private lateHead = 0;
  /** First half offsets of immune messages put back unchecked (their copies name them). */
  private readonly immunityOrigins = new Set<number>();
  /** Op units read, with the largest half offset each names, in queue order: what bounds opOffset. */
  private readonly opUnits: { opOffset: number; maxHalf: number }[] = [];
  /** Op queue offset → largest half offset named, of op records this broker wrote and has not read. */
  private readonly ownOps = new Map<number, number>();

  constructor(
    private readonly store: MessageStore,
    private readonly offsets: ConsumerOffsets,
  ) {}

  /**
   * Loads the committed offsets, kept within each queue (a store that lost its tail in a crash may
   * end before them); the op records past them are read by the first `readOps`.
   */
  load(): void {
    this.half = this.withinQueue(TRANS_HALF_TOPIC);
    this.opRead = this.withinQueue(TRANS_OP_HALF_TOPIC);
  }

  private withinQueue(topic: string): number {
    const committed = this.offsets.query(TRANS_CHECK_GROUP, topic, HALF_QUEUE_ID);
    const min = this.store.getMinOffsetInQueue(topic, HALF_QUEUE_ID);
    const max = this.store.getMaxOffsetInQueue(topic, HALF_QUEUE_ID);
    return Math.min(Math.max(committed, min, 0), max);
  }

  get halfOffset(): number {
    return this.half;
  }

  /** Reads the op records stored since the last call. */
  async readOps(): Promise<void> {
    for (;;) {
      const units = await this.store.readQueueUnits(TRANS_OP_HALF_TOPIC, HALF_QUEUE_ID, this.opRead, OP_PAGE);
      if (units.length === 0) return;
      // Each unit in queue order: its own record's facts, or the record read back. Which is which
      // is decided before reading: the writer may report a record while the read is under way.
      const held = units.filter(holdsMessage);
      const own = held.map((u) => this.ownOps.get(u.queueOffset));
      const toRead = held.filter((_, i) => own[i] === undefined);
      const records = await this.store.readRecords(toRead.map((u) => [u.phyOffset, u.size] as const));
      for (const u of units) this.ownOps.delete(u.queueOffset);
      let read = 0;
      for (const [i, u] of held.entries()) {
        const ownMaxHalf = own[i];
        if (ownMaxHalf !== undefined) {
          this.opUnits.push({ opOffset: u.queueOffset, maxHalf: ownMaxHalf });
          continue;
        }
        const bytes = records[read++];
        if (!bytes) continue;
        const rec = readParked(bytes);
        if (rec.properties.get(MessageConst.TAGS) !== OP_REMOVE_TAG) continue;
        const halves = parseOpBody(utf8.decode(rec.body));
        this.markFinished(halves);
        this.opUnits.push({ opOffset: u.queueOffset, maxHalf: maxOf(halves) });
      }
      this.opRead = units.at(-1)!.queueOffset + 1;
    }
  }

  /**
   * Records the half offsets of an op record this broker stored at `opQueueOffset` of the op queue
   * (unknown: it is read back like any other).
   */
  markWritten(halfOffsets: readonly number[], opQueueOffset: number | undefined): void {
    this.markFinished(halfOffsets);
    if (opQueueOffset !== undefined && opQueueOffset >= this.opRead && this.ownOps.size < OWN_OPS_MAX) {
      this.ownOps.set(opQueueOffset, maxOf(halfOffsets));
    }
  }

  /** Records finished half offsets (from op records read, or written by this broker). */
  markFinished(halfOffsets: readonly number[]): void {
    for (const o of halfOffsets) {
      if (o >= this.half) this.finished.add(o);
      else this.rememberLate(o);
    }
  }

  /**
   * An immune message at `halfOffset` was put back unchecked: its copies name that offset
   * (TRAN_PREPARED_QUEUE_OFFSET), so its op record must still be found once the walk passed it.
   */
  noteImmunityOrigin(halfOffset: number): void {
    if (this.immunityOrigins.size < LATE_FINISHED_MAX) this.immunityOrigins.add(halfOffset);
  }

  /**
   * The first half offset in [from, limit) no op record finished, `limit` if none; `from` must be
   * at or past the walk's position (where the finished offsets are all in `finished`).
   */
  firstUnfinished(from: number, limit: number): number {
    return this.finished.firstAbsent(from, limit);
  }

  isFinished(halfOffset: number): boolean {
    return this.finished.has(halfOffset) || this.lateFinished.has(halfOffset);
  }

  /**
   * The walk reached `next`: finished offsets behind it move to the late set, and both consume
   * offsets are committed. The op offset stops at the first op record naming a half offset not
   * yet walked past, so a restart re-reads every op record still needed.
   */
  advance(next: number): void {
    if (next > this.half) {
      this.finished.removeBelow(next, (o) => {
        if (this.immunityOrigins.delete(o)) this.rememberLate(o);
      });
      this.half = next;
    }
    while (this.opUnits.length > 0 && this.opUnits[0]!.maxHalf < this.half) this.opUnits.shift();
    const opOffset = this.opUnits[0]?.opOffset ?? this.opRead;
    this.offsets.commit(TRANS_CHECK_GROUP, TRANS_HALF_TOPIC, HALF_QUEUE_ID, this.half);
    this.offsets.commit(TRANS_CHECK_GROUP, TRANS_OP_HALF_TOPIC, HALF_QUEUE_ID, opOffset);
  }

  /** Half messages stored and not finished: the walk's backlog minus what op records finished. */
  pending(): number {
    const max = this.store.getMaxOffsetInQueue(TRANS_HALF_TOPIC, HALF_QUEUE_ID);
    return Math.max(0, max - this.half - this.finished.size);
  }

  private rememberLate(o: number): void {
    if (this.lateFinished.has(o)) return;
    this.lateFinished.add(o);
    this.lateOrder.push(o);
    while (this.lateFinished.size > LATE_FINISHED_MAX) {
      this.lateFinished.delete(this.lateOrder[this.lateHead++]!);
    }
    if (this.lateHead > LATE_FINISHED_MAX) {
      this.lateOrder = this.lateOrder.slice(this.lateHead);
      this.lateHead = 0;
    }
  }
}

/** The largest offset named, -1 for none (no spread: an op body names up to ~400 offsets). */
function maxOf(offsets: readonly number[]): number {
  let max = -1;
  for (const o of offsets) if (o > max) max = o;
  return max;
}
