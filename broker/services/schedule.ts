/**
 * The schedule service (spec broker §9.5, Java's ScheduleMessageService): delivers delay-level
 * messages. Level n waits in SCHEDULE_TOPIC_XXXX queue n − 1, whose consume-queue tags slot holds
 * each message's delivery time; a worker per level reads its queue in order from the level's
 * progress in `config/delayOffset.json`, re-puts what is due to REAL_TOPIC / REAL_QID, and sleeps
 * until the head is due or a message arrives. Progress is written after every delivery round, so
 * a crash repeats at most the round in flight; a clean stop repeats nothing.
 */
import type { Logger } from "pino";
import { MessageConst } from "../../src/protocol/message/index.ts";
import { SCHEDULE_TOPIC, TRANS_HALF_TOPIC } from "../../src/protocol/topic-names.ts";
import type { DelayOffsets } from "../metadata/delay-offsets.ts";
import type { MessageStore, MessageToStore, QueueUnit } from "../store/message-store.ts";
import { holdsMessage } from "../store/reads.ts";
import { PutMessageStatus } from "../store/status.ts";
import type { BrokerService } from "./service.ts";
import { messageFromRecord, PERMANENT_FAILURES, readParked, realQueueIdOf } from "./stored-message.ts";

/** Units read per round and level. */
const ROUND_UNITS_MAX = 64;
/** Wait after a put the store refused for now (Java: DELAY_FOR_A_PERIOD, 100 ms). */
const RETRY_MS = 100;
/** Wait after an unexpected error (Java: DELAY_FOR_A_WHILE, 10 s). */
const ERROR_RETRY_MS = 10_000;
/** Arrivals wake an idle level; this poll is only a safety net. */
const IDLE_POLL_MS = 1000;

/** Properties a delivered delay-level message loses (REAL_TOPIC / REAL_QID stay, as in Java). */
const REMOVED_ON_DELIVERY = [
  MessageConst.DELAY,
  MessageConst.TIMER_DELIVER_MS,
  MessageConst.TIMER_DELAY_SEC,
] as const;

export interface ScheduleServiceOptions {
  readonly store: MessageStore;
  readonly offsets: DelayOffsets;
  /** Level n's delay is `delayLevelsMs[n − 1]` (messageDelayLevel). */
  readonly delayLevelsMs: readonly number[];
  /** Longest time between progress writes (flushDelayOffsetInterval). */
  readonly persistIntervalMs: number;
  readonly log: Logger;
  readonly now?: () => number;
}

interface Level {
  readonly level: number;
  readonly delayMs: number;
  timer: ReturnType<typeof setTimeout> | undefined;
  running: Promise<void> | undefined;
  /** Woken while a round ran: run again right after it. */
  again: boolean;
  /** The queue was read empty: the next arrival wakes the level (a known head needs no wake-up). */
  empty: boolean;
}

export class ScheduleService implements BrokerService {
  readonly name = "schedule";
  private readonly levels: Level[];
  private readonly now: () => number;
  private unlisten: (() => void) | undefined;
  private stopped = true;

  constructor(private readonly o: ScheduleServiceOptions) {
    this.now = o.now ?? Date.now;
    this.levels = o.delayLevelsMs.map((delayMs, i) => ({
      level: i + 1,
      delayMs,
      timer: undefined,
      running: undefined,
      again: false,
      empty: false,
    }));
  }

  async start(): Promise<void> {
    await this.o.offsets.load();
    this.stopped = false;
    this.unlisten = this.o.store.onMessageArrived((topic, queueId) => {
      const l = topic === SCHEDULE_TOPIC ? this.levels[queueId] : undefined;
      if (l?.empty) this.wake(l);
    });
    this.o.offsets.startPersisting(this.o.persistIntervalMs);
    for (const l of this.levels) this.wake(l);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.unlisten?.();
    for (const l of this.levels) clearTimeout(l.timer);
    await Promise.all(this.levels.map((l) => l.running));
    await this.o.offsets.shutdown();
  }

  /** `scheduleMessageOffset_<level>` = "<delivered up to>,<queue max offset>" per level. */
  *runtimeInfo(): Iterable<readonly [string, string]> {
    for (const l of this.levels) {
      const max = this.o.store.getMaxOffsetInQueue(SCHEDULE_TOPIC, l.level - 1);
      yield [`scheduleMessageOffset_${l.level}`, `${this.o.offsets.get(l.level)},${max}`];
    }
  }

  /** Runs a round of the level now, or right after the one under way. */
  private wake(l: Level | undefined): void {
    if (!l || this.stopped) return;
    if (l.running) {
      l.again = true;
      return;
    }
    clearTimeout(l.timer);
    l.timer = undefined;
    l.running = this.runRound(l).finally(() => {
      l.running = undefined;
    });
  }

  private after(l: Level, ms: number): void {
    if (this.stopped) return;
    clearTimeout(l.timer);
    l.timer = setTimeout(() => this.wake(l), ms);
    l.timer.unref?.();
  }

  private async runRound(l: Level): Promise<void> {
    let waitMs: number;
    try {
      l.again = false;
      waitMs = await this.round(l);
    } catch (err) {
      this.o.log.error({ err, level: l.level }, "schedule round failed");
      waitMs = ERROR_RETRY_MS;
    }
    // A timer even for "now": a microtask would run before `wake`'s finally clears `l.running`,
    // find the round still running, only mark it `again`, and leave the level asleep for good.
    this.after(l, l.again ? 0 : waitMs);
  }

  /** The level's next queue offset, kept within the queue (Java's correctDelayOffset). */
  private offsetOf(l: Level): number {
    const q = l.level - 1;
    const offset = this.o.offsets.get(l.level);
    const min = this.o.store.getMinOffsetInQueue(SCHEDULE_TOPIC, q);
    const max = this.o.store.getMaxOffsetInQueue(SCHEDULE_TOPIC, q);
    return Math.min(Math.max(offset, min), max);
  }

  /** One round: delivers the due head of the level's queue; resolves to the ms to wait (0: go on). */
  private async round(l: Level): Promise<number> {
    const from = this.offsetOf(l);
    const units = await this.o.store.readQueueUnits(SCHEDULE_TOPIC, l.level - 1, from, ROUND_UNITS_MAX);
    l.empty = units.length === 0;
    if (l.empty) return IDLE_POLL_MS;
    const now = this.now();
    const due: QueueUnit[] = [];
    let waitMs = 0;
    for (const u of units) {
      // A delivery time beyond now + the level's delay means the clock went back: due now.
      const at = u.tagsCode > now + l.delayMs ? now : u.tagsCode;
      if (holdsMessage(u) && at > now) {
        waitMs = at - now;
        break;
      }
      due.push(u);
    }
    if (due.length === 0) return waitMs;
    const done = await this.deliver(l, due);
    if (done > 0) {
      this.o.offsets.set(l.level, due[done - 1]!.queueOffset + 1);
      void this.o.offsets.persist();
    }
    return done < due.length ? RETRY_MS : waitMs;
  }

  /**
   * Re-puts the due units' messages, in queue order; resolves to how many units are done (a
   * message the store refuses for now ends the count, so the round retries from it).
   */
  private async deliver(l: Level, due: readonly QueueUnit[]): Promise<number> {
    const held = due.filter(holdsMessage);
    const records = await this.o.store.readRecords(held.map((u) => [u.phyOffset, u.size] as const));
    const puts = new Map<QueueUnit, Promise<string>>();
    held.forEach((u, i) => {
      const msg = this.timeUp(l, u, records[i]);
      if (msg)
        puts.set(
          u,
          this.o.store.putMessage(msg).then((r) => r.status),
        );
    });
    let done = 0;
    for (const u of due) {
      const put = puts.get(u);
      const status = put ? await put : PutMessageStatus.PUT_OK;
      if (status !== PutMessageStatus.PUT_OK && !PERMANENT_FAILURES.has(status)) {
        this.o.log.warn(
          { level: l.level, status, offset: u.queueOffset },
          "delayed message not delivered yet",
        );
        break;
      }
      if (status !== PutMessageStatus.PUT_OK) {
        this.o.log.error({ level: l.level, status, offset: u.queueOffset }, "delayed message dropped");
      }
      done++;
    }
    return done;
  }

  /** The message to put for a due unit (Java's messageTimeUp), or undefined to skip it. */
  private timeUp(l: Level, u: QueueUnit, bytes: Uint8Array | undefined): MessageToStore | undefined {
    if (!bytes) {
      this.o.log.warn({ level: l.level, phyOffset: u.phyOffset }, "delayed message gone from the store");
      return undefined;
    }
    const rec = readParked(bytes);
    const topic = rec.properties.get(MessageConst.REAL_TOPIC);
    const queueId = realQueueIdOf(rec);
    if (topic === undefined || queueId === undefined || topic === TRANS_HALF_TOPIC) {
      this.o.log.warn(
        { level: l.level, phyOffset: u.phyOffset, topic },
        "delayed message has no deliverable destination",
      );
      return undefined;
    }
    return messageFromRecord(rec, { topic, queueId, remove: REMOVED_ON_DELIVERY });
  }
}
