/**
 * `config/subscriptionGroup.json` (spec §8.10): `{"subscriptionGroupTable":{"<group>":{…}},"dataVersion":{…}}`,
 * with the built-in groups created at startup.
 */
import { join } from "node:path";
import type { Logger } from "../../src/log.ts";
import {
  type SubscriptionGroupConfig,
  subscriptionGroupConfig,
} from "../../src/protocol/body/subscription-group.ts";
import { ConfigTable, type ConfigTableOptions } from "./config-table.ts";
import { type DataVersion, newDataVersion, nextDataVersion, readDataVersion } from "./data-version.ts";

export { type SubscriptionGroupConfig, subscriptionGroupConfig };

export const BUILTIN_GROUPS = [
  "TOOLS_CONSUMER",
  "FILTERSRV_CONSUMER",
  "SELF_TEST_C_GROUP",
  "CID_ONS-HTTP-PROXY",
  "CID_ONSAPI_PULL",
  "CID_ONSAPI_PERMISSION",
  "CID_ONSAPI_OWNER",
  "CID_SYS_RMQ_TRANS",
] as const;

export class SubscriptionGroups extends ConfigTable {
  readonly table = new Map<string, SubscriptionGroupConfig>();
  dataVersion: DataVersion;

  constructor(
    storePathRootDir: string,
    log: Logger,
    now: () => number = Date.now,
    options: ConfigTableOptions = {},
  ) {
    super(join(storePathRootDir, "config", "subscriptionGroup.json"), log, now, options);
    this.dataVersion = newDataVersion(now());
  }

  protected decode(raw: unknown): void {
    const r = (raw ?? {}) as {
      dataVersion?: unknown;
      subscriptionGroupTable?: Record<string, Partial<SubscriptionGroupConfig>>;
    };
    this.table.clear();
    for (const [name, cfg] of Object.entries(r.subscriptionGroupTable ?? {})) {
      this.table.set(name, { ...subscriptionGroupConfig(name), ...cfg, groupName: cfg.groupName ?? name });
    }
    for (const g of BUILTIN_GROUPS) if (!this.table.has(g)) this.table.set(g, subscriptionGroupConfig(g));
    this.dataVersion = readDataVersion(r.dataVersion, this.now());
  }

  protected encode(): unknown {
    return { subscriptionGroupTable: Object.fromEntries(this.table), dataVersion: this.dataVersion };
  }

  get(group: string): SubscriptionGroupConfig | undefined {
    return this.table.get(group);
  }

  /** The group's config, created with defaults when `autoCreate` (spec §7.4 step 2). */
  findOrCreate(group: string, autoCreate: boolean): SubscriptionGroupConfig | undefined {
    const existing = this.table.get(group);
    if (existing || !autoCreate) return existing;
    const created = subscriptionGroupConfig(group);
    this.put(created);
    return created;
  }

  put(cfg: SubscriptionGroupConfig): void {
    this.table.set(cfg.groupName, { ...cfg });
    this.dataVersion = nextDataVersion(this.dataVersion, this.dataVersion.stateVersion, this.now());
    this.markDirty();
  }

  delete(group: string): boolean {
    const had = this.table.delete(group);
    if (had) {
      this.dataVersion = nextDataVersion(this.dataVersion, this.dataVersion.stateVersion, this.now());
      this.markDirty();
    }
    return had;
  }
}
