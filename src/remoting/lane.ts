/**
 * A named concurrency lane: at most `concurrency` processor calls run at once, at most `queueMax`
 * wait behind them. The bounded queue plays the part of a Java processor executor's queue: when it
 * is full the request is refused (SYSTEM_BUSY), never buffered without bound (style habit 10).
 */
export interface LaneOptions {
  concurrency: number;
  queueMax: number;
}

export const DEFAULT_LANE: LaneOptions = { concurrency: 64, queueMax: 10_000 };

/** What waits on a lane: Java's executor queue size and how long its head has waited. */
export interface LaneLoad {
  waiting: number;
  headWaitMs: number;
}

export class Lane {
  private running = 0;
  private queue: (() => void)[] = [];
  /** When each queued task arrived, index for index with `queue` (for headWaitMs). */
  private queuedAt: number[] = [];
  private head = 0;

  constructor(
    readonly name: string,
    readonly options: LaneOptions,
  ) {}

  get active(): number {
    return this.running;
  }

  get waiting(): number {
    return this.queue.length - this.head;
  }

  /**
   * Runs `task` now or when a slot frees; false when the queue is full and the task was refused.
   * `task` must call the `done` it receives exactly once.
   */
  submit(task: (done: () => void) => void): boolean {
    if (this.running < this.options.concurrency) {
      this.start(task);
      return true;
    }
    if (this.waiting >= this.options.queueMax) return false;
    this.queue.push(() => this.start(task));
    this.queuedAt.push(Date.now());
    return true;
  }

  /** The queue and its oldest task's wait (Java's headSlowTimeMills; 0 when nothing waits). */
  load(now = Date.now()): LaneLoad {
    const waiting = this.waiting;
    return { waiting, headWaitMs: waiting > 0 ? Math.max(0, now - this.queuedAt[this.head]!) : 0 };
  }

  private start(task: (done: () => void) => void): void {
    this.running++;
    let finished = false;
    task(() => {
      if (finished) return;
      finished = true;
      this.running--;
      this.next();
    });
  }

  private next(): void {
    if (this.head >= this.queue.length) return;
    const run = this.queue[this.head]!;
    this.queue[this.head] = undefined as unknown as () => void;
    this.head++;
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.queuedAt = this.queuedAt.slice(this.head);
      this.head = 0;
    }
    run();
  }
}
