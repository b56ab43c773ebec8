/**
 * The timer service (spec pop-timer-filter Part B, §B.9): delivers RocketMQ 5 timer messages at
 * their time. The send step parks a timed message in `rmq_sys_wheel_timer` queue 0, whose tags
 * slot holds its slot time; this service reads that queue into a heap of 28-byte entries (bodies
 * stay in the CommitLog), wakes when the earliest is due, reads the due records, and re-puts them
 * to their real topic and queue, dropping those a delete entry cancelled. Progress is written
 * after every round; on start the queue is re-read from the saved low-water offset, so pending
 * timers survive a restart and a crash repeats at most the round in flight.
 */
import type { Logger } from "pino";
import { MessageConst } from "../../../src/protocol/message/index.ts";
import { TIMER_TOPIC } from "../../../src/protocol/topic-names.ts";
import type { MessageStore, MessageToStore, QueueUnit } from "../../store/message-store.ts";
import type { BrokerService } from "../service.ts";
import { RateCounter } from "../stats.ts";
import { PERMANENT_FAILURES, readParked, STORED_STATUSES } from "../stored-message.ts";
import { deleteKeyOfRecord, ENQUEUED_WHEN_DUE, timerDelivery } from "./timer-delivery.ts";
import { DELETE_MARK, type TimerEntry } from "./timer-heap.ts";
import { TimerIndex, type TimerRound } from "./timer-index.ts";
import type { TimerProgress } from "./timer-progress.ts";

/** Units of the timer queue read at a time. */
const READ_UNITS_MAX = 8192;
/** Entries delivered per round: bounds the time a round holds newer due entries back. */
const ROUND_ENTRIES_MAX = 4096;
/** Records closer than this share one read; farther apart, a read each. */
const READ_GAP_BYTES_MAX = 16 * 1024;
/** Wait after the store refused a put for now (Java: 500 ms at the default precision). */
const RETRY_MS = 500;
/** Longest sleep: the service looks at the clock at least this often. */
const SLEEP_MS_MAX = 1000;
/** A clean stop delivers what is already due for at most this many rounds before it gives up. */
const STOP_ROUNDS_MAX = 16;

export interface TimerServiceOptions {
  readonly store: MessageStore;
  readonly progress: TimerProgress;
  readonly precisionMs: number;
  /** Longest time between progress writes (timerFlushIntervalMs). */
  readonly flushIntervalMs: number;
  readonly log: Logger;
  readonly now?: () => number;
}

export class TimerService implements BrokerService {
  readonly name = "timer";
  private index: TimerIndex | undefined;
  private readonly now: () => number;
  private readonly enqueued = new RateCounter();
  private readonly dequeued = new RateCounter();
  private unlisten: (() => void) | undefined;
  private pumping: Promise<void> | undefined;
  private pumpAgain = false;
  private rounding: Promise<void> | undefined;
  private sleep: ReturnType<typeof setTimeout> | undefined;
  private sleepUntil = Number.POSITIVE_INFINITY;
  private retryAfter = 0;
  private stopped = true;
  cancelled = 0;

  constructor(private readonly o: TimerServiceOptions) {
    this.now = o.now ?? Date.now;
  }

  /** Loads the progress and re-reads the timer queue from its low-water mark before returning. */
  async start(): Promise<void> {
    await this.o.progress.load();
    const index = new TimerIndex(this.o.progress.values, this.o.precisionMs);
    this.index = index;
    this.o.progress.snapshot = () => index.snapshot();
    this.stopped = false;
    this.unlisten = this.o.store.onMessageArrived((topic) => {
      if (topic === TIMER_TOPIC) this.pump();
    });
    const started = performance.now();
    this.pump();
    await this.pumping;
    this.o.log.info(
      { pending: index.pending, ms: Math.round(performance.now() - started), readOffset: index.readOffset },
      "timer index rebuilt",
    );
    this.o.progress.startPersisting(this.o.flushIntervalMs);
    this.wake();
  }

  /** Delivers what is due already, then writes the progress; pending timers stay pending. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.unlisten?.();
    clearTimeout(this.sleep);
    await this.pumping;
    await this.rounding;
    const index = this.index!;
    for (let i = 0; i < STOP_ROUNDS_MAX && index.nextDue(this.now()) <= this.now(); i++) {
      await this.runRound(index.take(this.now(), ROUND_ENTRIES_MAX));
    }
    this.o.progress.changed();
    await this.o.progress.shutdown();
  }

  *runtimeInfo(): Iterable<readonly [string, string]> {
    const index = this.index;
    if (!index) return;
    const now = this.now();
    const behind = this.o.store.getMaxOffsetInQueue(TIMER_TOPIC, 0) - index.readOffset;
    yield ["timerReadBehind", String(Math.max(0, now - index.nextDue(now)))];
    yield ["timerOffsetBehind", String(Math.max(0, behind))];
    yield ["timerCongestNum", String(index.pending)];
    yield ["timerEnqueueTps", this.enqueued.perSecond(now).toFixed(1)];
    yield ["timerDequeueTps", this.dequeued.perSecond(now).toFixed(1)];
  }

  /** Reads the timer queue from the read offset to its end (one reader at a time). */
  private pump(): void {
    if (this.stopped) return;
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    this.pumpAgain = false;
    this.pumping = this.readAll()
      .catch((err) => this.o.log.error({ err }, "reading the timer queue failed"))
      .finally(() => {
        this.pumping = undefined;
        if (this.pumpAgain) this.pump();
      });
  }

  private async readAll(): Promise<void> {
    const index = this.index!;
    for (;;) {
      const units = await this.o.store.readQueueUnits(TIMER_TOPIC, 0, index.readOffset, READ_UNITS_MAX);
      if (units.length === 0) return;
      const keys = await this.deleteKeysOf(units.filter((u) => index.needsKey(u)));
      const before = index.indexed;
      index.add(units, keys);
      this.enqueued.add(index.indexed - before, this.now());
      this.o.progress.changed();
      this.wake();
      if (this.stopped) return;
    }
  }

  /** TIMER_DEL_UNIQKEY of each delete entry, by queue offset. */
  private async deleteKeysOf(units: readonly QueueUnit[]): Promise<Map<number, string>> {
    const keys = new Map<number, string>();
    if (units.length === 0) return keys;
    const records = await this.o.store.readRecords(units.map((u) => [u.phyOffset, u.size] as const));
    units.forEach((u, i) => {
      const rec = records[i];
      const key = rec ? readParked(rec).properties.get(MessageConst.TIMER_DEL_UNIQKEY) : undefined;
      if (key !== undefined) keys.set(u.queueOffset, key);
    });
    return keys;
  }

  /** Starts a round if something is due, else sleeps until the earliest due time. */
  private wake(): void {
    if (this.stopped || this.rounding || !this.index) return;
    const now = this.now();
    const at = Math.max(this.index.nextDue(now), this.retryAfter);
    if (at <= now) {
      const round = this.index.take(now, ROUND_ENTRIES_MAX);
      this.rounding = this.runRound(round).finally(() => {
        this.rounding = undefined;
        this.wake();
      });
      return;
    }
    const until = Math.min(at, now + SLEEP_MS_MAX);
    if (this.sleep && this.sleepUntil <= until) return;
    clearTimeout(this.sleep);
    this.sleepUntil = until;
    this.sleep = setTimeout(() => {
      this.sleep = undefined;
      this.sleepUntil = Number.POSITIVE_INFINITY;
      this.wake();
    }, until - now);
    this.sleep.unref?.();
  }

  /** Delivers one round; whatever fails for now is retried after RETRY_MS. */
  private async runRound(round: TimerRound): Promise<void> {
    const index = this.index!;
    let retry: Set<TimerEntry>;
    try {
      retry = await this.deliver(round);
    } catch (err) {
      this.o.log.error({ err, entries: round.entries.length }, "timer round failed");
      retry = new Set(round.entries.filter((e) => e.size !== DELETE_MARK));
    }
    if (retry.size > 0) this.retryAfter = this.now() + RETRY_MS;
    index.finish(round, retry);
    this.dequeued.add(round.entries.length - retry.size, this.now());
    this.o.progress.changed();
    void this.o.progress.persist();
  }

  /** Puts the round's messages in due order; resolves to the entries to try again. */
  private async deliver(round: TimerRound): Promise<Set<TimerEntry>> {
    const index = this.index!;
    const wanted = round.entries.filter((e) => e.size !== DELETE_MARK);
    const recordOf = await this.recordsOf(wanted);
    const now = this.now();
    const puts: [TimerEntry, Promise<string>][] = [];
    round.entries.forEach((e, i) => {
      if (e.size === DELETE_MARK) return;
      const msg = this.messageOf(e, recordOf.get(e), i < round.lateCount, now);
      if (msg) puts.push([e, this.o.store.putMessage(msg).then((r) => r.status)]);
    });
    const retry = new Set<TimerEntry>();
    for (const [e, put] of puts) {
      const status = await put;
      if (STORED_STATUSES.has(status)) continue;
      // Dropped, as Java drops them (§B.4.1 step 4).
      if (PERMANENT_FAILURES.has(status)) {
        this.o.log.error(
          { status, queueOffset: e.queueOffset },
          "timer message dropped: the store refuses it",
        );
      } else {
        retry.add(e);
      }
    }
    if (retry.size > 0)
      this.o.log.warn({ retry: retry.size, due: index.pending }, "timer deliveries refused for now");
    return retry;
  }

  /**
   * The records of the entries. Due times are random in the log, so a round's records are spread
   * thin: they are read in runs of neighbours (one read each, all at once), never as one read
   * spanning the gaps between them.
   */
  private async recordsOf(entries: readonly TimerEntry[]): Promise<Map<TimerEntry, Uint8Array | undefined>> {
    const byPhy = [...entries].sort((a, b) => a.phyOffset - b.phyOffset);
    const runs: TimerEntry[][] = [];
    for (const e of byPhy) {
      const run = runs.at(-1);
      const prev = run?.at(-1);
      if (run && prev && e.phyOffset - (prev.phyOffset + prev.size) <= READ_GAP_BYTES_MAX) run.push(e);
      else runs.push([e]);
    }
    const read = await Promise.all(
      runs.map((run) => this.o.store.readRecords(run.map((e) => [e.phyOffset, e.size] as const))),
    );
    const out = new Map<TimerEntry, Uint8Array | undefined>();
    runs.forEach((run, i) => {
      for (const [j, e] of run.entries()) out.set(e, read[i]![j]);
    });
    return out;
  }

  /** The message to put for an entry, or undefined when it is gone, cancelled or has no destination. */
  private messageOf(
    e: TimerEntry,
    bytes: Uint8Array | undefined,
    late: boolean,
    now: number,
  ): MessageToStore | undefined {
    if (!bytes) {
      this.o.log.warn(
        { queueOffset: e.queueOffset, phyOffset: e.phyOffset },
        "timer message gone from the store",
      );
      return undefined;
    }
    const rec = readParked(bytes);
    const index = this.index!;
    if (index.cancelling && index.isCancelled(deleteKeyOfRecord(rec), e.due)) {
      this.cancelled++;
      return undefined;
    }
    const msg = timerDelivery(rec, late ? ENQUEUED_WHEN_DUE : String(rec.storeTimestamp), now);
    if (!msg) this.o.log.warn({ phyOffset: e.phyOffset }, "timer message has no destination");
    return msg;
  }
}
