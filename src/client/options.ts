/**
 * Client configuration (Java's ClientConfig): defaults as exported constants, resolved once.
 */
import { networkInterfaces } from "node:os";
import type { Logger } from "pino";
import type { SessionCredentials } from "../acl/signature.ts";
import { checkAddress } from "../config/checks.ts";
import type { ClientTlsOptions, Connector } from "../remoting/index.ts";
import { clientError } from "./errors.ts";
import { CLIENT_RANGES, checkRanges } from "./option-ranges.ts";

export const DEFAULT_MQ_CLIENT_API_TIMEOUT_MS = 3000;
export const DEFAULT_POLL_NAME_SERVER_INTERVAL_MS = 30_000;
export const DEFAULT_HEARTBEAT_BROKER_INTERVAL_MS = 30_000;
export const DEFAULT_PERSIST_CONSUMER_OFFSET_INTERVAL_MS = 5000;
/** V5_3_3 (style habit 13: ≥ 401 so a Java NameServer answers standard JSON). */
export const DEFAULT_CLIENT_VERSION = 479;

export interface ClientOptions {
  /** "host:port;host:port" or a list. */
  namesrvAddr: string | readonly string[];
  /** Distinguishes client instances in one process; default `<pid>#<random>`, so each instance has its own client id. */
  instanceName?: string;
  clientIP?: string;
  /** Transport; default TCP. Embedded setups pass an in-process connector. */
  connector?: Connector;
  mqClientApiTimeoutMs?: number;
  pollNameServerIntervalMs?: number;
  heartbeatBrokerIntervalMs?: number;
  language?: string;
  version?: number;
  /**
   * ACL 1.0 credentials (Java's AclClientRPCHook with SessionCredentials): with both keys, every
   * request to NameServers and brokers is signed. Without them nothing is signed.
   */
  accessKey?: string;
  secretKey?: string;
  /** Sent and signed with every request when given (SessionCredentials.securityToken). */
  securityToken?: string;
  /**
   * Connect to NameServers and brokers with TLS (Java's ClientConfig.useTLS). The server's
   * certificate is verified against the system's CAs unless `tls` says otherwise.
   */
  useTLS?: boolean;
  /** TLS settings (trusted CAs, a client certificate, verification); giving them turns TLS on. */
  tls?: ClientTlsOptions;
  log?: Logger;
}

export interface ResolvedClientOptions {
  namesrvAddrs: string[];
  instanceName: string;
  clientIP: string;
  connector: Connector | undefined;
  mqClientApiTimeoutMs: number;
  pollNameServerIntervalMs: number;
  heartbeatBrokerIntervalMs: number;
  language: string;
  version: number;
  credentials: SessionCredentials | null;
  /** TLS for every TCP connection, or null for plaintext. */
  tls: ClientTlsOptions | null;
}

/** Throws MQClientError (INVALID_PARAMETER) for a NameServer address that is not host:port or a timing out of range. */
export function resolveClientOptions(o: ClientOptions): ResolvedClientOptions {
  checkRanges(o, CLIENT_RANGES);
  const addrs = typeof o.namesrvAddr === "string" ? o.namesrvAddr.split(";") : [...o.namesrvAddr];
  const namesrvAddrs = addrs.map((a) => a.trim()).filter((a) => a.length > 0);
  for (const addr of namesrvAddrs) {
    const problem = checkAddress(addr);
    if (problem !== undefined) throw clientError(`bad NameServer address: ${problem}`);
  }
  return {
    namesrvAddrs,
    instanceName: o.instanceName ?? `${process.pid}#${crypto.randomUUID().slice(0, 8)}`,
    clientIP: o.clientIP ?? localIPv4(),
    connector: o.connector,
    mqClientApiTimeoutMs: o.mqClientApiTimeoutMs ?? DEFAULT_MQ_CLIENT_API_TIMEOUT_MS,
    pollNameServerIntervalMs: o.pollNameServerIntervalMs ?? DEFAULT_POLL_NAME_SERVER_INTERVAL_MS,
    heartbeatBrokerIntervalMs: o.heartbeatBrokerIntervalMs ?? DEFAULT_HEARTBEAT_BROKER_INTERVAL_MS,
    language: o.language ?? "JAVA",
    version: o.version ?? DEFAULT_CLIENT_VERSION,
    credentials: credentialsOf(o),
    tls: o.tls ?? (o.useTLS ? {} : null),
  };
}

/** Both keys or neither: half a pair would send unsigned requests the user believes signed. */
function credentialsOf(o: ClientOptions): SessionCredentials | null {
  const { accessKey, secretKey, securityToken } = o;
  if (!accessKey && !secretKey) return null;
  if (!accessKey || !secretKey)
    throw clientError("accessKey and secretKey go together: give both or neither");
  return securityToken === undefined ? { accessKey, secretKey } : { accessKey, secretKey, securityToken };
}

/** The first non-internal IPv4 address, as Java's RemotingUtil.getLocalAddress prefers. */
export function localIPv4(): string {
  for (const list of Object.values(networkInterfaces())) {
    for (const ni of list ?? []) if (ni.family === "IPv4" && !ni.internal) return ni.address;
  }
  return "127.0.0.1";
}
