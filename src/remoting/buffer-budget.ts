/**
 * BufferBudget: the bytes the servers of a process hold on behalf of their clients (unsent
 * responses, partial request frames, held pulls), charged to the connection they belong to and
 * capped in total (style habit 10), so no client can push the process into the OOM killer.
 *
 * When a charge would overflow the cap, either it is refused (the caller answers SYSTEM_BUSY), or,
 * for bytes that already exist and must go somewhere, the connection pinning the most is closed,
 * but only while it pins more than the asking connection would; otherwise the asker is refused
 * and closes itself. Either way a heavy client loses its connection before a light one does.
 */
import type { Logger } from "pino";
import { BurstLog } from "./burst-log.ts";

/** Whoever bytes are charged to: a connection, closed when it must make room. */
export interface BudgetHolder {
  readonly remoteAddress: string;
  /** Closes; should release this holder's bytes (`release`) before returning. */
  close(reason?: string): void;
  /** Closes at once, dropping the socket even if the peer does not read (TCP); preferred. */
  abort?(reason: string): void;
}

export class BufferBudget {
  private usedBytes = 0;
  private peakBytes = 0;
  /** Holders with bytes charged to them, and how many. */
  private readonly held = new Map<BudgetHolder, number>();
  private readonly evictions: BurstLog;

  constructor(
    readonly bytesMax: number,
    log: Logger,
  ) {
    this.evictions = new BurstLog(
      log,
      "server buffer budget full: closing the connections that pin the most",
    );
  }

  get used(): number {
    return this.usedBytes;
  }

  /** The most ever charged at once (tests and stats check the cap held). */
  get peak(): number {
    return this.peakBytes;
  }

  heldBy(holder: BudgetHolder): number {
    return this.held.get(holder) ?? 0;
  }

  /**
   * Charges `bytes` to `holder`. With `evict`, makes room by closing heavier holders first.
   * False when the bytes do not fit; nothing is charged then.
   */
  take(holder: BudgetHolder, bytes: number, evict: boolean): boolean {
    if (bytes <= 0) return true;
    while (this.usedBytes + bytes > this.bytesMax) {
      if (!evict) return false;
      const victim = this.heaviest();
      if (!victim || victim.bytes <= this.heldBy(holder) + bytes) return false;
      this.evictions.note({
        addr: victim.holder.remoteAddress,
        pinnedBytes: victim.bytes,
        max: this.bytesMax,
      });
      const reason = `server buffer budget of ${this.bytesMax} bytes is full`;
      if (victim.holder.abort) victim.holder.abort(reason);
      else victim.holder.close(reason);
      // A holder that failed to release must not make this loop spin.
      if (this.held.has(victim.holder)) this.release(victim.holder);
    }
    this.usedBytes += bytes;
    this.held.set(holder, this.heldBy(holder) + bytes);
    if (this.usedBytes > this.peakBytes) this.peakBytes = this.usedBytes;
    return true;
  }

  /** Gives back up to `bytes` of `holder`'s charge (nothing once it was released). */
  give(holder: BudgetHolder, bytes: number): void {
    const has = this.held.get(holder);
    if (has === undefined || bytes <= 0) return;
    const back = Math.min(has, bytes);
    this.usedBytes -= back;
    if (has === back) this.held.delete(holder);
    else this.held.set(holder, has - back);
  }

  /** Gives back everything charged to `holder` (it closed). */
  release(holder: BudgetHolder): void {
    this.give(holder, this.held.get(holder) ?? 0);
  }

  stop(): void {
    this.evictions.stop();
  }

  private heaviest(): { holder: BudgetHolder; bytes: number } | undefined {
    let best: { holder: BudgetHolder; bytes: number } | undefined;
    for (const [holder, bytes] of this.held) if (!best || bytes > best.bytes) best = { holder, bytes };
    return best;
  }
}
