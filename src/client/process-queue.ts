/**
 * ProcessQueue: the messages pulled from one queue and not yet consumed, in offset order, with
 * the flow-control bounds the pull loop waits on and the offset that is safe to commit.
 */
import type { MessageExt } from "./message.ts";

export interface FlowLimits {
  /** Java's pullThresholdForQueue. */
  messagesMax: number;
  /** Java's pullThresholdSizeForQueue, in bytes. */
  bytesMax: number;
}

export const DEFAULT_FLOW_LIMITS: FlowLimits = { messagesMax: 1000, bytesMax: 100 * 1024 * 1024 };

export class ProcessQueue {
  /** Offset → message; pulls arrive in offset order, so insertion order is offset order. */
  private readonly msgs = new Map<number, MessageExt>();
  private bytes = 0;
  private highest = -1;
  private roomWaiters: (() => void)[] = [];
  dropped = false;
  /** Bumped by seek: results of pulls issued before it are discarded. */
  generation = 0;

  get count(): number {
    return this.msgs.size;
  }

  get cachedBytes(): number {
    return this.bytes;
  }

  put(msgs: readonly MessageExt[]): void {
    for (const m of msgs) {
      const size = this.msgs.size;
      this.msgs.set(m.queueOffset, m);
      if (this.msgs.size === size) continue; // already cached (a duplicate pull): keep one count
      this.bytes += m.body.length;
      if (m.queueOffset > this.highest) this.highest = m.queueOffset;
    }
  }

  /**
   * Removes consumed messages; returns the offset to commit: the lowest offset still cached, or
   * one past the highest ever cached when nothing is left; -1 if nothing was ever cached.
   */
  remove(msgs: readonly MessageExt[]): number {
    for (const m of msgs) if (this.msgs.delete(m.queueOffset)) this.bytes -= m.body.length;
    this.wakeRoom();
    if (this.highest < 0) return -1;
    for (const offset of this.msgs.keys()) return offset;
    return this.highest + 1;
  }

  /** Forgets cached messages (seek). */
  clear(): void {
    this.msgs.clear();
    this.bytes = 0;
    this.highest = -1;
    this.wakeRoom();
  }

  drop(): void {
    this.dropped = true;
    this.wakeRoom();
  }

  /** Whether the queue is under both limits. */
  hasRoom(limits: FlowLimits): boolean {
    return this.msgs.size < limits.messagesMax && this.bytes < limits.bytesMax;
  }

  /** Resolves once the queue is under both limits, or dropped. */
  waitForRoom(limits: FlowLimits): Promise<void> | undefined {
    if (this.dropped || this.hasRoom(limits)) return undefined;
    return new Promise((resolve) => {
      const check = () => {
        if (this.dropped || (this.msgs.size < limits.messagesMax && this.bytes < limits.bytesMax)) resolve();
        else this.roomWaiters.push(check);
      };
      this.roomWaiters.push(check);
    });
  }

  private wakeRoom(): void {
    const waiters = this.roomWaiters;
    this.roomWaiters = [];
    for (const w of waiters) w();
  }
}
