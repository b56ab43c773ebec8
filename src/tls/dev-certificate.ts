/**
 * The development certificate of `rocketbun start --tls-dev`: self-signed, made on first use
 * under `<home>/tls/`, reused while it is valid and names every host it must, made again
 * otherwise. Only ever made on request (never as a silent fallback, unlike Java's test mode).
 */
import { createPrivateKey, X509Certificate } from "node:crypto";
import { chmod, mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { isIP } from "node:net";
import { join } from "node:path";
import { createCertificate, fingerprint256 } from "./x509.ts";

export const DEV_CERT_FILE = "dev-cert.pem";
export const DEV_KEY_FILE = "dev-key.pem";
/** 825 days: the longest validity clients that cap it (Apple's) accept for a server certificate. */
export const DEV_CERT_VALIDITY_DAYS = 825;
/** A certificate closer than this to its end is made again. */
export const DEV_CERT_RENEW_DAYS = 30;
const DAY_MS = 86_400_000;
/** Backdated a little, so a client whose clock is slightly behind still accepts it. */
const NOT_BEFORE_SLACK_MS = 60 * 60 * 1000;
const KEY_MODE = 0o600;
const DIR_MODE = 0o700;
const COMMON_NAME = "RocketBun development certificate";

export interface DevCertificate {
  readonly certPath: string;
  readonly keyPath: string;
  readonly fingerprint256: string;
  readonly validTo: string;
  readonly names: readonly string[];
  /** Why it was made now ("none yet", "expires ...", "does not name ..."), or null when reused. */
  readonly madeBecause: string | null;
}

export function devCertificatePaths(dir: string): { certPath: string; keyPath: string } {
  return { certPath: join(dir, DEV_CERT_FILE), keyPath: join(dir, DEV_KEY_FILE) };
}

/** The development certificate in `dir` for `names` (host names and IP addresses), made if need be. */
export async function ensureDevCertificate(
  dir: string,
  names: readonly string[],
  now = Date.now(),
): Promise<DevCertificate> {
  const { certPath, keyPath } = devCertificatePaths(dir);
  const existing = await readExisting(certPath, keyPath);
  const problem = "cert" in existing ? whyRemake(existing.cert, names, now) : existing.problem;
  if ("cert" in existing && problem === null) {
    return {
      certPath,
      keyPath,
      fingerprint256: await fingerprint256(new Uint8Array(existing.cert.raw)),
      validTo: existing.cert.validTo,
      names: existing.cert.subjectAltName?.split(", ") ?? [],
      madeBecause: null,
    };
  }
  const made = await createCertificate({
    commonName: COMMON_NAME,
    names,
    notBefore: new Date(now - NOT_BEFORE_SLACK_MS),
    notAfter: new Date(now + DEV_CERT_VALIDITY_DAYS * DAY_MS),
  });
  await mkdir(dir, { recursive: true, mode: DIR_MODE });
  // The key first and private from its first byte; each file replaced whole by a rename.
  await replace(keyPath, made.keyPem, KEY_MODE);
  await replace(certPath, made.certPem, 0o644);
  const cert = new X509Certificate(made.certPem);
  return {
    certPath,
    keyPath,
    fingerprint256: made.fingerprint256,
    validTo: cert.validTo,
    names: cert.subjectAltName?.split(", ") ?? [],
    madeBecause: problem,
  };
}

const UNUSABLE = "the last one is unreadable, or its key does not match";

async function readExisting(
  certPath: string,
  keyPath: string,
): Promise<{ cert: X509Certificate } | { problem: string }> {
  let pems: string[];
  try {
    pems = await Promise.all([readFile(certPath, "utf8"), readFile(keyPath, "utf8")]);
  } catch (err) {
    return { problem: (err as { code?: string }).code === "ENOENT" ? "none yet" : UNUSABLE };
  }
  try {
    const cert = new X509Certificate(pems[0]!);
    return cert.checkPrivateKey(createPrivateKey(pems[1]!)) ? { cert } : { problem: UNUSABLE };
  } catch {
    return { problem: UNUSABLE };
  }
}

function whyRemake(cert: X509Certificate, names: readonly string[], now: number): string | null {
  const validTo = Date.parse(cert.validTo);
  if (validTo - now < DEV_CERT_RENEW_DAYS * DAY_MS) return `the last one expires ${cert.validTo}`;
  if (Date.parse(cert.validFrom) > now) return `the last one is valid only from ${cert.validFrom}`;
  const missing = names.filter((n) => (isIP(n) ? cert.checkIP(n) : cert.checkHost(n)) === undefined);
  return missing.length > 0 ? `the last one does not name ${missing.join(", ")}` : null;
}

async function replace(path: string, text: string, mode: number): Promise<void> {
  const tmp = `${path}.tmp`;
  await writeFile(tmp, text, { mode });
  await chmod(tmp, mode); // the umask may have narrowed or the file existed with other bits
  await rename(tmp, path);
}
