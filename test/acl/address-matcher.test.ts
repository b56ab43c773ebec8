/**
 * White-list patterns as RocketMQ's RemoteAddressStrategyFactory reads them: each documented form
 * matches the addresses Java's own tests expect, and a pattern Java refuses is refused with its
 * message.
 */
import { describe, expect, test } from "bun:test";
import { compileAddressPattern, hostOf } from "../../src/acl/address-matcher.ts";

/** The hosts of `hosts` the pattern admits. */
function admitted(pattern: string | null, hosts: string[]): string[] {
  const match = compileAddressPattern(pattern);
  return hosts.filter((h) => match(h));
}

const V4 = ["127.0.0.1", "127.0.0.2", "127.0.0.4", "127.0.1.1", "127.0.30.1", "192.168.0.7", "10.10.103.9"];

describe("address patterns", () => {
  test("blank matches nothing; *, *.*.*.* and *:*:*:*:*:*:*:* match everything", () => {
    expect(admitted(null, V4)).toEqual([]);
    expect(admitted("  ", V4)).toEqual([]);
    for (const all of ["*", "*.*.*.*", "*:*:*:*:*:*:*:*"])
      expect(admitted(all, [...V4, "::1"])).toEqual([...V4, "::1"]);
  });

  test("one address, a comma list, and a {a,b} list of last parts", () => {
    expect(admitted("127.0.0.1", V4)).toEqual(["127.0.0.1"]);
    expect(admitted("127.0.0.1,127.0.0.2,10.10.103.9", V4)).toEqual([
      "127.0.0.1",
      "127.0.0.2",
      "10.10.103.9",
    ]);
    expect(admitted("127.0.0.{1,2,3}", V4)).toEqual(["127.0.0.1", "127.0.0.2"]);
    expect(admitted("192.168.1.{1}", ["192.168.1.1", "192.168.1.10"])).toEqual(["192.168.1.1"]);
  });

  test("* and a-b parts: 127.0.0.*, 127.0.0.1-2, 127.0.1-20.*, 192.100-150.*.*", () => {
    expect(admitted("127.0.0.*", V4)).toEqual(["127.0.0.1", "127.0.0.2", "127.0.0.4"]);
    expect(admitted("127.0.0.1-2", V4)).toEqual(["127.0.0.1", "127.0.0.2"]);
    expect(admitted("127.0.1-20.*", V4)).toEqual(["127.0.1.1"]);
    expect(admitted("192.100-150.*.*", ["192.130.0.2", "192.99.0.2", "192.151.1.1"])).toEqual([
      "192.130.0.2",
    ]);
    expect(admitted("10.10.103.*", V4)).toEqual(["10.10.103.9"]);
  });

  test("every part of a range pattern must match (Java looks at the first wildcard part only)", () => {
    expect(admitted("192.168.*.1-100", ["192.168.5.50", "192.168.5.200", "192.169.5.50"])).toEqual([
      "192.168.5.50",
    ]);
  });

  test("IPv6: exact in any spelling, lists, {a,b}, ranges and a trailing *", () => {
    const hosts = ["1050::5:600:300c:326b", "1050:0:0:0:5:600:300c:3261", "1050::5:600:300c:3262", "::1"];
    expect(admitted("1050:0000:0000:0000:0005:0600:300c:326b", hosts)).toEqual(["1050::5:600:300c:326b"]);
    expect(admitted("::1", hosts)).toEqual(["::1"]);
    expect(admitted("0000:0000:0000:0000:0000:0000:0000:0001", hosts)).toEqual(["::1"]);
    expect(admitted("1050::0005:0600:300c:3261,1050::0005:0600:300c:3262", hosts)).toEqual([
      "1050:0:0:0:5:600:300c:3261",
      "1050::5:600:300c:3262",
    ]);
    expect(admitted("1050::0005:0600:300c:{3261,326b}", hosts)).toEqual([
      "1050::5:600:300c:326b",
      "1050:0:0:0:5:600:300c:3261",
    ]);
    expect(admitted("1050::0005:0600:300c:3261-3262", hosts)).toEqual([
      "1050:0:0:0:5:600:300c:3261",
      "1050::5:600:300c:3262",
    ]);
    expect(admitted("1050:0:0:0:5:*", hosts)).toEqual(hosts.slice(0, 3));
  });

  test("patterns Java refuses are refused with its message", () => {
    const refused = [
      ["256.0.0.1", "NetAddress examine Exception netAddress is 256.0.0.1"],
      ["::1ggg", "NetAddress examine Exception netAddress is ::1ggg"],
      ["127.0.0.1,2,3", "NetAddress examine Exception netAddress is 127.0.0.1,2,3"],
      [
        "127.0.0.1,2,3}",
        "MultipleRemoteAddressStrategy netAddress examine scope Exception netAddress: 127.0.0.1,2,3}",
      ],
      ["192.168.{1}", "MultipleRemoteAddressStrategy has got a/some wrong format IP(s): 192.168.{1} "],
      [
        "{192.168.1.1}",
        "MultipleRemoteAddressStrategy netAddress examine scope Exception netAddress: {192.168.1.1}",
      ],
      ["127.0.0.2-1", "RangeRemoteAddressStrategy netAddress examine scope Exception start is 2 , end is 1"],
      ["127.0.*", "NetAddress examine scope Exception netAddress is 127.0.*"],
      ["127.0.0.-5", "NetAddress examine scope Exception netAddress is 127.0.0.-5"],
    ];
    for (const [pattern, message] of refused) expect(() => compileAddressPattern(pattern)).toThrow(message!);
  });

  test("the host of a connection address: port dropped, IPv6 brackets and IPv4 mapping undone", () => {
    expect(["127.0.0.1:5000", "::1:5000", "[::1]:5000", "::ffff:10.0.0.7:5000"].map(hostOf)).toEqual([
      "127.0.0.1",
      "::1",
      "::1",
      "10.0.0.7",
    ]);
  });
});
