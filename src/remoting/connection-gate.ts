/**
 * ConnectionGate: the cap on TCP client connections the servers of a process hold at once
 * (`serverConnectionsMax`). A connection beyond it is closed as soon as it is accepted, so its
 * descriptor is back at once; the refusals of a burst are logged once, not one line each.
 */
import type { Logger } from "pino";
import { BurstLog } from "./burst-log.ts";

export class ConnectionGate {
  private openCount = 0;
  private refusedCount = 0;
  private readonly refusals: BurstLog;

  constructor(
    readonly connectionsMax: number,
    log: Logger,
  ) {
    this.refusals = new BurstLog(
      log,
      `refusing connections: serverConnectionsMax (${connectionsMax}) reached`,
    );
  }

  /** TCP connections admitted and not yet closed. */
  get open(): number {
    return this.openCount;
  }

  /** Connections refused since start. */
  get refused(): number {
    return this.refusedCount;
  }

  /** Admits one more connection, or counts and logs a refusal; the caller closes a refused one. */
  admit(remoteAddress: string): boolean {
    if (this.openCount < this.connectionsMax) {
      this.openCount++;
      return true;
    }
    this.refusedCount++;
    this.refusals.note({ addr: remoteAddress, open: this.openCount });
    return false;
  }

  /** An admitted connection closed. */
  leave(): void {
    if (this.openCount > 0) this.openCount--;
  }

  stop(): void {
    this.refusals.stop();
  }
}
