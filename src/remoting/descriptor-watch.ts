/**
 * DescriptorWatch: stops the process's listeners while it is out of file descriptors, and starts
 * them again once descriptors are free.
 *
 * Why: when accept() fails with EMFILE/ENFILE, Bun (1.4; uSockets' empty "Todo: start timer here"
 * arm in loop.c) leaves the connection queued and the level-triggered listener readable, so the
 * event loop retries at once, forever: 100% CPU, and JS is never told. The connection cap keeps
 * connections from using up descriptors; this covers the rest (store files, outbound sockets, a
 * cap set too high). A cheap probe (open and close /dev/null) every `probeIntervalMs` detects the
 * exhaustion; the listeners are then closed, which stops the spin (queued connections are reset),
 * and opened again on the same ports when enough descriptors are free. Pauses that follow one
 * another quickly grow longer, so a client that keeps the process at its limit costs little CPU.
 */
import { closeSync, openSync } from "node:fs";
import type { Logger } from "pino";
import { countOpenDescriptors } from "./host-limits.ts";

export const DEFAULT_DESCRIPTOR_PROBE_INTERVAL_MS = 250;
/** The first pause; each pause that follows a resume within `PAUSE_RESET_MS` doubles, up to the max. */
export const DESCRIPTOR_PAUSE_MS_MIN = 500;
export const DESCRIPTOR_PAUSE_MS_MAX = 8_000;
const PAUSE_RESET_MS = 30_000;
/** Descriptors that must be free before listening again: a few accepts' worth, not just one. */
export const DESCRIPTOR_RESUME_HEADROOM = 16;

/** A listener that can stop accepting and start again on the same address. */
export interface PausableListener {
  readonly name: string;
  pause(): void;
  /** Listens again; false when that failed (tried again after the next pause). */
  resume(): boolean;
}

export interface DescriptorWatchOptions {
  /** Soft RLIMIT_NOFILE, for the resume headroom; undefined when unknown. */
  openFilesLimit: number | undefined;
  log: Logger;
  probeIntervalMs?: number;
}

export class DescriptorWatch {
  private readonly listeners = new Set<PausableListener>();
  private readonly probeIntervalMs: number;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private paused = false;
  private pauseMs = DESCRIPTOR_PAUSE_MS_MIN;
  private pausedAt = 0;
  private resumedAt = 0;
  private pauses = 0;
  /** False once the probe failed for a reason other than exhaustion (no /dev/null): watch off. */
  private probeWorks = true;

  constructor(private readonly options: DescriptorWatchOptions) {
    this.probeIntervalMs = options.probeIntervalMs ?? DEFAULT_DESCRIPTOR_PROBE_INTERVAL_MS;
  }

  /** Times the listeners were paused since start. */
  get pauseCount(): number {
    return this.pauses;
  }

  get isPaused(): boolean {
    return this.paused;
  }

  add(listener: PausableListener): void {
    this.listeners.add(listener);
    if (!this.timer && this.probeWorks) this.schedule(this.probeIntervalMs);
  }

  remove(listener: PausableListener): void {
    this.listeners.delete(listener);
    if (this.listeners.size === 0) this.stop();
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private schedule(ms: number): void {
    this.timer = setTimeout(() => this.tick(), ms);
    this.timer.unref?.();
  }

  private tick(): void {
    this.timer = null;
    if (this.listeners.size === 0) return;
    if (this.paused) this.tryResume();
    else if (this.exhausted()) this.pause();
    if (this.probeWorks) this.schedule(this.paused ? this.pauseMs : this.probeIntervalMs);
  }

  private exhausted(): boolean {
    try {
      closeSync(openSync("/dev/null", "r"));
      return false;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === "EMFILE" || code === "ENFILE") return true;
      this.probeWorks = false;
      this.options.log.warn({ err }, "descriptor watch disabled: cannot open /dev/null");
      return false;
    }
  }

  private pause(): void {
    const now = Date.now();
    this.pauseMs =
      this.pauses > 0 && now - this.resumedAt < PAUSE_RESET_MS
        ? Math.min(this.pauseMs * 2, DESCRIPTOR_PAUSE_MS_MAX)
        : DESCRIPTOR_PAUSE_MS_MIN;
    this.paused = true;
    this.pausedAt = now;
    this.pauses++;
    for (const l of this.listeners) l.pause();
    this.options.log.warn(
      { listeners: [...this.listeners].map((l) => l.name), pauseMs: this.pauseMs },
      "out of file descriptors (EMFILE): not accepting connections for a while",
    );
  }

  private tryResume(): void {
    if (this.exhausted() || !this.hasHeadroom()) return;
    let all = true;
    for (const l of this.listeners) if (!l.resume()) all = false;
    if (!all) return;
    this.paused = false;
    this.resumedAt = Date.now();
    this.options.log.info({ pausedMs: this.resumedAt - this.pausedAt }, "accepting connections again");
  }

  private hasHeadroom(): boolean {
    const limit = this.options.openFilesLimit;
    const open = limit === undefined ? undefined : countOpenDescriptors();
    return limit === undefined || open === undefined || limit - open >= DESCRIPTOR_RESUME_HEADROOM;
  }
}
