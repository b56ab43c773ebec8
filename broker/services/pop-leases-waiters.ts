/**
 * Parked POP requests (spec pop-timer-filter §A.11). A waiter is filed under its topic and under
 * its group's V1 retry topic, so a revived copy wakes it too (an allowed improvement on Java).
 * An arrival wakes, per (group, queueId) key, the first matching waiter in parking order; a 20 ms
 * tick hands every waiter whose deadline passed to its `expire` (one last pop, then
 * POLLING_TIMEOUT).
 */

import { popRetryTopicV1 } from "../../src/protocol/headers/pop.ts";
import type { Connection } from "../../src/remoting/connection.ts";

/** Java's popPollingSize and maxPopPollingSize. */
export const POP_POLLING_PER_KEY_MAX = 1024;
export const POP_POLLING_MAX = 100_000;
const TICK_MS = 20;

export interface PopWaiter {
  readonly conn: Connection;
  readonly group: string;
  readonly topic: string;
  /** -1: any queue. */
  readonly queueId: number;
  /** bornTime + pollTime − 50 (§A.11). */
  readonly deadline: number;
  matches(tagsCode: number): boolean;
  /** A matching message arrived: re-run the pop. */
  wake(): void;
  /** The deadline passed: last pop, no parking. */
  expire(): void;
}

export class PopWaiters {
  private readonly byTopic = new Map<string, Set<PopWaiter>>();
  private readonly all = new Set<PopWaiter>();
  /** Arrivals and unblocks per topic: a pop that read nothing re-reads instead of parking when it moved. */
  private readonly epochs = new Map<string, number>();
  private timer: ReturnType<typeof setInterval> | null = null;

  get size(): number {
    return this.all.size;
  }

  start(): void {
    this.timer = setInterval(() => this.expire(Date.now()), TICK_MS);
    this.timer.unref?.();
  }

  /** Drops every waiter unanswered: the broker is stopping and closes their connections. */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    for (const w of [...this.all]) this.remove(w);
  }

  /**
   * Changes whenever something arrives in or unblocks `topic` or its group's retry topic: compared
   * before and after a pop's read, it tells a pop about to park that it may have missed a wake-up.
   */
  epoch(topic: string, group: string): number {
    return (this.epochs.get(topic) ?? 0) + (this.epochs.get(popRetryTopicV1(topic, group)) ?? 0);
  }

  /** "parked", or "full" when the registry or the key is at its cap (POLLING_FULL). */
  park(w: PopWaiter): "parked" | "full" {
    if (this.all.size >= POP_POLLING_MAX) return "full";
    let sameKey = 0;
    for (const o of this.byTopic.get(w.topic) ?? []) {
      if (o.group === w.group && o.queueId === w.queueId) sameKey++;
    }
    if (sameKey >= POP_POLLING_PER_KEY_MAX) return "full";
    this.all.add(w);
    for (const t of [w.topic, popRetryTopicV1(w.topic, w.group)]) {
      let s = this.byTopic.get(t);
      if (!s) {
        s = new Set();
        this.byTopic.set(t, s);
      }
      s.add(w);
    }
    return "parked";
  }

  /** Number of waiters parked under (topic, group, queueId), POLLING_INFO's count. */
  count(topic: string, group: string, queueId: number): number {
    let n = 0;
    for (const w of this.byTopic.get(topic) ?? []) if (w.group === group && w.queueId === queueId) n++;
    return n;
  }

  private remove(w: PopWaiter): void {
    this.all.delete(w);
    for (const t of [w.topic, popRetryTopicV1(w.topic, w.group)]) {
      const s = this.byTopic.get(t);
      s?.delete(w);
      if (s?.size === 0) this.byTopic.delete(t);
    }
  }

  /** A message is visible in (topic, queueId). */
  notify(topic: string, queueId: number, tagsCode: number): void {
    this.epochs.set(topic, (this.epochs.get(topic) ?? 0) + 1);
    const set = this.byTopic.get(topic);
    if (!set) return;
    const woken = new Set<string>();
    for (const w of [...set]) {
      const retry = w.topic !== topic;
      // A retry copy lives in queue 0 of the retry topic: it concerns every queue of the topic.
      if (!retry && w.queueId !== -1 && w.queueId !== queueId) continue;
      const key = `${w.group}@${w.queueId}`;
      if (woken.has(key) || !w.matches(tagsCode)) continue;
      woken.add(key);
      this.remove(w);
      if (w.conn.closed) continue;
      w.wake();
    }
  }

  /**
   * An ordered queue was unblocked or acked (§A.11 wake-up c): wakes one waiter of the group for
   * the queue and one for "any queue", whatever their filters (the messages are already there).
   */
  wakeQueue(topic: string, group: string, queueId: number): void {
    this.epochs.set(topic, (this.epochs.get(topic) ?? 0) + 1);
    const set = this.byTopic.get(topic);
    if (!set) return;
    for (const q of [queueId, -1]) {
      for (const w of set) {
        if (w.topic !== topic || w.group !== group || w.queueId !== q) continue;
        this.remove(w);
        if (!w.conn.closed) w.wake();
        break;
      }
    }
  }

  private expire(now: number): void {
    for (const w of [...this.all]) {
      if (w.conn.closed) {
        this.remove(w);
        continue;
      }
      if (w.deadline > now) continue;
      this.remove(w);
      w.expire();
    }
  }
}
