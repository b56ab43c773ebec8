/** A delay that ends early when its signal aborts (pull back-off, retries), so shutdown never waits on it. */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}

/** A counting limiter for consume concurrency. */
export class Limiter {
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  private idleWaiters: (() => void)[] = [];

  constructor(private readonly max: number) {}

  get running(): number {
    return this.active;
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active >= this.max) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.active++;
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else {
        this.active--;
        if (this.active === 0) {
          const idle = this.idleWaiters;
          this.idleWaiters = [];
          for (const w of idle) w();
        }
      }
    }
  }

  /** Resolves when no task is running or queued. */
  idle(): Promise<void> {
    if (this.active === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }
}

/**
 * Races work against an abort signal (a pull loop's): the work settles with its result, or with null as
 * soon as the signal aborts (shutdown must not wait out a held long poll on a connection it does
 * not close, a shared client instance). One abort listener per loop, not one per pull: adding and
 * removing an AbortSignal listener costs more than the rest of a pull's bookkeeping.
 */
export class AbortRace {
  private readonly waiting = new Set<(v: null) => void>();
  private readonly onAbort = () => {
    for (const resolve of this.waiting) resolve(null);
    this.waiting.clear();
  };

  constructor(private readonly signal: AbortSignal) {
    signal.addEventListener("abort", this.onAbort, { once: true });
  }

  /** Detaches from the signal, which outlives the loop (one per consumer, loops end at rebalance). */
  dispose(): void {
    this.signal.removeEventListener("abort", this.onAbort);
  }

  race<T>(work: Promise<T>): Promise<T | null> {
    if (this.signal.aborted) {
      work.catch(() => {});
      return Promise.resolve(null);
    }
    return new Promise<T | null>((resolve, reject) => {
      const onAbort = (v: null) => {
        work.catch(() => {});
        resolve(v);
      };
      this.waiting.add(onAbort);
      work.then(
        (v) => {
          this.waiting.delete(onAbort);
          resolve(v);
        },
        (err: unknown) => {
          this.waiting.delete(onAbort);
          reject(err);
        },
      );
    });
  }
}
