/**
 * Long polling (spec broker §7.6, Java's PullRequestHoldService): a pull that found nothing is
 * parked under `topic@queueId` and re-run when a matching message arrives or its hold expires.
 * Held pulls are bounded (`heldPullsMax`); a pull whose connection closed is dropped.
 */
import type { Connection } from "../../src/remoting/connection.ts";

export const DEFAULT_HELD_PULLS_MAX = 100_000;

export interface HeldPull {
  readonly conn: Connection;
  readonly topic: string;
  readonly queueId: number;
  /** The offset the pull asked for: any max offset beyond it may have news. */
  readonly offset: number;
  readonly deadline: number;
  /** Whether a message with this tags code would pass the pull's filter. */
  matches(tagsCode: number | undefined): boolean;
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

  constructor(private readonly heldPullsMax = DEFAULT_HELD_PULLS_MAX) {}

  get size(): number {
    return this.held;
  }

  /** Parks a pull; false when the hold table is full (the caller answers at once). */
  hold(pull: HeldPull): boolean {
    if (this.held >= this.heldPullsMax || pull.conn.closed) return false;
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
    return true;
  }

  /** A message was dispatched: wake the pulls of that queue that it may satisfy. */
  notifyMessageArriving(topic: string, queueId: number, maxOffset: number, tagsCode?: number): void {
    if (this.byQueue.size === 0) return;
    const key = `${topic}@${queueId}`;
    const parked = this.byQueue.get(key);
    if (!parked) return;
    for (const entry of [...parked]) {
      if (maxOffset > entry.pull.offset && entry.pull.matches(tagsCode)) this.release(key, entry);
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
    return true;
  }
}
