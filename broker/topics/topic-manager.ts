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
  /** Topics are registered with at most this permission (brokerPermission). */
  brokerPermission: number;
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
   * min(requested, template write queues); permission is the template's without INHERIT.
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
    const queueNums = Math.max(0, Math.min(requestedQueueNums, template.writeQueueNums));
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

  /** `%RETRY%<group>` and `%DLQ%<group>` topics: created once with the given queue count, perm RW. */
  async createIfAbsent(
    topic: string,
    queueNums: number,
    perm: number,
    topicSysFlag = 0,
  ): Promise<TopicConfig> {
    const existing = this.table.get(topic);
    if (existing) return existing;
    const created = topicConfig(topic, {
      readQueueNums: queueNums,
      writeQueueNums: queueNums,
      perm,
      topicSysFlag,
    });
    await this.put(created);
    return created;
  }

  /** Creates or overwrites a topic (UPDATE_AND_CREATE_TOPIC). */
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
