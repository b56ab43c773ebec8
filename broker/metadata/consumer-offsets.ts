/**
 * `config/consumerOffset.json` (spec §8.10): `{"offsetTable":{"<topic>@<group>":{<queueId>:<offset>}}}`;
 * offsets are the next message to consume.
 */
import { join } from "node:path";
import type { Logger } from "../../src/log.ts";
import { ConfigTable, type ConfigTableOptions } from "./config-table.ts";

const SEP = "@";

export class ConsumerOffsets extends ConfigTable {
  /** `topic@group` → queueId → offset. */
  readonly table = new Map<string, Map<number, number>>();

  constructor(
    storePathRootDir: string,
    log: Logger,
    now: () => number = Date.now,
    options: ConfigTableOptions = {},
  ) {
    super(join(storePathRootDir, "config", "consumerOffset.json"), log, now, options);
  }

  protected decode(raw: unknown): void {
    const r = (raw ?? {}) as { offsetTable?: Record<string, Record<string, number>> };
    this.table.clear();
    for (const [key, queues] of Object.entries(r.offsetTable ?? {})) {
      this.table.set(key, new Map(Object.entries(queues).map(([q, o]) => [Number(q), Number(o)])));
    }
  }

  protected encode(): unknown {
    const offsetTable: Record<string, Record<string, number>> = {};
    for (const [key, queues] of this.table) offsetTable[key] = Object.fromEntries(queues);
    return { offsetTable };
  }

  commit(group: string, topic: string, queueId: number, offset: number): void {
    const key = topic + SEP + group;
    let m = this.table.get(key);
    if (!m) {
      m = new Map();
      this.table.set(key, m);
    }
    m.set(queueId, offset);
    this.markDirty();
  }

  /** The committed offset, or -1 if none (as RocketMQ's queryOffset). */
  query(group: string, topic: string, queueId: number): number {
    return this.table.get(topic + SEP + group)?.get(queueId) ?? -1;
  }

  /** queueId → offset for one group and topic. */
  queueOffsets(group: string, topic: string): ReadonlyMap<number, number> {
    return this.table.get(topic + SEP + group) ?? new Map();
  }

  /** Topics `group` has committed offsets for. */
  topicsOf(group: string): string[] {
    const suffix = SEP + group;
    return [...this.table.keys()].filter((k) => k.endsWith(suffix)).map((k) => k.slice(0, -suffix.length));
  }

  /** Groups that have committed an offset for `topic`. */
  groupsOf(topic: string): string[] {
    const prefix = topic + SEP;
    return [...this.table.keys()].filter((k) => k.startsWith(prefix)).map((k) => k.slice(prefix.length));
  }

  removeGroup(group: string): void {
    for (const k of [...this.table.keys()]) if (k.endsWith(SEP + group)) this.table.delete(k);
    this.markDirty();
  }

  removeTopic(topic: string): void {
    for (const k of [...this.table.keys()]) if (k.startsWith(topic + SEP)) this.table.delete(k);
    this.markDirty();
  }
}
