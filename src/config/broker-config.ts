/**
 * RocketMQ's BrokerConfig keys (broker identity, registration, topics, polling, transactions) with
 * their defaults. Java keys RocketBun does not model are accepted and ignored (java-ignored-keys.ts).
 */
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { checkAddressList } from "./checks.ts";
import { BROKER_CONFIG_IGNORED_KEYS } from "./java-ignored-keys.ts";
import { type ConfigOf, defineSection } from "./schema.ts";

export const DEFAULT_BROKER_PORT = 10911;
export const DEFAULT_CLUSTER_NAME = "DefaultCluster";
/** Java's brokerName when the host name is unknown. */
export const DEFAULT_BROKER_NAME = "DEFAULT_BROKER";
export const DEFAULT_TOPIC_QUEUE_NUMS = 8;
export const DEFAULT_BROKER_PERMISSION = 6;
export const DEFAULT_REGISTER_NAME_SERVER_PERIOD_MS = 30_000;
export const DEFAULT_REGISTER_BROKER_TIMEOUT_MS = 24_000;
export const DEFAULT_TRACE_TOPIC = "RMQ_SYS_TRACE_TOPIC";
export const DEFAULT_REGION_ID = "DefaultRegion";

/**
 * `<storePathRootDir>/config/broker-runtime.properties`: the keys UPDATE_BROKER_CONFIG changed. Not
 * Java's `broker.properties`, which a Java broker fills with every key, so that one is never applied.
 */
export const brokerConfigPathUnder = (storePathRootDir: string): string =>
  join(storePathRootDir, "config", "broker-runtime.properties");

const NO_EFFECT = "accepted for compatibility with RocketMQ files; no effect in RocketBun";
const CPUS = availableParallelism();

export const brokerConfig = defineSection(
  "brokerConfig",
  {
    brokerClusterName: {
      type: "string",
      default: DEFAULT_CLUSTER_NAME,
      important: true,
      doc: "cluster name",
    },
    brokerName: {
      type: "string",
      default: DEFAULT_BROKER_NAME,
      important: true,
      doc: "broker group name; defaults to this machine's host name",
    },
    brokerId: {
      type: "long",
      default: 0,
      min: 0,
      important: true,
      doc: "0 for a master (forced for ASYNC_MASTER/SYNC_MASTER); a SLAVE needs > 0",
    },
    rocketmqHome: {
      type: "string",
      default: "",
      doc: "Java's installation directory (env ROCKETMQ_HOME); unused",
    },
    namesrvAddr: {
      type: "string",
      default: "",
      important: true,
      check: checkAddressList,
      doc: "NameServers as host:port;host:port; defaults to env NAMESRV_ADDR",
    },
    brokerIP1: {
      type: "string",
      default: "127.0.0.1",
      important: true,
      doc: "address published to clients and stored in message ids; defaults to this machine's address",
    },
    brokerIP2: { type: "string", default: "127.0.0.1", doc: "HA address; defaults like brokerIP1" },
    brokerConfigPath: {
      type: "string",
      default: "",
      doc: "where UPDATE_BROKER_CONFIG keeps the keys it changed, applied over the -c file at start; defaults to <storePathRootDir>/config/broker-runtime.properties, never the -c file",
    },
    brokerPermission: {
      type: "int",
      default: DEFAULT_BROKER_PERMISSION,
      min: 0,
      max: 7,
      doc: "2 write, 4 read, 6 read-write",
    },
    defaultTopicQueueNums: {
      type: "int",
      default: DEFAULT_TOPIC_QUEUE_NUMS,
      min: 1,
      doc: "queues of an auto-created topic (TBW102)",
    },
    autoCreateTopicEnable: {
      type: "bool",
      default: true,
      important: true,
      doc: "create unknown topics on send",
    },
    autoCreateSubscriptionGroup: {
      type: "bool",
      default: true,
      important: true,
      doc: "create unknown groups",
    },
    clusterTopicEnable: { type: "bool", default: true, doc: "create the topic named after the cluster" },
    brokerTopicEnable: { type: "bool", default: true, doc: "create the topic named after the broker" },
    traceTopicEnable: { type: "bool", default: false, important: true, doc: "create the trace topic" },
    msgTraceTopicName: { type: "string", default: DEFAULT_TRACE_TOPIC, important: true, doc: "trace topic" },
    regionId: { type: "string", default: DEFAULT_REGION_ID, doc: "returned in send responses (MSG_REGION)" },
    traceOn: { type: "bool", default: true, doc: "returned in send responses (TRACE_ON)" },
    recallMessageEnable: {
      type: "bool",
      default: false,
      doc: "serve RECALL_MESSAGE (370): cancel a pending timer message by its recall handle",
    },
    registerNameServerPeriod: {
      type: "int",
      default: DEFAULT_REGISTER_NAME_SERVER_PERIOD_MS,
      min: 1,
      doc: "ms between registrations, clamped to 10-60 s like Java",
    },
    registerBrokerTimeoutMills: {
      type: "int",
      default: DEFAULT_REGISTER_BROKER_TIMEOUT_MS,
      min: 1,
      doc: "REGISTER_BROKER timeout",
    },
    forceRegister: { type: "bool", default: true, doc: "register without asking QUERY_DATA_VERSION first" },
    compressedRegister: { type: "bool", default: false, doc: "send the compressed REGISTER_BROKER body" },
    longPollingEnable: { type: "bool", default: true, doc: "hold pulls that find no message" },
    shortPollingTimeMills: { type: "long", default: 1000, min: 0, doc: "hold time when long polling is off" },
    notifyConsumerIdsChangedEnable: { type: "bool", default: true, doc: "send NOTIFY_CONSUMER_IDS_CHANGED" },
    slaveReadEnable: { type: "bool", default: false, doc: "suggest a slave when the master lags" },
    flushConsumerOffsetInterval: {
      type: "int",
      default: 5000,
      min: 1,
      doc: "ms between consumerOffset.json writes",
    },
    channelExpiredTimeout: {
      type: "long",
      default: 120_000,
      min: 1,
      doc: "a client without heartbeat this long (ms) is dropped",
    },
    sendThreadPoolQueueCapacity: {
      type: "int",
      default: 10_000,
      min: 1,
      doc: "sends queued before SYSTEM_BUSY",
    },
    pullThreadPoolQueueCapacity: {
      type: "int",
      default: 100_000,
      min: 1,
      doc: "pulls queued before SYSTEM_BUSY",
    },
    waitTimeMillsInSendQueue: {
      type: "long",
      default: 200,
      min: 0,
      doc: "a send queued longer is answered SYSTEM_BUSY ([TIMEOUT_CLEAN_QUEUE])",
    },
    brokerFastFailureEnable: { type: "bool", default: true, doc: "apply waitTimeMillsInSendQueue" },
    transactionTimeOut: {
      type: "long",
      default: 6000,
      min: 0,
      important: true,
      doc: "ms before a half message is checked",
    },
    transactionCheckMax: {
      type: "int",
      default: 15,
      min: 0,
      important: true,
      doc: "checks before discarding",
    },
    // Apache's default was 60 s through 5.1.0 (and all of 4.x); 5.1.1 made it 30 s (apache/rocketmq
    // PR #6401, issue #6402, March 2023), not 5.1.4 as the spec's version table says.
    transactionCheckInterval: {
      type: "long",
      default: 30_000,
      min: 1,
      important: true,
      doc: "ms between transaction check rounds",
    },
    rejectTransactionMessage: { type: "bool", default: false, important: true, doc: "refuse half messages" },
    storeReplyMessageEnable: { type: "bool", default: true, doc: "store request-reply messages" },
    enablePropertyFilter: {
      type: "bool",
      default: false,
      doc: "serve SQL92 property-filter subscriptions (CHECK_CLIENT_CONFIG, PULL); POP is never gated",
    },
    aclEnable: { type: "bool", default: false, important: true, doc: "check ACL 1.0 signatures" },
    fetchNamesrvAddrByAddressServer: { type: "bool", default: false, important: true, doc: NO_EFFECT },
    reviveQueueNum: { type: "int", default: 8, min: 1, doc: "queues of the POP revive topic" },
    sendMessageThreadPoolNums: { type: "int", default: Math.min(CPUS, 4), min: 0, doc: NO_EFFECT },
    pullMessageThreadPoolNums: { type: "int", default: 16 + CPUS * 2, min: 0, doc: NO_EFFECT },
    queryMessageThreadPoolNums: { type: "int", default: 8 + CPUS, min: 0, doc: NO_EFFECT },
    adminBrokerThreadPoolNums: { type: "int", default: 16, min: 0, doc: NO_EFFECT },
    clientManageThreadPoolNums: { type: "int", default: 32, min: 0, doc: NO_EFFECT },
    consumerManageThreadPoolNums: { type: "int", default: 32, min: 0, doc: NO_EFFECT },
    heartbeatThreadPoolNums: { type: "int", default: Math.min(32, CPUS), min: 0, doc: NO_EFFECT },
    configBlackList: {
      type: "string",
      default: "configBlackList;brokerConfigPath",
      doc: "keys UPDATE_BROKER_CONFIG may not change, separated by ';'",
    },
  },
  { ignoredKeys: BROKER_CONFIG_IGNORED_KEYS },
);

export type BrokerConfig = ConfigOf<typeof brokerConfig>;
