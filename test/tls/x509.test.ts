/**
 * Certificates made with WebCrypto: node's X509Certificate and the openssl CLI read them, chains
 * verify against their CA, and the names, dates and fingerprint are what was asked for.
 */
import { expect, test } from "bun:test";
import { X509Certificate } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createCertificate } from "../../src/tls/x509.ts";

const valid = { notBefore: new Date("2020-01-01T00:00:00Z"), notAfter: new Date("2120-01-01T00:00:00Z") };

test("a CA-issued certificate names its hosts, verifies against the CA, and has the fingerprint node computes", async () => {
  const ca = await createCertificate({ commonName: "Test CA", ca: true, ...valid });
  const leaf = await createCertificate({
    commonName: "leaf",
    names: ["mq.example", "10.1.2.3", "::1"],
    issuer: ca,
    ...valid,
  });
  const x = new X509Certificate(leaf.certPem);
  expect({
    subject: x.subject,
    issuer: x.issuer,
    san: x.subjectAltName,
    validFrom: x.validFrom,
    validTo: x.validTo,
    ca: x.ca,
    verifies: x.verify(new X509Certificate(ca.certPem).publicKey),
    fingerprint: x.fingerprint256,
  }).toEqual({
    subject: "O=RocketBun\nCN=leaf",
    issuer: "O=RocketBun\nCN=Test CA",
    san: "DNS:mq.example, IP Address:10.1.2.3, IP Address:0:0:0:0:0:0:0:1",
    validFrom: "Jan  1 00:00:00 2020 GMT",
    validTo: "Jan  1 00:00:00 2120 GMT",
    ca: false,
    verifies: true,
    fingerprint: leaf.fingerprint256,
  });
  expect(new X509Certificate(ca.certPem).ca).toBe(true);
  expect(x.checkPrivateKey((await import("node:crypto")).createPrivateKey(leaf.keyPem))).toBe(true);
});

test("openssl verifies the chain and a self-signed certificate against itself", async () => {
  const dir = await mkdtemp(join(tmpdir(), "rocketbun-x509-"));
  try {
    const ca = await createCertificate({ commonName: "Test CA", ca: true, ...valid });
    const leaf = await createCertificate({ commonName: "leaf", names: ["localhost"], issuer: ca, ...valid });
    const self = await createCertificate({ commonName: "self", names: ["127.0.0.1"], ...valid });
    await writeFile(join(dir, "ca.pem"), ca.certPem);
    await writeFile(join(dir, "leaf.pem"), leaf.certPem);
    await writeFile(join(dir, "self.pem"), self.certPem);
    const verify = (caFile: string, cert: string) =>
      Bun.spawnSync(["openssl", "verify", "-CAfile", join(dir, caFile), join(dir, cert)])
        .stdout.toString()
        .trim();
    expect([verify("ca.pem", "leaf.pem"), verify("self.pem", "self.pem")]).toEqual([
      `${join(dir, "leaf.pem")}: OK`,
      `${join(dir, "self.pem")}: OK`,
    ]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
