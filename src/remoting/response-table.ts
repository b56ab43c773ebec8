/**
 * Response futures keyed by (connection id, opaque) (style habit 9). Each future settles once:
 * by its response, by the expiry scan, or by its connection closing, which fails only its own.
 */
import type { RemotingCommand } from "./command.ts";
import { ConnectionClosedError, RemotingTimeoutError } from "./errors.ts";

export interface PendingResponse {
  readonly deadline: number;
  /** What the timeout error names: request code, peer address and the timeout. */
  readonly code: number;
  readonly addr: string;
  readonly timeoutMs: number;
  resolve(cmd: RemotingCommand): void;
  reject(err: Error): void;
}

/**
 * Built only when the request expires: constructing an Error per request (to capture the caller's
 * stack at send time) cost a fifth of a round trip's CPU; the message names the call instead.
 */
function timeoutError(opaque: number, p: PendingResponse): RemotingTimeoutError {
  return new RemotingTimeoutError(p.code, opaque, p.addr, p.timeoutMs);
}

export const DEFAULT_SCAN_INTERVAL_MS = 100;

export class ResponseTable {
  private readonly byConnection = new Map<number, Map<number, PendingResponse>>();
  private count = 0;
  private scanTimer: ReturnType<typeof setInterval> | null = null;

  constructor(private readonly scanIntervalMs = DEFAULT_SCAN_INTERVAL_MS) {}

  get size(): number {
    return this.count;
  }

  add(connectionId: number, opaque: number, pending: PendingResponse): void {
    let table = this.byConnection.get(connectionId);
    if (!table) {
      table = new Map();
      this.byConnection.set(connectionId, table);
    }
    const previous = table.get(opaque);
    if (previous) {
      // Opaques wrap below 2^31; a still-pending namesake this old has certainly expired.
      previous.reject(timeoutError(opaque, previous));
      this.count--;
    }
    table.set(opaque, pending);
    this.count++;
    this.ensureScanner();
  }

  /** Settles the matching future; false when none waits (late or unknown response). */
  complete(connectionId: number, response: RemotingCommand): boolean {
    const pending = this.take(connectionId, response.opaque);
    if (!pending) return false;
    pending.resolve(response);
    return true;
  }

  /** Removes a future without settling it (the send itself failed). */
  take(connectionId: number, opaque: number): PendingResponse | undefined {
    const table = this.byConnection.get(connectionId);
    const pending = table?.get(opaque);
    if (!table || !pending) return undefined;
    table.delete(opaque);
    if (table.size === 0) this.byConnection.delete(connectionId);
    this.count--;
    return pending;
  }

  /** Fails every future of one connection at once, and no one else's. */
  failConnection(connectionId: number, addr: string, reason?: string): void {
    const table = this.byConnection.get(connectionId);
    if (!table) return;
    this.byConnection.delete(connectionId);
    this.count -= table.size;
    const error = new ConnectionClosedError(addr, reason ? `connection closed (${reason})` : undefined);
    for (const pending of table.values()) pending.reject(error);
  }

  /** Fails every future whose deadline has passed. */
  scan(now = Date.now()): number {
    let expired = 0;
    for (const [connectionId, table] of this.byConnection) {
      for (const [opaque, pending] of table) {
        if (pending.deadline > now) continue;
        table.delete(opaque);
        this.count--;
        expired++;
        pending.reject(timeoutError(opaque, pending));
      }
      if (table.size === 0) this.byConnection.delete(connectionId);
    }
    if (this.count === 0) this.stopScanner();
    return expired;
  }

  /** Fails everything (shutdown). */
  failAll(addr = "shutdown"): void {
    for (const [connectionId] of this.byConnection) this.failConnection(connectionId, addr);
  }

  // The scanner stops itself on a scan that finds the table empty, not on every emptying: arming and
  // disarming a timer per request (one in flight) costs a timer syscall on every round trip.
  private ensureScanner(): void {
    if (this.scanTimer) return;
    this.scanTimer = setInterval(() => this.scan(), this.scanIntervalMs);
    this.scanTimer.unref?.();
  }

  private stopScanner(): void {
    if (!this.scanTimer) return;
    clearInterval(this.scanTimer);
    this.scanTimer = null;
  }
}
