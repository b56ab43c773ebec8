/**
 * `--tls-dev`'s certificate: made once with a private key file, reused while it is valid and names
 * every host, made again (saying why) when it would expire, lacks a host, or is damaged.
 */
import { afterEach, beforeEach, expect, test } from "bun:test";
import { X509Certificate } from "node:crypto";
import { mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEV_CERT_VALIDITY_DAYS, ensureDevCertificate } from "../../src/tls/dev-certificate.ts";

const NAMES = ["localhost", "127.0.0.1", "::1"];
const DAY_MS = 86_400_000;
let dir = "";

beforeEach(async () => {
  dir = join(await mkdtemp(join(tmpdir(), "rocketbun-dev-cert-")), "tls");
});
afterEach(async () => {
  await rm(join(dir, ".."), { recursive: true, force: true });
});

test("the first use makes a self-signed certificate for every name, with a key only its owner reads", async () => {
  const dev = await ensureDevCertificate(dir, NAMES);
  const x = new X509Certificate(await Bun.file(dev.certPath).text());
  expect({
    madeBecause: dev.madeBecause,
    selfSigned: x.subject === x.issuer,
    san: x.subjectAltName,
    fingerprint: x.fingerprint256,
    keyMode: (await stat(dev.keyPath)).mode & 0o777,
    dirMode: (await stat(dir)).mode & 0o777,
  }).toEqual({
    madeBecause: "none yet",
    selfSigned: true,
    san: "DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1",
    fingerprint: dev.fingerprint256,
    keyMode: 0o600,
    dirMode: 0o700,
  });
});

test("the next use reuses it: same fingerprint, nothing made", async () => {
  const first = await ensureDevCertificate(dir, NAMES);
  const again = await ensureDevCertificate(dir, ["127.0.0.1"]);
  expect({ fingerprint: again.fingerprint256, madeBecause: again.madeBecause }).toEqual({
    fingerprint: first.fingerprint256,
    madeBecause: null,
  });
});

test("it is made again, saying why, when it lacks a host, nears its end, or is damaged", async () => {
  const first = await ensureDevCertificate(dir, NAMES);
  const wider = await ensureDevCertificate(dir, [...NAMES, "mq.example"]);
  expect(wider.madeBecause).toBe("the last one does not name mq.example");
  expect(wider.fingerprint256).not.toBe(first.fingerprint256);
  const later = Date.now() + (DEV_CERT_VALIDITY_DAYS - 10) * DAY_MS;
  expect((await ensureDevCertificate(dir, NAMES, later)).madeBecause).toMatch(/^the last one expires /);
  await writeFile(join(dir, "dev-key.pem"), "not a key");
  expect((await ensureDevCertificate(dir, NAMES)).madeBecause).toBe(
    "the last one is unreadable, or its key does not match",
  );
});
