/** The DER encoder, byte for byte against X.690 examples and what OpenSSL writes for the same values. */
import { expect, test } from "bun:test";
import { oid, pem, sequence, time, tlv, unsignedInteger } from "../../src/tls/der.ts";

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");

test("lengths: short form below 128, then 0x81 n, then 0x82 n n", () => {
  expect(hex(tlv(0x04, new Uint8Array(3)))).toBe("0403000000");
  expect(hex(tlv(0x04, new Uint8Array(200))).slice(0, 6)).toBe("0481c8");
  expect(hex(tlv(0x04, new Uint8Array(300))).slice(0, 8)).toBe("0482012c");
});

test("an OID encodes its first two arcs as 40a+b and the rest base-128 (ecdsa-with-SHA256)", () => {
  expect(hex(oid("1.2.840.10045.4.3.2"))).toBe("06082a8648ce3d040302");
  expect(hex(oid("2.5.29.17"))).toBe("0603551d11");
});

test("an unsigned integer drops leading zeros and gains one when its top bit is set", () => {
  expect(hex(unsignedInteger(Uint8Array.of(0, 0, 0x7f)))).toBe("02017f");
  expect(hex(unsignedInteger(Uint8Array.of(0x80)))).toBe("02020080");
  expect(hex(unsignedInteger(Uint8Array.of(0, 0)))).toBe("020100");
});

test("times: UTCTime until 2049, GeneralizedTime from 2050 (RFC 5280 4.1.2.5)", () => {
  expect(Buffer.from(time(new Date("2049-12-31T23:59:59Z"))).toString("latin1")).toBe(
    "\x17\x0d491231235959Z",
  );
  expect(Buffer.from(time(new Date("2126-01-02T03:04:05Z"))).toString("latin1")).toBe(
    "\x18\x0f21260102030405Z",
  );
});

test("PEM armour wraps base64 at 64 characters", () => {
  const text = pem("TEST", sequence(tlv(0x04, new Uint8Array(60))));
  const lines = text.trimEnd().split("\n");
  expect(lines[0]).toBe("-----BEGIN TEST-----");
  expect(lines.at(-1)).toBe("-----END TEST-----");
  expect(lines.slice(1, -1).map((l) => l.length)).toEqual([64, 24]);
});
