/**
 * Producer and consumer groups by connection (spec broker §8.5-8.7): who is online, their
 * subscriptions and versions, heartbeat expiry. Membership changes of a consumer group are
 * reported through `onConsumerGroupChanged` so the broker can send NOTIFY_CONSUMER_IDS_CHANGED.
 */
import type { SubscriptionData } from "../../src/protocol/body/subscription.ts";
import type { Connection } from "../../src/remoting/connection.ts";

/** channelExpiredTimeout (spec §8.5). */
export const DEFAULT_CHANNEL_EXPIRED_TIMEOUT_MS = 120_000;

export interface ClientChannel {
  conn: Connection;
  clientId: string;
  language: string;
  version: number;
  lastUpdate: number;
}

export interface ConsumerGroup {
  readonly groupName: string;
  consumeType: string;
  messageModel: string;
  consumeFromWhere: string;
  readonly channels: Map<Connection, ClientChannel>;
  readonly subscriptions: Map<string, SubscriptionData>;
  lastUpdate: number;
}

export interface ConsumerRegistration {
  group: string;
  channel: ClientChannel;
  consumeType: string;
  messageModel: string;
  consumeFromWhere: string;
  subscriptions: SubscriptionData[];
}

export type GroupChangedListener = (group: ConsumerGroup) => void;

export class ClientManager {
  private readonly consumers = new Map<string, ConsumerGroup>();
  private readonly producers = new Map<string, Map<Connection, ClientChannel>>();
  /** Producer channels by clientId (Java's ProducerManager clientChannelTable): where replies go. */
  private readonly producerIds = new Map<string, ClientChannel>();
  onConsumerGroupChanged: GroupChangedListener = () => {};

  /** Registers a consumer's heartbeat; true when membership or the topic set changed. */
  registerConsumer(reg: ConsumerRegistration): boolean {
    let group = this.consumers.get(reg.group);
    if (!group) {
      group = {
        groupName: reg.group,
        consumeType: reg.consumeType,
        messageModel: reg.messageModel,
        consumeFromWhere: reg.consumeFromWhere,
        channels: new Map(),
        subscriptions: new Map(),
        lastUpdate: reg.channel.lastUpdate,
      };
      this.consumers.set(reg.group, group);
    }
    group.consumeType = reg.consumeType;
    group.messageModel = reg.messageModel;
    group.consumeFromWhere = reg.consumeFromWhere;
    group.lastUpdate = reg.channel.lastUpdate;
    let changed = false;
    const existing = group.channels.get(reg.channel.conn);
    if (!existing || existing.clientId !== reg.channel.clientId) changed = true;
    group.channels.set(reg.channel.conn, reg.channel);
    changed = this.updateSubscriptions(group, reg.subscriptions) || changed;
    if (changed) this.onConsumerGroupChanged(group);
    return changed;
  }

  registerProducer(group: string, channel: ClientChannel): void {
    let channels = this.producers.get(group);
    if (!channels) {
      channels = new Map();
      this.producers.set(group, channels);
    }
    channels.set(channel.conn, channel);
    this.producerIds.set(channel.clientId, channel);
  }

  unregisterConsumer(group: string, conn: Connection): void {
    const info = this.consumers.get(group);
    if (!info?.channels.delete(conn)) return;
    this.afterConsumerRemoved(info);
  }

  unregisterProducer(group: string, conn: Connection): void {
    const channels = this.producers.get(group);
    channels?.delete(conn);
    if (channels?.size === 0) this.producers.delete(group);
    // The client may still produce for another group over this connection: keep it findable then.
    if (this.isProducerConnection(conn)) return;
    for (const [id, ch] of this.producerIds) if (ch.conn === conn) this.producerIds.delete(id);
  }

  /** The connection of the producer client `clientId`, for PUSH_REPLY_MESSAGE_TO_CLIENT (spec §1.10). */
  findProducerChannel(clientId: string): ClientChannel | undefined {
    return this.producerIds.get(clientId);
  }

  private isProducerConnection(conn: Connection): boolean {
    for (const channels of this.producers.values()) if (channels.has(conn)) return true;
    return false;
  }

  /** A connection closed: it leaves every group at once (spec §8.5). */
  connectionClosed(conn: Connection): void {
    for (const [name, channels] of this.producers) {
      channels.delete(conn);
      if (channels.size === 0) this.producers.delete(name);
    }
    for (const [id, ch] of this.producerIds) if (ch.conn === conn) this.producerIds.delete(id);
    for (const group of [...this.consumers.values()]) {
      if (group.channels.delete(conn)) this.afterConsumerRemoved(group);
    }
  }

  /** Drops channels silent for longer than `timeoutMs`, closing their connections. */
  scanExpired(now: number, timeoutMs = DEFAULT_CHANNEL_EXPIRED_TIMEOUT_MS): Connection[] {
    const expired = new Set<Connection>();
    for (const channels of this.producers.values()) {
      for (const ch of channels.values()) if (now - ch.lastUpdate > timeoutMs) expired.add(ch.conn);
    }
    for (const group of this.consumers.values()) {
      for (const ch of group.channels.values()) if (now - ch.lastUpdate > timeoutMs) expired.add(ch.conn);
    }
    for (const conn of expired) {
      this.connectionClosed(conn);
      conn.close("client heartbeat expired");
    }
    return [...expired];
  }

  consumerGroup(name: string): ConsumerGroup | undefined {
    return this.consumers.get(name);
  }

  consumerGroups(): IterableIterator<ConsumerGroup> {
    return this.consumers.values();
  }

  findSubscription(group: string, topic: string): SubscriptionData | undefined {
    return this.consumers.get(group)?.subscriptions.get(topic);
  }

  consumerIds(group: string): string[] {
    const info = this.consumers.get(group);
    return info ? [...new Set([...info.channels.values()].map((ch) => ch.clientId))] : [];
  }

  producerChannels(group: string): ClientChannel[] {
    return [...(this.producers.get(group)?.values() ?? [])];
  }

  /** Every producer group with its members (GET_ALL_PRODUCER_INFO). */
  producerGroups(): [string, ClientChannel[]][] {
    return [...this.producers].map(([group, channels]) => [group, [...channels.values()]]);
  }

  /** Groups a topic is consumed by (for admin queries). */
  groupsConsuming(topic: string): string[] {
    return [...this.consumers.values()].filter((g) => g.subscriptions.has(topic)).map((g) => g.groupName);
  }

  private updateSubscriptions(group: ConsumerGroup, subs: SubscriptionData[]): boolean {
    let changed = false;
    const topics = new Set<string>();
    for (const sub of subs) {
      topics.add(sub.topic);
      const old = group.subscriptions.get(sub.topic);
      if (!old) {
        group.subscriptions.set(sub.topic, sub);
        changed = true;
      } else if (sub.subVersion > old.subVersion) {
        // A newer version replaces the filter; a version bump alone is not a membership change.
        group.subscriptions.set(sub.topic, sub);
      }
    }
    for (const topic of [...group.subscriptions.keys()]) {
      if (!topics.has(topic)) {
        group.subscriptions.delete(topic);
        changed = true;
      }
    }
    return changed;
  }

  private afterConsumerRemoved(group: ConsumerGroup): void {
    if (group.channels.size === 0) this.consumers.delete(group.groupName);
    this.onConsumerGroupChanged(group);
  }
}
