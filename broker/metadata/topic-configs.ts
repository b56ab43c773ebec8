/**
 * `config/topics.json` (spec §8.10): `{"dataVersion":{…},"topicConfigTable":{"<topic>":TopicConfig}}`.
 */
import { join } from "node:path";
import type { Logger } from "../../src/log.ts";
import { type TopicConfig, topicConfig } from "../../src/protocol/route/topic-config.ts";
import { ConfigTable, type ConfigTableOptions } from "./config-table.ts";
import { type DataVersion, newDataVersion, nextDataVersion, readDataVersion } from "./data-version.ts";

export type { TopicConfig };

function readTopicConfig(name: string, raw: Partial<TopicConfig>): TopicConfig {
  const d = topicConfig(name, { readQueueNums: 8, writeQueueNums: 8 });
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

  constructor(
    storePathRootDir: string,
    log: Logger,
    now: () => number = Date.now,
    options: ConfigTableOptions = {},
  ) {
    super(join(storePathRootDir, "config", "topics.json"), log, now, options);
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
    this.nextVersion();
  }

  delete(topic: string): boolean {
    const had = this.table.delete(topic);
    if (had) this.nextVersion();
    return had;
  }

  /** A new data version, so that NameServers take the next registration as a change. */
  nextVersion(): void {
    this.dataVersion = nextDataVersion(this.dataVersion, this.dataVersion.stateVersion, this.now());
    this.markDirty();
  }
}
