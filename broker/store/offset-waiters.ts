/**
 * Puts waiting for the CommitLog to reach their end offset (written, or durable), gathered in
 * groups that share one promise: every put that joins before a round takes its bytes is completed
 * by that round (group commit). Groups complete in offset order, each by its latest member's target.
 */

/** The puts one round will complete; all share one promise. */
interface WaitGroup {
  /** Largest end offset of a member; the group completes once the log reaches it. */
  target: number;
  /** The latest member's deadline: no member is timed out before its own deadline. */
  deadline: number;
  members: number;
  readonly promise: Promise<boolean>;
  readonly resolve: (reached: boolean) => void;
}

const REACHED = Promise.resolve(true);
const NOT_REACHED = Promise.resolve(false);

export class OffsetWaiters {
  /** Groups in offset order; the last may still be open (taking members). */
  private readonly groups: WaitGroup[] = [];
  /** The group new waiters join; closed when a round takes its bytes. */
  private open: WaitGroup | undefined;
  private waiters = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    /** How long a waiter waits before it is completed with false. */
    private readonly timeoutMs: number,
    /** Waiters beyond this many are refused at once (completed with false). */
    private readonly waitersMax: number,
    private readonly now: () => number,
  ) {}

  get count(): number {
    return this.waiters;
  }

  get pending(): boolean {
    return this.groups.length > 0;
  }

  /**
   * True once `complete` has been called with at least `offset`; false if the timeout passes
   * first. `reached` is the offset the log has already reached.
   */
  wait(offset: number, reached: number): Promise<boolean> {
    if (offset <= reached) return REACHED;
    if (this.waiters >= this.waitersMax) return NOT_REACHED;
    let g = this.open;
    const first = this.groups.length === 0;
    if (!g) {
      let resolve!: (reached: boolean) => void;
      const promise = new Promise<boolean>((r) => {
        resolve = r;
      });
      g = { target: 0, deadline: 0, members: 0, promise, resolve };
      this.open = g;
      this.groups.push(g);
    }
    g.target = Math.max(g.target, offset);
    g.deadline = this.now() + this.timeoutMs;
    g.members++;
    this.waiters++;
    if (first) this.arm();
    return g.promise;
  }

  /** A round takes the bytes appended so far: later waiters form a new group. */
  closeOpen(): void {
    this.open = undefined;
  }

  /** The log reached `offset`: completes every leading group it covers. */
  complete(offset: number): void {
    this.completeWhile((g) => g.target <= offset, true);
  }

  /** Completes every group with false (shutdown). */
  failAll(): void {
    clearTimeout(this.timer);
    this.open = undefined;
    this.waiters = 0;
    for (const g of this.groups.splice(0)) g.resolve(false);
  }

  private completeWhile(done: (g: WaitGroup) => boolean, reached: boolean): void {
    let n = 0;
    while (n < this.groups.length && done(this.groups[n]!)) {
      const g = this.groups[n++]!;
      if (g === this.open) this.open = undefined;
      this.waiters -= g.members;
      g.resolve(reached);
    }
    if (n > 0) {
      this.groups.splice(0, n);
      this.arm();
    }
  }

  /** One timer for the oldest group; groups are in offset order, hence in deadline order. */
  private arm(): void {
    clearTimeout(this.timer);
    const front = this.groups[0];
    if (!front) return;
    this.timer = setTimeout(
      () => {
        const now = this.now();
        this.completeWhile((g) => g.deadline <= now, false);
        this.arm();
      },
      Math.max(0, front.deadline - this.now()),
    );
    this.timer.unref?.();
  }
}
