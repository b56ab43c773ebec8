/**
 * The exposure warning's rule: it speaks only when ACL is off and the bind address lets other
 * machines in, and it names the role, every listening address and the way out.
 */
import { describe, expect, test } from "bun:test";
import { type Exposure, exposureWarning, isLoopbackBind } from "../../src/acl/exposure.ts";

describe("isLoopbackBind", () => {
  test("127.0.0.0/8, ::1 (any spelling), IPv4-mapped loopback and localhost are loopback", () => {
    const loopback = [
      "127.0.0.1",
      "127.1.2.3",
      "::1",
      "[::1]",
      "0:0:0:0:0:0:0:1",
      "::ffff:127.0.0.1",
      "localhost",
      " LOCALHOST ",
    ];
    expect(loopback.filter((a) => !isLoopbackBind(a))).toEqual([]);
  });

  test("the wildcards, LAN and public addresses and other host names are not", () => {
    const exposed = [
      "0.0.0.0",
      "::",
      "[::]",
      "",
      "10.0.0.5",
      "192.168.1.10",
      "::ffff:10.0.0.1",
      "fe80::1",
      "128.0.0.1",
      "1127.0.0.1",
      "127.0.0.1.example.com",
      "myhost",
    ];
    expect(exposed.filter((a) => isLoopbackBind(a))).toEqual([]);
  });
});

describe("exposureWarning", () => {
  const broker: Exposure = {
    role: "Broker",
    bindAddress: "0.0.0.0",
    ports: [
      { name: "port", port: 10911 },
      { name: "VIP port", port: 10909 },
    ],
    aclEnabled: false,
    risk: "delete topics",
    aclFile: "/home/u/rocketbun/conf/plain_acl.yml",
  };

  test("names the role, each address and how to turn ACL on", () => {
    expect(exposureWarning(broker)).toBe(
      "Broker listens on port 0.0.0.0:10911 and VIP port 0.0.0.0:10909, beyond loopback, with ACL off: " +
        "anyone who reaches it can delete topics. Set aclEnable=true in the config file and give accounts " +
        "in /home/u/rocketbun/conf/plain_acl.yml, or bindAddress=127.0.0.1",
    );
  });

  test("brackets an IPv6 wildcard", () => {
    expect(
      exposureWarning({ ...broker, bindAddress: "::", ports: [{ name: "port", port: 9876 }] }),
    ).toStartWith("Broker listens on port [::]:9876, beyond loopback");
  });

  test("says nothing with ACL on, or on loopback", () => {
    expect(exposureWarning({ ...broker, aclEnabled: true })).toBeNull();
    expect(exposureWarning({ ...broker, bindAddress: "127.0.0.1" })).toBeNull();
  });
});
