/**
 * Facts about this machine that RocketMQ uses as defaults: home directory, host name (brokerName) and
 * the address published to clients (brokerIP1). Gathered once by the loader, injectable for tests.
 */
import { homedir, hostname, type NetworkInterfaceInfo, networkInterfaces } from "node:os";

export interface HostFacts {
  readonly homeDir: string;
  readonly hostName: string;
  readonly localAddress: string;
  /** The role's default bindAddress when it is not the wildcard (`start`: loopback). */
  readonly bindAddress?: string;
}

function isPrivateIPv4(addr: string): boolean {
  const [a = 0, b = 0] = addr.split(".").map(Number);
  return a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168);
}

/**
 * Java's NetworkUtil choice: the first non-loopback public IPv4, else the last private IPv4, else an
 * IPv6 address, else loopback.
 */
export function pickLocalAddress(
  interfaces: Readonly<Record<string, NetworkInterfaceInfo[] | undefined>>,
): string {
  const all = Object.values(interfaces)
    .flatMap((list) => list ?? [])
    .filter((i) => !i.internal);
  const v4 = all.filter((i) => i.family === "IPv4").map((i) => i.address);
  const publicV4 = v4.find((a) => !isPrivateIPv4(a) && !a.startsWith("169.254."));
  if (publicV4 !== undefined) return publicV4;
  const privateV4 = v4.filter(isPrivateIPv4).at(-1);
  if (privateV4 !== undefined) return privateV4;
  const v6 = all.find((i) => i.family === "IPv6" && !i.address.startsWith("fe80"));
  return v6?.address ?? "127.0.0.1";
}

export function detectHost(): HostFacts {
  return { homeDir: homedir(), hostName: hostname(), localAddress: pickLocalAddress(networkInterfaces()) };
}
