/**
 * The broker's topic table (spec broker §1.5, §8.11): system topics at start, auto-creation from a
 * template topic on send, retry topics for consumer groups, admin updates. Every change bumps the
 * data version, is persisted, and is reported so the broker re-registers with the NameServers.
 */
import {
  type DataVersion,
  PermName,
  type TopicConfig,
  type TopicConfigSerializeWrapper,
  topicConfig,
} from "../../src/protocol/route/index.ts";
import {
  AUTO_CREATE_TOPIC_KEY_TOPIC,
  OFFSET_MOVED_EVENT,
  SCHEDULE_TOPIC,
  SELF_TEST_TOPIC,
  TIMER_TOPIC,
} from "../../src/protocol/topic-names.ts";
import type { TopicConfigs } from "../metadata/topic-configs.ts";
import { BENCHMARK_TOPIC, isSystemTopic, TRACE_TOPIC } from "./topic-validator.ts";

export interface TopicManagerOptions {
  brokerClusterName: string;
  brokerName: string;
  autoCreateTopicEnable: boolean;
  defaultTopicQueueNums: number;
  clusterTopicEnable: boolean;
  brokerTopicEnable: boolean;
  traceTopicEnable: boolean;
  /** Creates the timer topic, `rmq_sys_wheel_timer` (spec pop-timer-filter §B.8). */
  timerWheelEnable?: boolean;
  /** Topics are registered with at most this permission (brokerPermission). */
  brokerPermission: number;
}

/** A topic createAllIfAbsent makes: as many read as write queues. */
export interface TopicSpec {
  readonly topic: string;
  readonly queueNums: number;
  readonly perm: number;
  readonly topicSysFlag?: number;
}

export type TopicChangedListener = (topic: TopicConfig | null, name: string) => void;

const RW = PermName.PERM_READ | PermName.PERM_WRITE;

export class TopicManager {
  private readonly systemNames = new Set<string>();
  onChanged: TopicChangedListener = () => {};

  /** `table` is the persisted topics.json; this class adds the broker's rules on top of it. */
  constructor(
    private readonly options: TopicManagerOptions,
    private readonly table: TopicConfigs,
  ) {}

  /** Loads the saved table and adds the system topics (spec §1.5 table). */
  async load(): Promise<void> {
    await this.table.load();
    const o = this.options;
    const system: TopicConfig[] = [
      topicConfig(SELF_TEST_TOPIC, { readQueueNums: 1, writeQueueNums: 1 }),
      topicConfig(BENCHMARK_TOPIC, { readQueueNums: 1024, writeQueueNums: 1024 }),
      topicConfig(o.brokerClusterName, {
        readQueueNums: 16,
        writeQueueNums: 16,
        perm: o.clusterTopicEnable ? 7 : 1,
      }),
      topicConfig(o.brokerName, { readQueueNums: 1, writeQueueNums: 1, perm: o.brokerTopicEnable ? 7 : 1 }),
      topicConfig(OFFSET_MOVED_EVENT, { readQueueNums: 1, writeQueueNums: 1 }),
      topicConfig(SCHEDULE_TOPIC, { readQueueNums: 18, writeQueueNums: 18 }),
      topicConfig(`${o.brokerClusterName}_REPLY_TOPIC`, { readQueueNums: 1, writeQueueNums: 1 }),
    ];
    if (o.autoCreateTopicEnable) {
      system.push(
        topicConfig(AUTO_CREATE_TOPIC_KEY_TOPIC, {
          readQueueNums: o.defaultTopicQueueNums,
          writeQueueNums: o.defaultTopicQueueNums,
          perm: PermName.PERM_INHERIT | RW,
        }),
      );
    }
    if (o.traceTopicEnable) system.push(topicConfig(TRACE_TOPIC, { readQueueNums: 1, writeQueueNums: 1 }));
    if (o.timerWheelEnable) system.push(topicConfig(TIMER_TOPIC, { readQueueNums: 1, writeQueueNums: 1 }));
    for (const tc of system) {
      this.systemNames.add(tc.topicName);
      if (!this.table.get(tc.topicName)) this.table.put(tc);
    }
    await this.table.persist();
  }

  get(topic: string): TopicConfig | undefined {
    return this.table.get(topic);
  }

  all(): ReadonlyMap<string, TopicConfig> {
    return this.table.table;
  }

  get dataVersion(): DataVersion {
    return this.table.dataVersion;
  }

  isSystemTopic(topic: string): boolean {
    return isSystemTopic(topic, this.systemNames);
  }

  /**
   * The broker's permission changed (UPDATE_BROKER_CONFIG): as Java does, the data version moves
   * on, or NameServers would keep the routes of the previous registration.
   */
  permissionChanged(): void {
    this.table.nextVersion();
    void this.table.persist();
  }

  /** What the broker registers: every topic, its permission capped by the broker's (spec §11.1). */
  registrationWrapper(): TopicConfigSerializeWrapper {
    const cap = this.options.brokerPermission;
    const table = new Map<string, TopicConfig>();
    for (const [name, tc] of this.table.table) {
      table.set(name, (cap & RW) === RW ? tc : { ...tc, perm: tc.perm & cap });
    }
    return {
      topicConfigTable: table,
      dataVersion: this.table.dataVersion,
      topicQueueMappingInfoMap: new Map(),
    };
  }

  /**
   * Auto-creation on send (spec §1.5): from the template if it exists and inherits; queue count is
   * min(requested, template write queues); permission is the template's without INHERIT. Unlike
   * Java, which clamps to 0 and stores a topic nobody can use, nothing is created when that count
   * is below 1 (the sender checks the requested count first, to say why).
   */
  async createInSendMessage(
    topic: string,
    defaultTopic: string,
    requestedQueueNums: number,
    topicSysFlag: number,
  ) {
    const existing = this.table.get(topic);
    if (existing) return existing;
    const template = this.table.get(defaultTopic);
    if (!template) return undefined;
    let perm = template.perm;
    if (defaultTopic === AUTO_CREATE_TOPIC_KEY_TOPIC && !this.options.autoCreateTopicEnable) perm = RW;
    if ((perm & PermName.PERM_INHERIT) === 0) return undefined;
    const queueNums = Math.min(requestedQueueNums, template.writeQueueNums);
    if (queueNums < 1) return undefined;
    const created = topicConfig(topic, {
      readQueueNums: queueNums,
      writeQueueNums: queueNums,
      perm: perm & ~PermName.PERM_INHERIT,
      topicSysFlag,
      topicFilterType: template.topicFilterType,
    });
    await this.put(created);
    return created;
  }

  /** `%RETRY%<group>` and `%DLQ%<group>` topics: created once with the given queue count and perm. */
  async createIfAbsent(
    topic: string,
    queueNums: number,
    perm: number,
    topicSysFlag = 0,
  ): Promise<TopicConfig> {
    const [config] = await this.createAllIfAbsent([{ topic, queueNums, perm, topicSysFlag }]);
    return config!;
  }

  /**
   * Many such topics with one write of the table: a heartbeat may name thousands of groups, and
   * writing the whole table once per new group would take time quadratic in their number.
   */
  async createAllIfAbsent(specs: readonly TopicSpec[]): Promise<TopicConfig[]> {
    const configs: TopicConfig[] = [];
    const created: TopicConfig[] = [];
    for (const spec of specs) {
      const existing = this.table.get(spec.topic);
      if (existing) {
        configs.push(existing);
        continue;
      }
      const config = topicConfig(spec.topic, {
        readQueueNums: spec.queueNums,
        writeQueueNums: spec.queueNums,
        perm: spec.perm,
        topicSysFlag: spec.topicSysFlag ?? 0,
      });
      this.table.put(config);
      created.push(config);
      configs.push(config);
    }
    if (created.length > 0) {
      await this.table.persist();
      for (const config of created) this.onChanged(config, config.topicName);
    }
    return configs;
  }

  /**
   * Creates or overwrites a topic (UPDATE_AND_CREATE_TOPIC). The change is in effect at once; a
   * failed write of topics.json is retried by the table (it logs the failure).
   */
  async put(tc: TopicConfig): Promise<void> {
    this.table.put(tc);
    await this.table.persist();
    this.onChanged(tc, tc.topicName);
  }

  async delete(topic: string): Promise<boolean> {
    if (!this.table.delete(topic)) return false;
    await this.table.persist();
    this.onChanged(null, topic);
    return true;
  }
}
