/**
 * Consumer offsets: kept in memory per queue, persisted to the broker for clustering consumers
 * (UPDATE_CONSUMER_OFFSET, oneway on the timer, acknowledged on shutdown) or to a local JSON file
 * for broadcasting consumers (written to a temp file, then renamed). Offsets are "next to consume".
 */
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import type { ClientInstance } from "./client-instance.ts";
import { clientError } from "./errors.ts";
import { type MessageQueue, mqKey } from "./message-queue.ts";

export interface OffsetStore {
  load(): Promise<void>;
  /** The offset in memory, or -1. */
  readMemory(mq: MessageQueue): number;
  /** The persisted offset (broker or file), cached in memory; -1 when there is none. */
  readStored(mq: MessageQueue): Promise<number>;
  update(mq: MessageQueue, offset: number, increaseOnly: boolean): void;
  persist(mq: MessageQueue, oneway: boolean): Promise<void>;
  persistAll(mqs: readonly MessageQueue[], oneway: boolean): Promise<void>;
  remove(mq: MessageQueue): void;
  /** The offsets in memory of `topic`'s queues, or of every queue for "" (GET_CONSUMER_STATUS_FROM_CLIENT). */
  cloneTable(topic: string): [MessageQueue, number][];
}

abstract class MemoryOffsets {
  protected readonly table = new Map<string, { readonly mq: MessageQueue; offset: number }>();

  readMemory(mq: MessageQueue): number {
    return this.table.get(mqKey(mq))?.offset ?? -1;
  }

  update(mq: MessageQueue, offset: number, increaseOnly: boolean): void {
    const key = mqKey(mq);
    const cur = this.table.get(key);
    if (cur === undefined) this.table.set(key, { mq, offset });
    else if (!increaseOnly || offset > cur.offset) cur.offset = offset;
  }

  remove(mq: MessageQueue): void {
    this.table.delete(mqKey(mq));
  }

  cloneTable(topic: string): [MessageQueue, number][] {
    const rows: [MessageQueue, number][] = [];
    // A blank topic means every queue, as Java's cloneOffsetTable reads it.
    for (const { mq, offset } of this.table.values())
      if (topic.trim() === "" || mq.topic === topic) rows.push([mq, offset]);
    return rows;
  }
}

export class RemoteBrokerOffsetStore extends MemoryOffsets implements OffsetStore {
  constructor(
    private readonly client: ClientInstance,
    private readonly group: string,
  ) {
    super();
  }

  async load(): Promise<void> {}

  async readStored(mq: MessageQueue): Promise<number> {
    const addr = await this.client.masterAddr(mq.brokerName, mq.topic);
    const offset = await this.client.broker.queryConsumerOffset(addr, this.group, mq.topic, mq.queueId);
    if (offset >= 0) this.update(mq, offset, false);
    return offset;
  }

  async persist(mq: MessageQueue, oneway: boolean): Promise<void> {
    const offset = this.readMemory(mq);
    if (offset < 0) return;
    const addr = await this.client.masterAddr(mq.brokerName, mq.topic);
    await this.client.broker.updateConsumerOffset(addr, this.group, mq.topic, mq.queueId, offset, oneway);
  }

  async persistAll(mqs: readonly MessageQueue[], oneway: boolean): Promise<void> {
    const results = await Promise.allSettled(mqs.map((mq) => this.persist(mq, oneway)));
    for (const r of results) {
      if (r.status === "rejected")
        this.client.log.warn({ err: (r.reason as Error).message }, "offset persist failed");
    }
  }
}

interface OffsetFile {
  offsets: { topic: string; brokerName: string; queueId: number; offset: number }[];
}

export class LocalFileOffsetStore extends MemoryOffsets implements OffsetStore {
  private loaded = new Map<string, number>();
  private writing: Promise<void> = Promise.resolve();

  constructor(readonly path: string) {
    super();
  }

  async load(): Promise<void> {
    let text: string;
    try {
      text = await readFile(this.path, "utf8");
    } catch {
      return;
    }
    let file: unknown;
    try {
      file = JSON.parse(text);
    } catch (err) {
      // Written atomically by us, so only something else can have broken it: say which file.
      throw clientError(`the broadcast offset file ${this.path} is not JSON: ${(err as Error).message}`);
    }
    const offsets = (file as Partial<OffsetFile> | null)?.offsets;
    if (!Array.isArray(offsets))
      throw clientError(`the broadcast offset file ${this.path} has no "offsets" list`);
    for (const o of offsets as Partial<OffsetFile["offsets"][number]>[]) {
      // An entry of another shape names no queue we could resume: it is passed over.
      if (typeof o?.topic !== "string" || typeof o.brokerName !== "string") continue;
      if (!Number.isSafeInteger(o.queueId) || !Number.isSafeInteger(o.offset) || o.offset! < 0) continue;
      const mq = { topic: o.topic, brokerName: o.brokerName, queueId: o.queueId! };
      this.loaded.set(mqKey(mq), o.offset!);
    }
  }

  async readStored(mq: MessageQueue): Promise<number> {
    const offset = this.loaded.get(mqKey(mq)) ?? -1;
    if (offset >= 0) this.update(mq, offset, false);
    return offset;
  }

  async persist(mq: MessageQueue): Promise<void> {
    await this.persistAll([mq]);
  }

  /** Writes every offset in memory (not only `mqs`): the file is the whole table. */
  async persistAll(_mqs?: readonly MessageQueue[]): Promise<void> {
    for (const { mq, offset } of this.table.values()) this.loaded.set(mqKey(mq), offset);
    const snapshot: OffsetFile = {
      offsets: [...this.loaded.entries()].map(([key, offset]) => {
        const [topic, brokerName, queueId] = key.split("\u0000");
        return { topic: topic!, brokerName: brokerName!, queueId: Number(queueId), offset };
      }),
    };
    // Writes are serialised so an older snapshot never lands after a newer one.
    const next = this.writing.then(async () => {
      await mkdir(dirname(this.path), { recursive: true });
      const tmp = `${this.path}.tmp`;
      await writeFile(tmp, JSON.stringify(snapshot, null, 1));
      await rename(tmp, this.path);
    });
    this.writing = next.catch(() => {});
    await next;
  }
}
