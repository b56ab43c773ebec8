/**
 * All ConsumeQueues of a store, `consumequeue/<topic>/<queueId>/` (spec §6.1, §11.4).
 */
import { mkdir, readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { ConsumeQueue, CQ_UNIT_BYTES } from "./consume-queue.ts";
import { UnitsCache } from "./units-cache.ts";

export class ConsumeQueueStore {
  readonly table = new Map<string, Map<number, ConsumeQueue>>();
  /** Units read lately, shared by all queues under one bound (units-cache.ts). */
  readonly unitsCache = new UnitsCache(CQ_UNIT_BYTES);

  constructor(
    readonly dir: string,
    readonly fileSize: number,
  ) {}

  async load(): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    for (const topic of await readdir(this.dir)) {
      const topicDir = join(this.dir, topic);
      for (const q of await readdir(topicDir).catch(() => [] as string[])) {
        if (!/^\d+$/.test(q)) continue;
        const cq = new ConsumeQueue(topic, Number(q), join(topicDir, q), this.fileSize, this.unitsCache);
        await cq.load();
        this.queuesOf(topic).set(cq.queueId, cq);
      }
    }
  }

  private queuesOf(topic: string): Map<number, ConsumeQueue> {
    let m = this.table.get(topic);
    if (!m) {
      m = new Map();
      this.table.set(topic, m);
    }
    return m;
  }

  find(topic: string, queueId: number): ConsumeQueue | undefined {
    return this.table.get(topic)?.get(queueId);
  }

  findOrCreate(topic: string, queueId: number): ConsumeQueue {
    const qs = this.queuesOf(topic);
    let cq = qs.get(queueId);
    if (!cq) {
      cq = new ConsumeQueue(
        topic,
        queueId,
        join(this.dir, topic, String(queueId)),
        this.fileSize,
        this.unitsCache,
      );
      qs.set(queueId, cq);
    }
    return cq;
  }

  *all(): Generator<ConsumeQueue> {
    for (const qs of this.table.values()) yield* qs.values();
  }

  /** Topic → sorted queue ids. */
  topicQueues(): Map<string, number[]> {
    const m = new Map<string, number[]>();
    for (const [t, qs] of this.table)
      m.set(
        t,
        [...qs.keys()].sort((a, b) => a - b),
      );
    return m;
  }

  /** Largest physical offset referenced by any queue, -1 if none (spec §5.5 step 2). */
  maxPhyOffset(): number {
    let m = -1;
    for (const cq of this.all()) m = Math.max(m, cq.maxPhyOffset);
    return m;
  }

  pendingUnits(): number {
    let n = 0;
    for (const cq of this.all()) n += cq.pendingUnits;
    return n;
  }

  async flushAll(): Promise<void> {
    for (const cq of this.all()) await cq.flush();
  }

  async truncateFromPhy(phyEnd: number): Promise<void> {
    for (const cq of this.all()) await cq.truncateFromPhy(phyEnd);
  }

  async deleteExpired(clMinOffset: number): Promise<number> {
    let n = 0;
    for (const cq of this.all()) n += await cq.deleteExpired(clMinOffset);
    return n;
  }

  /**
   * Removes a topic's queues and their directory. Only a topic in the table has a directory here
   * (load reads the table from the directory listing), so a name from the wire that the store
   * never held, such as ".." or "a/../..", touches no path.
   */
  async deleteTopic(topic: string): Promise<boolean> {
    const qs = this.table.get(topic);
    if (qs === undefined) return false;
    this.table.delete(topic);
    for (const cq of qs.values()) await cq.destroy();
    await rm(join(this.dir, topic), { recursive: true, force: true });
    return true;
  }

  async destroyAll(): Promise<void> {
    for (const topic of [...this.table.keys()]) await this.deleteTopic(topic);
  }

  async closeAll(): Promise<void> {
    for (const cq of this.all()) await cq.close();
  }
}
