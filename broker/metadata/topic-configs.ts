/**
 * `config/topics.json` (spec §8.10): `{"dataVersion":{…},"topicConfigTable":{"<topic>":TopicConfig}}`.
 */
import { join } from "node:path";
import type { Logger } from "../../src/log.ts";
import { ConfigTable } from "./config-table.ts";
import { bump, type DataVersion, newDataVersion, readDataVersion } from "./data-version.ts";

/** Topic permission bits (spec §8.10). */
export const Perm = { INHERIT: 1, WRITE: 2, READ: 4, PRIORITY: 8 } as const;

export interface TopicConfig {
  topicName: string;
  readQueueNums: number;
  writeQueueNums: number;
  perm: number;
  topicFilterType: "SINGLE_TAG" | "MULTI_TAG";
  topicSysFlag: number;
  order: boolean;
  attributes: Record<string, string>;
}

export function topicConfig(topicName: string, queues = 8, perm = Perm.READ | Perm.WRITE): TopicConfig {
  return {
    topicName,
    readQueueNums: queues,
    writeQueueNums: queues,
    perm,
    topicFilterType: "SINGLE_TAG",
    topicSysFlag: 0,
    order: false,
    attributes: {},
  };
}

function readTopicConfig(name: string, raw: Partial<TopicConfig>): TopicConfig {
  const d = topicConfig(name);
  return {
    topicName: raw.topicName ?? name,
    readQueueNums: Number(raw.readQueueNums ?? d.readQueueNums),
    writeQueueNums: Number(raw.writeQueueNums ?? d.writeQueueNums),
    perm: Number(raw.perm ?? d.perm),
    topicFilterType: raw.topicFilterType === "MULTI_TAG" ? "MULTI_TAG" : "SINGLE_TAG",
    topicSysFlag: Number(raw.topicSysFlag ?? 0),
    order: raw.order === true,
    attributes: { ...(raw.attributes ?? {}) },
  };
}

export class TopicConfigs extends ConfigTable {
  readonly table = new Map<string, TopicConfig>();
  dataVersion: DataVersion;

  constructor(storePathRootDir: string, log: Logger, now: () => number = Date.now) {
    super(join(storePathRootDir, "config", "topics.json"), log, now);
    this.dataVersion = newDataVersion(now());
  }

  protected decode(raw: unknown): void {
    const r = (raw ?? {}) as {
      dataVersion?: unknown;
      topicConfigTable?: Record<string, Partial<TopicConfig>>;
    };
    this.table.clear();
    for (const [name, cfg] of Object.entries(r.topicConfigTable ?? {}))
      this.table.set(name, readTopicConfig(name, cfg));
    this.dataVersion = readDataVersion(r.dataVersion, this.now());
  }

  protected encode(): unknown {
    return { dataVersion: this.dataVersion, topicConfigTable: Object.fromEntries(this.table) };
  }

  get(topic: string): TopicConfig | undefined {
    return this.table.get(topic);
  }

  put(cfg: TopicConfig): void {
    this.table.set(cfg.topicName, { ...cfg, attributes: { ...cfg.attributes } });
    bump(this.dataVersion, this.now());
    this.markDirty();
  }

  delete(topic: string): boolean {
    const had = this.table.delete(topic);
    if (had) {
      bump(this.dataVersion, this.now());
      this.markDirty();
    }
    return had;
  }
}
