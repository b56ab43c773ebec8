/**
 * What every broker processor receives (style habit 13: dependencies passed in, no singletons).
 */
import type { Logger } from "pino";
import type { PlainAcl } from "../src/acl/plain-acl.ts";
import type { BrokerConfig } from "../src/config/broker-config.ts";
import type { MessageStoreConfig } from "../src/config/message-store-config.ts";
import type { NettyClientConfig, NettyServerConfig } from "../src/config/netty-config.ts";
import type { RocketbunBrokerConfig } from "../src/config/rocketbun-config.ts";
import type { RuntimeChanges } from "../src/config/runtime-changes.ts";
import type { HostAddress } from "../src/protocol/message/host-address.ts";
import type { BufferBudget } from "../src/remoting/buffer-budget.ts";
import type { RemotingEndpoint } from "../src/remoting/endpoint.ts";
import type { LaneLoad } from "../src/remoting/lane.ts";
import type { ConsumerOffsets } from "./metadata/consumer-offsets.ts";
import type { DelayOffsets } from "./metadata/delay-offsets.ts";
import type { SubscriptionGroups } from "./metadata/subscription-groups.ts";
import type { ClientManager } from "./services/client-manager.ts";
import type { LongPollService } from "./services/long-poll.ts";
import type { RebalanceLocks } from "./services/rebalance-locks.ts";
import type { BrokerStats } from "./services/stats.ts";
import type { Transactions } from "./services/transaction/transactions.ts";
import type { MessageStore } from "./store/message-store.ts";
import type { TopicManager } from "./topics/topic-manager.ts";

export interface BrokerContext {
  readonly brokerConfig: BrokerConfig;
  readonly storeConfig: MessageStoreConfig;
  /** Shown by GET_BROKER_CONFIG beside the broker and store keys, as Java's broker shows them. */
  readonly nettyServerConfig: NettyServerConfig;
  readonly nettyClientConfig: NettyClientConfig;
  readonly limits: RocketbunBrokerConfig;
  /** `brokerIP1:listenPort`, as registered and as written into stored records. */
  readonly brokerAddr: string;
  readonly storeHost: HostAddress;
  readonly store: MessageStore;
  readonly topics: TopicManager;
  readonly groups: SubscriptionGroups;
  readonly offsets: ConsumerOffsets;
  /** The schedule service's progress per delay level (GET_ALL_DELAY_OFFSET reads it). */
  readonly delayOffsets: DelayOffsets;
  readonly clients: ClientManager;
  readonly longPoll: LongPollService;
  /** Queue locks of ordered consumers (LOCK_BATCH_MQ / UNLOCK_BATCH_MQ). */
  readonly locks: RebalanceLocks;
  /** Bytes buffered for clients, process-wide (serverBufferBytesMax): held pulls and pull reads. */
  readonly budget: BufferBudget;
  readonly stats: BrokerStats;
  /** Half messages, op records and their counters (spec broker §10). */
  readonly transactions: Transactions;
  /** The main server's endpoint, for requests the broker sends to clients. */
  readonly endpoint: () => RemotingEndpoint;
  /** Settings an admin may change at run time (UPDATE_BROKER_CONFIG). */
  readonly runtime: { brokerPermission: number };
  /**
   * Sets a key of brokerConfig or storeConfig (which are the broker's own copies) at run time;
   * only for the keys broker/runtime-config.ts lists, which processors read on every request.
   */
  readonly updateConfig: (section: "broker" | "store", key: string, value: unknown) => void;
  /** Keys UPDATE_BROKER_CONFIG changed, kept in brokerConfigPath for the next start. */
  readonly runtimeChanges: RuntimeChanges;
  /** Called after `runtime` changed, so the broker re-registers with the new permission. */
  readonly onRuntimeChanged: () => void;
  /** ACL 1.0 when aclEnable is on (its requests answer "not enabled" otherwise). */
  readonly acl: PlainAcl | null;
  /** A lane's queue over both ports (Java's one executor per family serves both). */
  readonly laneLoad: (lane: string) => LaneLoad;
  /** Keys the broker's services add to GET_BROKER_RUNTIME_INFO (schedule offsets, timer backlog). */
  readonly runtimeInfo: () => (readonly [string, string])[];
  readonly log: Logger;
}
