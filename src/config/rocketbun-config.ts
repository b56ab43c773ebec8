/**
 * RocketBun's own keys, kept apart from RocketMQ's: home directory, log level, the byte and count
 * limits every connection obeys, the wire identity we send, and the embedded (`start`) layout.
 */
import { homedir } from "node:os";
import { LOG_FORMATS } from "../log.ts";
import { ACL_FILE_FIELDS } from "./acl-config.ts";
import { checkNonEmpty } from "./checks.ts";
import { DEFAULT_NAMESRV_PORT } from "./namesrv-config.ts";
import { type ConfigOf, defineSection } from "./schema.ts";

/** Java's frame limit (`com.rocketmq.remoting.frameMaxLength`). */
export const DEFAULT_FRAME_BYTES_MAX = 16_777_216;
export const DEFAULT_SOCKET_OUTBOUND_BYTES_MAX = 32 * 1024 * 1024;
export const DEFAULT_PENDING_REQUESTS_MAX = 65_535;
/** 0: derived from the host at start (src/remoting/host-limits.ts). */
export const DEFAULT_SERVER_CONNECTIONS_MAX = 0;
export const DEFAULT_SERVER_BUFFER_BYTES_MAX = 0;
export const DEFAULT_HELD_PULLS_MAX = 65_536;
export const DEFAULT_PULL_SUSPEND_MS_MAX = 60_000;
/** Java's `rocketmq.broker.rebalance.lockMaxLiveTime` default (spec broker §8.9). */
export const DEFAULT_REBALANCE_LOCK_MAX_LIVE_TIME_MS = 60_000;
/** Queue lock entries a broker holds at once (group × queue). */
export const DEFAULT_REBALANCE_LOCKS_MAX = 1_000_000;

/** MQVersion V4_9_4: the first version a Java NameServer answers with standard JSON. */
export const DEFAULT_REMOTING_VERSION = 401;
export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
/** LanguageCode names; JAVA by default because older Java peers decode unknown codes as null. */
export const REMOTING_LANGUAGES = [
  "JAVA",
  "CPP",
  "DOTNET",
  "PYTHON",
  "DELPHI",
  "ERLANG",
  "RUBY",
  "OTHER",
  "HTTP",
  "GO",
  "PHP",
  "OMS",
  "RUST",
  "NODE_JS",
] as const;

/** Keys every role reads. */
export const rocketbunConfig = defineSection("rocketbunConfig", {
  rocketbunHome: {
    type: "string",
    check: checkNonEmpty,
    default: homedir(),
    doc: "directory under which paths not given default (store/, namesrv/); env ROCKETBUN_HOME, flag --home",
  },
  logLevel: { type: "enum", default: "info", enumValues: LOG_LEVELS, doc: "env ROCKETBUN_LOG_LEVEL" },
  logFormat: {
    type: "enum",
    default: "auto",
    enumValues: LOG_FORMATS,
    doc: "console log lines: pretty (human-readable, coloured), json (one object a line), auto (pretty on a terminal, json otherwise); env ROCKETBUN_LOG_FORMAT, flag --log-format",
  },
  logDir: {
    type: "string",
    default: "",
    doc: "also write JSON log lines to <logDir>/rocketbun.log, rotated at 100 MB, 10 files kept; empty: console only. env ROCKETBUN_LOG_DIR, flag --log-dir",
  },
  frameBytesMax: {
    type: "int",
    default: DEFAULT_FRAME_BYTES_MAX,
    min: 1024,
    doc: "largest remoting frame accepted or sent; a bigger total length closes the connection",
  },
  socketOutboundBytesMax: {
    type: "int",
    default: DEFAULT_SOCKET_OUTBOUND_BYTES_MAX,
    min: 1024,
    doc: "bytes queued for one slow socket before it is closed",
  },
  serverConnectionsMax: {
    type: "int",
    default: DEFAULT_SERVER_CONNECTIONS_MAX,
    min: 0,
    doc: "TCP client connections all servers of the process hold at once; beyond it a new one is closed at once. 0: the open-files limit (RLIMIT_NOFILE) less a quarter (at least 64) kept for store files",
  },
  serverBufferBytesMax: {
    type: "long",
    default: DEFAULT_SERVER_BUFFER_BYTES_MAX,
    min: 0,
    doc: "bytes all servers of the process buffer for clients (unsent responses, partial frames, held pulls); when full, the connection pinning the most is closed and held pulls are refused SYSTEM_BUSY. 0: a quarter of the memory limit (cgroup or RAM), 64 MiB to 1 GiB",
  },
  pendingRequestsMax: {
    type: "int",
    default: DEFAULT_PENDING_REQUESTS_MAX,
    min: 1,
    doc: "requests awaiting a response per connection; beyond it a call fails at once",
  },
  remotingLanguage: {
    type: "enum",
    default: "JAVA",
    enumValues: REMOTING_LANGUAGES,
    doc: "LanguageCode sent in every command",
  },
  remotingVersion: {
    type: "int",
    default: DEFAULT_REMOTING_VERSION,
    min: 0,
    doc: "MQVersion ordinal sent in every command; keep >= 401 for standard JSON routes",
  },
});

export type RocketbunConfig = ConfigOf<typeof rocketbunConfig>;

/** Broker limits and files RocketMQ does not have as keys. */
export const rocketbunBrokerConfig = defineSection("rocketbunBrokerConfig", {
  heldPullsMax: {
    type: "int",
    default: DEFAULT_HELD_PULLS_MAX,
    min: 0,
    doc: "pulls held by long polling at once; beyond it a pull is answered PULL_NOT_FOUND at once",
  },
  pullSuspendMsMax: {
    type: "long",
    default: DEFAULT_PULL_SUSPEND_MS_MAX,
    min: 0,
    doc: "longest hold granted to a pull, whatever suspendTimeoutMillis asks",
  },
  ...ACL_FILE_FIELDS,
  // Java reads this one as a JVM system property; here it is a broker key under the same name.
  "rocketmq.broker.rebalance.lockMaxLiveTime": {
    type: "long",
    default: DEFAULT_REBALANCE_LOCK_MAX_LIVE_TIME_MS,
    min: 1,
    doc: "ms an ordered consumer's queue lock lives without a relock; then another client may take the queue",
  },
  rebalanceLockReleaseOnClose: {
    type: "bool",
    default: true,
    doc: "release an ordered consumer's queue locks when the connection that took them closes (a crashed consumer's queues move at once); false keeps Apache's behaviour, where they only expire",
  },
  rebalanceLocksMax: {
    type: "int",
    default: DEFAULT_REBALANCE_LOCKS_MAX,
    min: 1,
    doc: "queue locks (group × queue) the broker holds at once; a lock beyond it is refused",
  },
});

export type RocketbunBrokerConfig = ConfigOf<typeof rocketbunBrokerConfig>;

/** The `start` layout: one process, NameServer + Broker + Gateway. */
export const startConfig = defineSection("startConfig", {
  namesrvListenPort: {
    type: "int",
    default: DEFAULT_NAMESRV_PORT,
    min: 0,
    max: 65535,
    doc: "the embedded NameServer's port (listenPort is the broker's); env ROCKETBUN_NAMESRV_PORT, flag --namesrv-port",
  },
});

export type StartConfig = ConfigOf<typeof startConfig>;
