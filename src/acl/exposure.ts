/**
 * The startup warning for a server that anyone on the network may reach while ACL is off: Apache
 * RocketMQ is as open by default, and says nothing about it. One `warn` line per role, naming the
 * listening addresses and how to close them.
 */
import type { Logger } from "pino";

/** The IPv4 loopback network, 127.0.0.0/8. */
const IPV4_LOOPBACK = /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;
const IPV6_LOOPBACK = new Set(["::1", "0:0:0:0:0:0:0:1"]);
/** An IPv4 loopback address written as IPv4-mapped IPv6. */
const MAPPED_PREFIX = "::ffff:";

/**
 * Whether a server bound to `address` only accepts connections from this machine. Anything else —
 * the wildcard (0.0.0.0, ::), a LAN address, a host name other than localhost — counts as exposed.
 */
export function isLoopbackBind(address: string): boolean {
  let host = address.trim().toLowerCase();
  if (host.startsWith("[") && host.endsWith("]")) host = host.slice(1, -1);
  if (host === "localhost" || IPV6_LOOPBACK.has(host)) return true;
  if (host.startsWith(MAPPED_PREFIX)) host = host.slice(MAPPED_PREFIX.length);
  return IPV4_LOOPBACK.test(host);
}

export interface Exposure {
  /** "NameServer" or "Broker". */
  readonly role: string;
  readonly bindAddress: string;
  /** Each listening port with what it is ("port", "VIP port"). */
  readonly ports: readonly { readonly name: string; readonly port: number }[];
  readonly aclEnabled: boolean;
  /** What an unchecked stranger may do there, in a few words. */
  readonly risk: string;
  /** Where the ACL accounts would be read from. */
  readonly aclFile: string;
}

function hostPort(host: string, port: number): string {
  return host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
}

/** The warning line, or null when ACL is on or only loopback can connect. */
export function exposureWarning(e: Exposure): string | null {
  if (e.aclEnabled || isLoopbackBind(e.bindAddress)) return null;
  const where = e.ports.map((p) => `${p.name} ${hostPort(e.bindAddress, p.port)}`).join(" and ");
  return (
    `${e.role} listens on ${where}, beyond loopback, with ACL off: anyone who reaches it can ${e.risk}. ` +
    `Set aclEnable=true in the config file and give accounts in ${e.aclFile}, or bindAddress=127.0.0.1`
  );
}

/** Logs the warning at `warn` when there is one. */
export function warnIfExposed(log: Logger, e: Exposure): void {
  const line = exposureWarning(e);
  if (line === null) return;
  log.warn({ bindAddress: e.bindAddress, ports: e.ports.map((p) => p.port) }, line);
}
