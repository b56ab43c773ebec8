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
