/**
 * A fair counting semaphore with a bounded wait, like Java's Semaphore.tryAcquire(timeout), used to
 * cap async and oneway requests in flight (spec remoting §4.4).
 */
export class Semaphore {
  private waiters: { resolve: (ok: boolean) => void; timer: ReturnType<typeof setTimeout> }[] = [];

  constructor(private available: number) {}

  get permits(): number {
    return this.available;
  }

  /** True when a permit was taken; false when none freed up within `timeoutMs`. */
  tryAcquire(timeoutMs: number): boolean | Promise<boolean> {
    if (this.available > 0 && this.waiters.length === 0) {
      this.available--;
      return true;
    }
    if (timeoutMs <= 0) return false;
    return new Promise<boolean>((resolve) => {
      const waiter = {
        resolve,
        timer: setTimeout(() => {
          this.waiters.splice(this.waiters.indexOf(waiter), 1);
          resolve(false);
        }, timeoutMs),
      };
      this.waiters.push(waiter);
    });
  }

  release(): void {
    const next = this.waiters.shift();
    if (next) {
      clearTimeout(next.timer);
      next.resolve(true);
    } else {
      this.available++;
    }
  }
}
