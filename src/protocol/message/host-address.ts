/**
 * Socket addresses as the stored record carries them (spec §4.1 BORNHOST/STOREHOSTADDRESS):
 * 4 or 16 address bytes plus an i32 port. IPv4-mapped IPv6 peers become plain IPv4, because
 * ali-ons and the C++ client read only 4-byte hosts (spec §4.1 interop constraint).
 */

export interface HostAddress {
  /** 4 bytes (IPv4) or 16 bytes (IPv6). */
  readonly ip: Uint8Array;
  readonly port: number;
}

function parseIpv4(s: string): Uint8Array | undefined {
  const parts = s.split(".");
  if (parts.length !== 4) return undefined;
  const out = new Uint8Array(4);
  for (let i = 0; i < 4; i++) {
    const p = parts[i]!;
    if (!/^\d{1,3}$/.test(p)) return undefined;
    const n = Number(p);
    if (n > 255) return undefined;
    out[i] = n;
  }
  return out;
}

function parseIpv6(s: string): Uint8Array | undefined {
  let text = s;
  const zone = text.indexOf("%");
  if (zone >= 0) text = text.slice(0, zone);
  // A dotted tail (::ffff:1.2.3.4) occupies the last two groups.
  let tail: Uint8Array | undefined;
  const lastColon = text.lastIndexOf(":");
  if (text.slice(lastColon + 1).includes(".")) {
    tail = parseIpv4(text.slice(lastColon + 1));
    if (!tail) return undefined;
    text = `${text.slice(0, lastColon + 1)}0:0`;
  }
  const halves = text.split("::");
  if (halves.length > 2) return undefined;
  const head = halves[0] ? halves[0].split(":") : [];
  const rest = halves.length === 2 && halves[1] ? halves[1].split(":") : [];
  const missing = 8 - head.length - rest.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const groups = [...head, ...new Array<string>(halves.length === 2 ? missing : 0).fill("0"), ...rest];
  const out = new Uint8Array(16);
  for (let i = 0; i < 8; i++) {
    const g = groups[i]!;
    if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return undefined;
    const n = Number.parseInt(g, 16);
    out[i * 2] = n >> 8;
    out[i * 2 + 1] = n & 0xff;
  }
  if (tail) out.set(tail, 12);
  return out;
}

function isV4Mapped(b: Uint8Array): boolean {
  for (let i = 0; i < 10; i++) if (b[i] !== 0) return false;
  return b[10] === 0xff && b[11] === 0xff;
}

/** Parses an IP literal; an IPv4-mapped IPv6 address yields its 4 IPv4 bytes. Throws on garbage. */
export function parseIp(ip: string): Uint8Array {
  const literal = ip.startsWith("[") && ip.endsWith("]") ? ip.slice(1, -1) : ip;
  const v4 = parseIpv4(literal);
  if (v4) return v4;
  const v6 = parseIpv6(literal);
  if (!v6) throw new Error(`invalid IP address: ${ip}`);
  return isV4Mapped(v6) ? v6.slice(12) : v6;
}

/** Builds a host address from a socket's remote IP and port. */
export function hostAddress(ip: string, port: number): HostAddress {
  return { ip: parseIp(ip), port };
}

/** Parses `"1.2.3.4:10911"` or `"[::1]:10911"`. */
export function parseHostAddress(text: string): HostAddress {
  const colon = text.lastIndexOf(":");
  if (colon < 0) throw new Error(`invalid host:port: ${text}`);
  const port = Number(text.slice(colon + 1));
  if (!Number.isInteger(port) || port < 0 || port > 0xffff) throw new Error(`invalid port in ${text}`);
  return hostAddress(text.slice(0, colon), port);
}

/** Formats the IP part: dotted quad, or RFC 5952-ish compressed IPv6 (no `::` shortening needed by peers). */
export function formatIp(ip: Uint8Array): string {
  if (ip.length === 4) return `${ip[0]}.${ip[1]}.${ip[2]}.${ip[3]}`;
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((ip[i]! << 8) | ip[i + 1]!).toString(16));
  return groups.join(":");
}

/** `"ip:port"` as Java's `RemotingHelper` style prints a socket address (IPv6 without brackets). */
export function formatHostAddress(a: HostAddress): string {
  return `${formatIp(a.ip)}:${a.port}`;
}
