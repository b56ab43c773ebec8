/**
 * Long polling (spec broker §7.6, Java's PullRequestHoldService): a pull that found nothing is
 * parked under `topic@queueId` and re-run when a matching message arrives or its hold expires.
 * Held pulls are bounded in count (`heldPullsMax`) and in bytes: each is charged to its
 * connection in the process's buffer budget (`serverBufferBytesMax`) while it is held.
 * A pull whose connection closed is dropped.
 */
import type { BudgetHolder, ChargeKind } from "../../src/remoting/buffer-budget.ts";
import type { RemotingCommand } from "../../src/remoting/command.ts";
import type { Connection } from "../../src/remoting/connection.ts";

export const DEFAULT_HELD_PULLS_MAX = 100_000;
/**
 * Memory a held pull pins besides its header's strings: the closures, the timer, the request
 * context and the decoded header object.
 */
export const HELD_PULL_OVERHEAD_BYTES = 2048;
/**
 * A held pull keeps its extFields strings and the parsed subscription (the expression again, and
 * its tags split into a set): measured at 1.4 to 1.9 bytes of RSS per header byte, so 2 is charged.
 */
export const HELD_PULL_BYTES_PER_HEADER_BYTE = 2;

/**
 * Held pulls may fill at most this share of the buffer budget, so that one client's held pulls
 * cannot leave the pull reads of every other client refused SYSTEM_BUSY.
 */
export const HELD_PULLS_BUDGET_SHARE = 0.5;

/** The subset of BufferBudget the hold table uses. */
export interface HeldPullBudget {
  readonly bytesMax: number;
  take(holder: BudgetHolder, bytes: number, kind: ChargeKind): boolean;
  give(holder: BudgetHolder, bytes: number, kind: ChargeKind): void;
}

/** What became of a pull offered to the hold table. */
export type HoldResult = "held" | "closed" | "full" | "over-budget";

/** The bytes a held `request` pins, as charged to the buffer budget. */
export function heldPullBytes(request: RemotingCommand): number {
  let chars = 0;
  for (const key in request.extFields) chars += key.length + (request.extFields[key]?.length ?? 0);
  return HELD_PULL_OVERHEAD_BYTES + HELD_PULL_BYTES_PER_HEADER_BYTE * chars + (request.body?.length ?? 0);
}

export interface HeldPull {
  readonly conn: Connection;
  readonly topic: string;
  readonly queueId: number;
  /** The offset the pull asked for: any max offset beyond it may have news. */
  readonly offset: number;
  readonly deadline: number;
  /** Bytes the pull pins while held (heldPullBytes); 0 charges nothing. */
  readonly bytes?: number;
  /**
   * Whether a message with this tags code (and these properties, for an SQL92 filter) would pass
   * the pull's filter; either is undefined when unknown.
   */
  matches(tagsCode: number | undefined, properties?: ReadonlyMap<string, string>): boolean;
  /** Re-runs the pull without suspend or commit rights and answers the client. */
  wake(): void;
}

interface Parked {
  pull: HeldPull;
  timer: ReturnType<typeof setTimeout>;
}

export class LongPollService {
  private readonly byQueue = new Map<string, Set<Parked>>();
  private held = 0;
  private heldBytesNow = 0;

  constructor(
    private readonly heldPullsMax = DEFAULT_HELD_PULLS_MAX,
    private readonly budget?: HeldPullBudget,
  ) {}

  get size(): number {
    return this.held;
  }

  /** Bytes the held pulls are charged (heldPullBytes of each). */
  get heldBytes(): number {
    return this.heldBytesNow;
  }

  /**
   * Parks a pull. Otherwise the caller answers at once: "full" (heldPullsMax) as if nothing
   * was found, "over-budget" with SYSTEM_BUSY so the client backs off.
   */
  hold(pull: HeldPull): HoldResult {
    if (pull.conn.closed) return "closed";
    if (this.held >= this.heldPullsMax) return "full";
    const bytes = pull.bytes ?? 0;
    if (this.budget) {
      if (this.heldBytesNow + bytes > this.budget.bytesMax * HELD_PULLS_BUDGET_SHARE) return "over-budget";
      if (!this.budget.take(pull.conn, bytes, "working")) return "over-budget";
    }
    this.heldBytesNow += bytes;
    const key = `${pull.topic}@${pull.queueId}`;
    let parked = this.byQueue.get(key);
    if (!parked) {
      parked = new Set();
      this.byQueue.set(key, parked);
    }
    const entry: Parked = {
      pull,
      timer: setTimeout(() => this.release(key, entry), Math.max(0, pull.deadline - Date.now())),
    };
    parked.add(entry);
    this.held++;
    return "held";
  }

  /** A message was dispatched: wake the pulls of that queue that it may satisfy. */
  notifyMessageArriving(
    topic: string,
    queueId: number,
    maxOffset: number,
    tagsCode?: number,
    properties?: ReadonlyMap<string, string>,
  ): void {
    if (this.byQueue.size === 0) return;
    const key = `${topic}@${queueId}`;
    const parked = this.byQueue.get(key);
    if (!parked) return;
    for (const entry of [...parked]) {
      if (maxOffset > entry.pull.offset && entry.pull.matches(tagsCode, properties)) this.release(key, entry);
    }
  }

  /** Forgets the pulls of a closed connection without answering them. */
  connectionClosed(conn: Connection): void {
    for (const [key, parked] of this.byQueue) {
      for (const entry of [...parked]) {
        if (entry.pull.conn === conn) this.remove(key, entry);
      }
    }
  }

  /** Answers everything still held (shutdown). */
  wakeAll(): void {
    for (const [key, parked] of this.byQueue) for (const entry of [...parked]) this.release(key, entry);
  }

  private release(key: string, entry: Parked): void {
    if (!this.remove(key, entry)) return;
    if (!entry.pull.conn.closed) entry.pull.wake();
  }

  private remove(key: string, entry: Parked): boolean {
    const parked = this.byQueue.get(key);
    if (!parked?.delete(entry)) return false;
    if (parked.size === 0) this.byQueue.delete(key);
    clearTimeout(entry.timer);
    this.held--;
    this.heldBytesNow -= entry.pull.bytes ?? 0;
    this.budget?.give(entry.pull.conn, entry.pull.bytes ?? 0, "working");
    return true;
  }
}
