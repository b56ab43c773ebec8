/**
 * White-list address patterns (Java's RemoteAddressStrategyFactory), compiled once per file load
 * into a predicate on the peer's host:
 *
 *   (blank)                      matches nothing
 *   *  *.*.*.*  *:*:*:*:*:*:*:*  matches everything
 *   192.168.0.1  ::1             one address
 *   192.168.0.1,192.168.0.2      any of these addresses
 *   192.168.1.{1,2,3}            the last part chosen from a list (IPv6: `1050::300c:{1,2}`)
 *   192.168.*.*  192.168.1-10.*  a part may be `*` or a range `a-b` (IPv6: hex, `1050::1-ff:*`)
 *
 * Java compares only the first wildcard part of a range pattern and ignores the parts after it
 * (`192.168.*.1-100` admits 192.168.7.200); here every part must match, which agrees with Java on
 * every form its documentation and tests show.
 */
import { AclConfigError } from "./errors.ts";

export type AddressMatcher = (host: string) => boolean;

export const MATCH_NOTHING: AddressMatcher = () => false;
export const MATCH_EVERYTHING: AddressMatcher = () => true;

const EVERYTHING = new Set(["*", "*.*.*.*", "*:*:*:*:*:*:*:*"]);
const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;
const IPV4_MAPPED = /^::ffff:(\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3})$/i;
const HEX_GROUP = /^[0-9a-f]{1,4}$/i;

/** The host of a connection's "host:port" (IPv4-mapped IPv6 peers shown as IPv4, as Java sees them). */
export function hostOf(remoteAddress: string): string {
  const colon = remoteAddress.lastIndexOf(":");
  let host = colon < 0 ? remoteAddress : remoteAddress.slice(0, colon);
  if (host.startsWith("[") && host.endsWith("]")) host = host.slice(1, -1);
  const mapped = IPV4_MAPPED.exec(host);
  return mapped ? mapped[1]! : host;
}

/** Apache commons' isValidInet4Address: four decimal parts 0-255, no leading zeros. */
function ipv4Parts(text: string): number[] | null {
  const m = IPV4.exec(text);
  if (!m) return null;
  const parts = m.slice(1).map((p) => (p.length > 1 && p.startsWith("0") ? Number.NaN : Number(p)));
  return parts.every((p) => p >= 0 && p <= 255) ? parts : null;
}

/** The eight 16-bit groups of an IPv6 address (`::` and a trailing dotted IPv4 allowed), or null. */
function ipv6Groups(text: string): number[] | null {
  let head = text;
  const tail: number[] = [];
  const lastColon = text.lastIndexOf(":");
  if (lastColon >= 0 && text.includes(".", lastColon)) {
    const v4 = ipv4Parts(text.slice(lastColon + 1));
    if (!v4) return null;
    tail.push((v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!);
    head = text.slice(0, lastColon + 1);
    if (!head.endsWith("::")) head = head.slice(0, -1);
  }
  const halves = head.split("::");
  if (halves.length > 2) return null;
  const groupsOf = (s: string) => (s === "" ? [] : s.split(":"));
  const left = groupsOf(halves[0]!);
  const right = halves.length === 2 ? groupsOf(halves[1]!) : [];
  const given = left.length + right.length + tail.length;
  if (halves.length === 1 ? given !== 8 : given > 7) return null;
  if (![...left, ...right].every((g) => HEX_GROUP.test(g))) return null;
  const zeros = new Array<number>(8 - given).fill(0);
  const parse = (g: string) => Number.parseInt(g, 16);
  return [...left.map(parse), ...zeros, ...right.map(parse), ...tail];
}

/** A canonical key for an exact address: IPv4 as written, IPv6 as eight hex groups. */
function addressKey(text: string): string | null {
  if (ipv4Parts(text)) return text;
  const groups = ipv6Groups(text);
  return groups ? groups.map((g) => g.toString(16)).join(":") : null;
}

function badAddress(pattern: string): AclConfigError {
  return new AclConfigError(`NetAddress examine Exception netAddress is ${pattern}`);
}

function badScope(pattern: string): AclConfigError {
  return new AclConfigError(`NetAddress examine scope Exception netAddress is ${pattern}`);
}

function exactSet(pattern: string, addresses: readonly string[]): AddressMatcher {
  const keys = new Set<string>();
  for (const a of addresses) {
    const key = addressKey(a.trim());
    if (key === null) throw badAddress(pattern);
    keys.add(key);
  }
  return (host) => {
    const key = addressKey(host);
    return key !== null && keys.has(key);
  };
}

/** `prefix.{a,b}` → the addresses `prefix.a`, `prefix.b` (AclUtils.getAddresses). */
function braceList(pattern: string): AddressMatcher {
  const ipv6 = pattern.includes(":");
  const parts = pattern.split(ipv6 ? ":" : ".").filter((p) => p !== "");
  if (!ipv6 && parts.length < 4) {
    throw new AclConfigError(`MultipleRemoteAddressStrategy has got a/some wrong format IP(s): ${pattern} `);
  }
  const open = pattern.indexOf("{");
  if (!parts[parts.length - 1]!.startsWith("{") || open !== pattern.lastIndexOf("{")) {
    throw new AclConfigError(
      `MultipleRemoteAddressStrategy netAddress examine scope Exception netAddress: ${pattern}`,
    );
  }
  const prefix = pattern.slice(0, open);
  const choices = pattern
    .slice(open + 1, -1)
    .split(",")
    .filter((c) => c !== "");
  return exactSet(
    pattern,
    choices.map((c) => prefix + c),
  );
}

type PartTest = (value: number) => boolean;

/** One part of a range pattern: `*`, `a-b` or an exact value, in base 10 (IPv4) or 16 (IPv6). */
function partTest(pattern: string, part: string, radix: 10 | 16): PartTest {
  const max = radix === 10 ? 255 : 0xffff;
  const digits = radix === 10 ? /^\d{1,3}$/ : HEX_GROUP;
  if (part === "*") return () => true;
  const dash = part.indexOf("-");
  if (dash < 0) {
    if (!digits.test(part)) throw badScope(pattern);
    const exact = Number.parseInt(part, radix);
    if (exact > max) throw badScope(pattern);
    return (v) => v === exact;
  }
  const [from, to] = [part.slice(0, dash), part.slice(dash + 1)];
  if (!digits.test(from) || !digits.test(to)) throw badScope(pattern);
  const start = Number.parseInt(from, radix);
  const end = Number.parseInt(to, radix);
  if (!(start <= end && end <= max)) {
    throw new AclConfigError(
      `RangeRemoteAddressStrategy netAddress examine scope Exception start is ${from} , end is ${to}`,
    );
  }
  return (v) => v >= start && v <= end;
}

function rangeIpv4(pattern: string): AddressMatcher {
  const parts = pattern.split(".");
  // Java needs the first part fixed: it looks for the wildcard in parts 1-3 only.
  if (parts.length !== 4 || parts[0] === "*" || parts[0]!.includes("-")) throw badScope(pattern);
  const tests = parts.map((p) => partTest(pattern, p.trim(), 10));
  return (host) => {
    const v = ipv4Parts(host);
    return v !== null && tests.every((t, i) => t(v[i]!));
  };
}

function rangeIpv6(pattern: string): AddressMatcher {
  // `1050:5:600:300c:3261:*` (no `::`, fewer than eight parts): the trailing `*` covers the rest.
  let parts: string[];
  const halves = pattern.split("::");
  if (halves.length > 2) throw badScope(pattern);
  if (halves.length === 2) {
    const left = halves[0] === "" ? [] : halves[0]!.split(":");
    const right = halves[1] === "" ? [] : halves[1]!.split(":");
    if (left.length + right.length > 7) throw badScope(pattern);
    parts = [...left, ...new Array<string>(8 - left.length - right.length).fill("0"), ...right];
  } else {
    parts = pattern.split(":");
    if (parts.length < 8 && parts[parts.length - 1] === "*") {
      parts = [...parts, ...new Array<string>(8 - parts.length).fill("*")];
    }
  }
  if (parts.length !== 8 || parts[0] === "*" || parts[0]!.includes("-")) throw badScope(pattern);
  const tests = parts.map((p) => partTest(pattern, p.trim(), 16));
  return (host) => {
    const v = ipv6Groups(host);
    return v !== null && tests.every((t, i) => t(v[i]!));
  };
}

/** Compiles one pattern; throws AclConfigError with Java's message for one it cannot use. */
export function compileAddressPattern(pattern: string | null | undefined): AddressMatcher {
  const p = (pattern ?? "").trim();
  if (p === "") return MATCH_NOTHING;
  if (EVERYTHING.has(p)) return MATCH_EVERYTHING;
  if (p.endsWith("}")) return braceList(p);
  if (p.includes(","))
    return exactSet(
      p,
      p.split(",").filter((a) => a !== ""),
    );
  if (p.includes("*") || p.includes("-")) return p.includes(":") ? rangeIpv6(p) : rangeIpv4(p);
  return exactSet(p, [p]);
}

/** Any of several patterns (globalWhiteRemoteAddresses). */
export function anyOf(matchers: readonly AddressMatcher[]): AddressMatcher {
  if (matchers.length === 0) return MATCH_NOTHING;
  if (matchers.includes(MATCH_EVERYTHING)) return MATCH_EVERYTHING;
  return (host) => matchers.some((m) => m(host));
}
