/**
 * BufferBudget: the bytes the servers of a process hold on behalf of their clients, charged to
 * the connection they belong to and capped in total (`serverBufferBytesMax`, style habit 10), so
 * that no client can push the process into the OOM killer. Two kinds of charge:
 *
 *   "unsent"   responses the peer has not read, a request frame it has not finished sending:
 *              how long they stay is up to the peer, so they are what makes room.
 *   "working"  a pull read in flight, a held pull: the server frees them by itself.
 *
 * When a charge does not fit, room is made by closing the connection with the most unsent bytes,
 * for as long as it has more than the asking connection would have; the asker never loses to a
 * lighter peer. If that is not enough, an "unsent" charge fails (the asker closes itself) and a
 * "working" one is refused (the processor answers SYSTEM_BUSY).
 */
import type { Logger } from "pino";
import { BurstLog } from "./burst-log.ts";

export type ChargeKind = "unsent" | "working";

/** Whoever bytes are charged to: a connection, closed when it must make room. */
export interface BudgetHolder {
  readonly remoteAddress: string;
  /** Closes; should release this holder's bytes (`release`) before returning. */
  close(reason?: string): void;
  /** Closes at once, dropping the socket even if the peer does not read (TCP); preferred. */
  abort?(reason: string): void;
}

interface Held {
  unsent: number;
  working: number;
}

export class BufferBudget {
  private usedBytes = 0;
  private peakBytes = 0;
  private readonly held = new Map<BudgetHolder, Held>();
  private readonly evictions: BurstLog;

  constructor(
    readonly bytesMax: number,
    log: Logger,
  ) {
    this.evictions = new BurstLog(
      log,
      "server buffer budget full: closing the connections with most unsent bytes",
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
    const h = this.held.get(holder);
    return h ? h.unsent + h.working : 0;
  }

  /** Charges `bytes` of `kind` to `holder`, making room if needed; false (nothing charged) if it does not fit. */
  take(holder: BudgetHolder, bytes: number, kind: ChargeKind): boolean {
    if (bytes <= 0) return true;
    if (this.usedBytes + bytes > this.bytesMax && !this.makeRoom(holder, bytes, kind)) return false;
    let h = this.held.get(holder);
    if (!h) {
      h = { unsent: 0, working: 0 };
      this.held.set(holder, h);
    }
    h[kind] += bytes;
    this.usedBytes += bytes;
    if (this.usedBytes > this.peakBytes) this.peakBytes = this.usedBytes;
    return true;
  }

  /** Gives back up to `bytes` of `holder`'s `kind` charge (nothing once it was released). */
  give(holder: BudgetHolder, bytes: number, kind: ChargeKind): void {
    const h = this.held.get(holder);
    if (!h || bytes <= 0) return;
    const back = Math.min(h[kind], bytes);
    h[kind] -= back;
    this.usedBytes -= back;
    if (h.unsent === 0 && h.working === 0) this.held.delete(holder);
  }

  /** Gives back everything charged to `holder` (it closed). */
  release(holder: BudgetHolder): void {
    const h = this.held.get(holder);
    if (!h) return;
    this.usedBytes -= h.unsent + h.working;
    this.held.delete(holder);
  }

  stop(): void {
    this.evictions.stop();
  }

  /** Closes the heaviest unsent holders until `bytes` fit; false if they cannot be made to. */
  private makeRoom(holder: BudgetHolder, bytes: number, kind: ChargeKind): boolean {
    const askerUnsent = (this.held.get(holder)?.unsent ?? 0) + (kind === "unsent" ? bytes : 0);
    while (this.usedBytes + bytes > this.bytesMax) {
      const victim = this.mostUnsent(holder);
      if (!victim || victim.unsent <= askerUnsent) return false;
      this.evictions.note({
        addr: victim.holder.remoteAddress,
        unsentBytes: victim.unsent,
        max: this.bytesMax,
      });
      const reason = `server buffer budget of ${this.bytesMax} bytes is full`;
      if (victim.holder.abort) victim.holder.abort(reason);
      else victim.holder.close(reason);
      // A holder that did not release itself must not make this loop spin.
      this.release(victim.holder);
    }
    return true;
  }

  private mostUnsent(except: BudgetHolder): { holder: BudgetHolder; unsent: number } | undefined {
    let best: { holder: BudgetHolder; unsent: number } | undefined;
    for (const [holder, h] of this.held) {
      if (holder !== except && (!best || h.unsent > best.unsent)) best = { holder, unsent: h.unsent };
    }
    return best;
  }
}
