/**
 * Certificates for TLS tests, made in the test process with src/tls/x509.ts (WebCrypto, no files,
 * no openssl): a CA and what it issues, plus the broken ones each verification failure needs.
 * Everything valid lasts 100 years; made once per process.
 */
import { type Certificate, createCertificate } from "../../src/tls/x509.ts";

const DAY_MS = 86_400_000;
const CENTURY_MS = 100 * 365 * DAY_MS;

export interface TestCertificates {
  /** The CA that issues `server` and `client`. */
  readonly ca: Certificate;
  /** For localhost, 127.0.0.1 and ::1, issued by `ca`. */
  readonly server: Certificate;
  /** A client certificate issued by `ca`. */
  readonly client: Certificate;
  /** A CA nobody trusts, and a client certificate it issued. */
  readonly otherCa: Certificate;
  readonly strangerClient: Certificate;
  /** Self-signed, for 127.0.0.1. */
  readonly selfSigned: Certificate;
  /** Issued by `ca` for a name that is not the host connected to. */
  readonly wrongHost: Certificate;
  /** Issued by `ca`, expired yesterday. */
  readonly expired: Certificate;
}

let made: Promise<TestCertificates> | undefined;

export function testCertificates(): Promise<TestCertificates> {
  made ??= make();
  return made;
}

async function make(): Promise<TestCertificates> {
  const now = Date.now();
  const valid = { notBefore: new Date(now - DAY_MS), notAfter: new Date(now + CENTURY_MS) };
  const local = ["localhost", "127.0.0.1", "::1"];
  const ca = await createCertificate({ commonName: "Test CA", ca: true, ...valid });
  const otherCa = await createCertificate({ commonName: "Other CA", ca: true, ...valid });
  return {
    ca,
    otherCa,
    server: await createCertificate({ commonName: "server", names: local, issuer: ca, ...valid }),
    client: await createCertificate({ commonName: "client", issuer: ca, ...valid }),
    strangerClient: await createCertificate({ commonName: "stranger", issuer: otherCa, ...valid }),
    selfSigned: await createCertificate({ commonName: "self", names: local, ...valid }),
    wrongHost: await createCertificate({
      commonName: "elsewhere",
      names: ["elsewhere.example"],
      issuer: ca,
      ...valid,
    }),
    expired: await createCertificate({
      commonName: "expired",
      names: local,
      issuer: ca,
      notBefore: new Date(now - 10 * DAY_MS),
      notAfter: new Date(now - DAY_MS),
    }),
  };
}
