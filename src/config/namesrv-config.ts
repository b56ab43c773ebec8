/**
 * RocketMQ's NamesrvConfig keys with their defaults. File paths default under the user's home, as in
 * Java; the loader moves them under `rocketbunHome` when one is given.
 */
import { homedir } from "node:os";
import { join } from "node:path";
import { type ConfigOf, defineSection } from "./schema.ts";

export const DEFAULT_NAMESRV_PORT = 9876;
export const DEFAULT_SCAN_NOT_ACTIVE_BROKER_INTERVAL_MS = 5000;
export const DEFAULT_CONFIG_BLACK_LIST = "configBlackList;configStorePath;kvConfigPath";

/** `<home>/namesrv/kvConfig.json`, Java's default KV store file. */
export const kvConfigPathUnder = (home: string): string => join(home, "namesrv", "kvConfig.json");
/**
 * `<home>/namesrv/namesrv-runtime.properties`: the keys UPDATE_NAMESRV_CONFIG changed. Not Java's
 * `namesrv.properties`, which a Java NameServer fills with every key, so that one is never applied.
 */
export const configStorePathUnder = (home: string): string =>
  join(home, "namesrv", "namesrv-runtime.properties");

const NO_EFFECT = "accepted for compatibility with RocketMQ files; no effect in RocketBun";

export const namesrvConfig = defineSection("namesrvConfig", {
  rocketmqHome: {
    type: "string",
    default: "",
    doc: "Java's installation directory (env ROCKETMQ_HOME); RocketBun does not need one",
  },
  kvConfigPath: { type: "string", default: kvConfigPathUnder(homedir()), doc: "KV store file" },
  configStorePath: {
    type: "string",
    default: configStorePathUnder(homedir()),
    doc: "where UPDATE_NAMESRV_CONFIG keeps the keys it changed, applied over the -c file at start; never the -c file",
  },
  productEnvName: { type: "string", default: "center", doc: "used by clusterTest mode" },
  clusterTest: { type: "bool", default: false, doc: NO_EFFECT },
  orderMessageEnable: {
    type: "bool",
    default: false,
    doc: "fill orderTopicConf from KV namespace ORDER_TOPIC_CONFIG",
  },
  returnOrderTopicConfigToBroker: {
    type: "bool",
    default: true,
    doc: "answer REGISTER_BROKER with the ORDER_TOPIC_CONFIG KV table",
  },
  clientRequestThreadPoolNums: { type: "int", default: 8, min: 0, doc: NO_EFFECT },
  defaultThreadPoolNums: { type: "int", default: 16, min: 0, doc: NO_EFFECT },
  clientRequestThreadPoolQueueCapacity: {
    type: "int",
    default: 50_000,
    min: 1,
    doc: "route queries queued before SYSTEM_BUSY",
  },
  defaultThreadPoolQueueCapacity: {
    type: "int",
    default: 10_000,
    min: 1,
    doc: "other requests queued before SYSTEM_BUSY",
  },
  scanNotActiveBrokerInterval: {
    type: "long",
    default: DEFAULT_SCAN_NOT_ACTIVE_BROKER_INTERVAL_MS,
    min: 1,
    doc: "ms between broker-expiry scans",
  },
  unRegisterBrokerQueueCapacity: { type: "int", default: 3000, min: 1, doc: "pending async unregistrations" },
  supportActingMaster: {
    type: "bool",
    default: false,
    doc: "let the smallest-id slave act as master in routes",
  },
  enableAllTopicList: { type: "bool", default: true, doc: "serve GET_ALL_TOPIC_LIST_FROM_NAMESERVER" },
  enableTopicList: {
    type: "bool",
    default: true,
    doc: "serve GET_TOPICS_BY_CLUSTER and the unit topic lists",
  },
  notifyMinBrokerIdChanged: {
    type: "bool",
    default: false,
    doc: "send NOTIFY_MIN_BROKER_ID_CHANGE to brokers",
  },
  enableControllerInNamesrv: { type: "bool", default: false, doc: NO_EFFECT },
  needWaitForService: {
    type: "bool",
    default: false,
    doc: "refuse route queries for waitSecondsForService after start",
  },
  waitSecondsForService: { type: "int", default: 45, min: 0, doc: "see needWaitForService" },
  deleteTopicWithBrokerRegistration: {
    type: "bool",
    default: false,
    doc: "drop a broker's topics that are missing from its registration",
  },
  configBlackList: {
    type: "string",
    default: DEFAULT_CONFIG_BLACK_LIST,
    doc: "keys UPDATE_NAMESRV_CONFIG may not change, separated by ';'",
  },
});

export type NamesrvConfig = ConfigOf<typeof namesrvConfig>;
