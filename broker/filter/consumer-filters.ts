/**
 * The SQL92 filter registry (Java's ConsumerFilterManager, spec pop-timer-filter §C.2, §C.9):
 * (topic, group) → compiled expression with the `subVersion` it came with, filled from
 * heartbeats and kept in `<storePathRootDir>/config/consumerFilter.json`, so push consumers keep
 * pulling across a broker restart. Filters of a group nobody consumes with any more are marked
 * dead and deleted `FILTER_DATA_DEAD_MS` later.
 */
import { join } from "node:path";
import type { Logger } from "../../src/log.ts";
import { ExpressionType, type SubscriptionData } from "../../src/protocol/body/subscription.ts";
import type { Sql92Filter } from "../../src/protocol/filter/index.ts";
import { ConfigTable, type ConfigTableOptions } from "../metadata/config-table.ts";
import { CompileCache } from "./compile-cache.ts";

/** Failed subscriptions remembered so each is warned about once; forgotten all at once beyond. */
const WARNED_MAX = 10_000;

/** Java's filterDataCleanTimeSpan: a dead group's filter is kept this long. */
export const FILTER_DATA_DEAD_MS = 24 * 3600 * 1000;

/** One entry, with Java's ConsumerFilterData field names (as they appear in the JSON file). */
export interface ConsumerFilterData {
  readonly consumerGroup: string;
  readonly topic: string;
  readonly expression: string;
  readonly expressionType: string;
  readonly bornTime: number;
  /** 0 while the group has consumers; when it was first seen without any otherwise. */
  deadTime: number;
  /** The subVersion of the subscription it was built from. */
  clientVersion: number;
  readonly compiled: Sql92Filter;
}

interface FileEntry {
  consumerGroup?: unknown;
  topic?: unknown;
  expression?: unknown;
  expressionType?: unknown;
  bornTime?: unknown;
  deadTime?: unknown;
  clientVersion?: unknown;
}

export class ConsumerFilters extends ConfigTable {
  /** topic → group → filter data. */
  private readonly byTopic = new Map<string, Map<string, ConsumerFilterData>>();
  /** Subscriptions already warned about as not compiling. */
  private readonly warned = new Set<string>();
  /** Compiled expressions of this broker: the registry's, and those pulls and POPs carry. */
  readonly compiler = new CompileCache();

  constructor(storePathRootDir: string, log: Logger, now?: () => number, options?: ConfigTableOptions) {
    super(join(storePathRootDir, "config", "consumerFilter.json"), log, now, options);
  }

  get(topic: string, group: string): ConsumerFilterData | undefined {
    return this.byTopic.get(topic)?.get(group);
  }

  /** Every entry, for admin views and tests. */
  all(): ConsumerFilterData[] {
    return [...this.byTopic.values()].flatMap((m) => [...m.values()]);
  }

  /**
   * Registers a heartbeat's non-TAG subscriptions (Java registers them whether or not the property
   * filter is enabled). A subscription not newer than the entry is ignored; a changed expression
   * that no longer compiles removes the entry, so pulls answer FILTER_DATA_NOT_EXIST.
   */
  registerAll(group: string, subs: readonly SubscriptionData[]): void {
    for (const sub of subs) {
      if (sub.expressionType === ExpressionType.TAG || !sub.subString) continue;
      this.register(group, sub);
    }
  }

  private register(group: string, sub: SubscriptionData): void {
    const old = this.get(sub.topic, group);
    if (old && sub.subVersion <= old.clientVersion) return;
    if (old && old.expression === sub.subString && old.expressionType === sub.expressionType) {
      old.clientVersion = sub.subVersion;
      old.deadTime = 0;
      this.markDirty();
      return;
    }
    const built = build(
      this.compiler,
      group,
      sub.topic,
      sub.subString,
      sub.expressionType,
      sub.subVersion,
      this.now(),
    );
    if (!built) {
      if (old) this.remove(sub.topic, group);
      // Every heartbeat repeats the subscription: one warning per (topic, group, version).
      const key = `${sub.topic}\u0000${group}\u0000${sub.subVersion}`;
      if (this.warned.has(key)) return;
      if (this.warned.size >= WARNED_MAX) this.warned.clear();
      this.warned.add(key);
      this.log.warn(
        { group, topic: sub.topic, expression: sub.subString.slice(0, 200) },
        "a consumer's SQL92 subscription does not compile; its pulls answer FILTER_DATA_NOT_EXIST",
      );
      return;
    }
    this.put(built);
    this.markDirty();
  }

  private put(data: ConsumerFilterData): void {
    let groups = this.byTopic.get(data.topic);
    if (!groups) {
      groups = new Map();
      this.byTopic.set(data.topic, groups);
    }
    groups.set(data.consumerGroup, data);
  }

  private remove(topic: string, group: string): void {
    const groups = this.byTopic.get(topic);
    if (!groups?.delete(group)) return;
    if (groups.size === 0) this.byTopic.delete(topic);
    this.markDirty();
  }

  /**
   * Marks the filters of groups without consumers dead, revives the others, and deletes those
   * dead for longer than FILTER_DATA_DEAD_MS.
   */
  sweep(hasConsumers: (group: string) => boolean): void {
    const now = this.now();
    for (const data of this.all()) {
      if (hasConsumers(data.consumerGroup)) {
        if (data.deadTime !== 0) {
          data.deadTime = 0;
          this.markDirty();
        }
      } else if (data.deadTime === 0) {
        data.deadTime = now;
        this.markDirty();
      } else if (now - data.deadTime > FILTER_DATA_DEAD_MS) {
        this.remove(data.topic, data.consumerGroup);
      }
    }
  }

  protected decode(raw: unknown): void {
    this.byTopic.clear();
    const r = (raw ?? {}) as {
      filterDataByTopic?: Record<string, { groupFilterData?: Record<string, FileEntry> }>;
    };
    for (const [topic, byGroup] of Object.entries(r.filterDataByTopic ?? {})) {
      for (const [group, e] of Object.entries(byGroup?.groupFilterData ?? {})) {
        if (typeof e?.expression !== "string" || typeof e.expressionType !== "string") continue;
        const data = build(
          this.compiler,
          group,
          topic,
          e.expression,
          e.expressionType,
          Number(e.clientVersion) || 0,
          Number(e.bornTime) || 0,
        );
        if (!data) continue;
        data.deadTime = Number(e.deadTime) || 0;
        this.put(data);
      }
    }
  }

  /** Java's layout: {"filterDataByTopic":{topic:{"topic":…,"groupFilterData":{group:{…}}}}}. */
  protected encode(): unknown {
    const filterDataByTopic: Record<string, unknown> = {};
    for (const [topic, groups] of this.byTopic) {
      const groupFilterData: Record<string, unknown> = {};
      for (const [group, d] of groups) {
        groupFilterData[group] = {
          consumerGroup: d.consumerGroup,
          topic: d.topic,
          expression: d.expression,
          expressionType: d.expressionType,
          bornTime: d.bornTime,
          deadTime: d.deadTime,
          clientVersion: d.clientVersion,
        };
      }
      filterDataByTopic[topic] = { topic, groupFilterData };
    }
    return { filterDataByTopic };
  }
}

function build(
  compiler: CompileCache,
  group: string,
  topic: string,
  expression: string,
  expressionType: string,
  clientVersion: number,
  bornTime: number,
): ConsumerFilterData | undefined {
  const compiled = compiler.compile(expressionType, expression);
  if (!compiled.ok) return undefined;
  return {
    consumerGroup: group,
    topic,
    expression,
    expressionType,
    bornTime,
    deadTime: 0,
    clientVersion,
    compiled: compiled.filter,
  };
}
