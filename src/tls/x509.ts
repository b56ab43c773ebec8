/**
 * X.509 v3 certificates (RFC 5280) made with WebCrypto alone: an ECDSA P-256 key, a certificate
 * self-signed or signed by a given issuer, as PEM. Enough for `--tls-dev`'s development
 * certificate and for the certificate chains tests build; no dependency, no openssl process.
 *
 *   Certificate    = SEQUENCE { tbsCertificate, signatureAlgorithm, signatureValue BIT STRING }
 *   TBSCertificate = SEQUENCE { [0] version v3, serialNumber, signature, issuer Name,
 *                               validity, subject Name, subjectPublicKeyInfo, [3] extensions }
 */
import { isIPv4, isIPv6 } from "node:net";
import {
  bitString,
  boolean,
  explicit,
  implicitPrimitive,
  octetString,
  oid,
  pem,
  sequence,
  set,
  smallInteger,
  time,
  unsignedInteger,
  utf8String,
} from "./der.ts";

const OID = {
  ecPublicKey: "1.2.840.10045.2.1",
  ecdsaWithSha256: "1.2.840.10045.4.3.2",
  commonName: "2.5.4.3",
  organization: "2.5.4.10",
  subjectKeyIdentifier: "2.5.29.14",
  keyUsage: "2.5.29.15",
  subjectAltName: "2.5.29.17",
  basicConstraints: "2.5.29.19",
  authorityKeyIdentifier: "2.5.29.35",
  extKeyUsage: "2.5.29.37",
  serverAuth: "1.3.6.1.5.5.7.3.1",
  clientAuth: "1.3.6.1.5.5.7.3.2",
} as const;

const EC_KEY = { name: "ECDSA", namedCurve: "P-256" } as const;
const EC_SIGN = { name: "ECDSA", hash: "SHA-256" } as const;
const SERIAL_BYTES = 16;
/** v3 is encoded as 2. */
const X509_V3 = 2;
/** keyUsage bits (RFC 5280 §4.2.1.3), first bit the most significant of the first byte. */
const KEY_USAGE_LEAF = Uint8Array.of(0x80); // digitalSignature
const KEY_USAGE_CA = Uint8Array.of(0x86); // digitalSignature, keyCertSign, cRLSign
/** GeneralName tags (RFC 5280 §4.2.1.6): [2] dNSName, [7] iPAddress. */
const SAN_DNS = 2;
const SAN_IP = 7;
const ORGANIZATION = "RocketBun";

export interface CertificateRequest {
  readonly commonName: string;
  /** Host names and IP addresses the certificate is for (subjectAltName). */
  readonly names?: readonly string[];
  readonly notBefore: Date;
  readonly notAfter: Date;
  /** May sign other certificates. */
  readonly ca?: boolean;
  /** Signs the certificate; absent: self-signed. */
  readonly issuer?: Certificate;
}

export interface Certificate {
  readonly certPem: string;
  /** PKCS#8, unencrypted. */
  readonly keyPem: string;
  readonly der: Uint8Array<ArrayBuffer>;
  /** SHA-256 of the DER, as `AB:CD:...` (what `openssl x509 -fingerprint -sha256` prints). */
  readonly fingerprint256: string;
  readonly privateKey: CryptoKey;
  /** The DER subject Name, the issuer Name of what this certificate signs. */
  readonly subjectName: Uint8Array;
  readonly keyId: Uint8Array;
}

export async function createCertificate(request: CertificateRequest): Promise<Certificate> {
  const keys = (await crypto.subtle.generateKey(EC_KEY, true, ["sign", "verify"])) as CryptoKeyPair;
  const spki = new Uint8Array(await crypto.subtle.exportKey("spki", keys.publicKey));
  const point = new Uint8Array(await crypto.subtle.exportKey("raw", keys.publicKey));
  // RFC 5280 §4.2.1.2 method (1): SHA-1 of the public key bits.
  const keyId = new Uint8Array(await crypto.subtle.digest("SHA-1", point));
  const subjectName = name(request.commonName);
  const issuer = request.issuer;
  const signingKey = issuer?.privateKey ?? keys.privateKey;
  const serial = crypto.getRandomValues(new Uint8Array(SERIAL_BYTES));
  serial[0] = (serial[0]! & 0x7f) | 0x01; // positive and never shortened to nothing
  const signatureAlgorithm = sequence(oid(OID.ecdsaWithSha256));
  const tbs = sequence(
    explicit(0, smallInteger(X509_V3)),
    unsignedInteger(serial),
    signatureAlgorithm,
    issuer?.subjectName ?? subjectName,
    sequence(time(request.notBefore), time(request.notAfter)),
    subjectName,
    spki,
    explicit(3, sequence(...extensions(request, keyId, issuer?.keyId ?? keyId))),
  );
  const p1363 = new Uint8Array(await crypto.subtle.sign(EC_SIGN, signingKey, tbs));
  const der = sequence(tbs, signatureAlgorithm, bitString(ecdsaSignatureDer(p1363)));
  const pkcs8 = new Uint8Array(await crypto.subtle.exportKey("pkcs8", keys.privateKey));
  return {
    certPem: pem("CERTIFICATE", der),
    keyPem: pem("PRIVATE KEY", pkcs8),
    der,
    fingerprint256: await fingerprint256(der),
    privateKey: keys.privateKey,
    subjectName,
    keyId,
  };
}

/** SHA-256 of DER bytes as colon-separated upper-case hex. */
export async function fingerprint256(der: Uint8Array<ArrayBuffer>): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", der));
  return [...digest].map((b) => b.toString(16).padStart(2, "0").toUpperCase()).join(":");
}

function name(commonName: string): Uint8Array {
  const attribute = (type: string, value: string) => set(sequence(oid(type), utf8String(value)));
  return sequence(attribute(OID.organization, ORGANIZATION), attribute(OID.commonName, commonName));
}

function extension(id: string, critical: boolean, value: Uint8Array): Uint8Array {
  return critical
    ? sequence(oid(id), boolean(true), octetString(value))
    : sequence(oid(id), octetString(value));
}

function extensions(
  request: CertificateRequest,
  keyId: Uint8Array,
  authorityKeyId: Uint8Array,
): Uint8Array[] {
  const ca = request.ca === true;
  const out = [
    extension(OID.basicConstraints, true, ca ? sequence(boolean(true)) : sequence()),
    extension(OID.keyUsage, true, ca ? bitString(KEY_USAGE_CA, 1) : bitString(KEY_USAGE_LEAF, 7)),
    extension(OID.subjectKeyIdentifier, false, octetString(keyId)),
    extension(OID.authorityKeyIdentifier, false, sequence(implicitPrimitive(0, authorityKeyId))),
  ];
  if (!ca) out.push(extension(OID.extKeyUsage, false, sequence(oid(OID.serverAuth), oid(OID.clientAuth))));
  const names = request.names ?? [];
  if (names.length > 0) out.push(extension(OID.subjectAltName, false, sequence(...names.map(generalName))));
  return out;
}

function generalName(host: string): Uint8Array {
  if (isIPv4(host)) return implicitPrimitive(SAN_IP, Uint8Array.from(host.split(".").map(Number)));
  if (isIPv6(host)) return implicitPrimitive(SAN_IP, ipv6Bytes(host));
  return implicitPrimitive(SAN_DNS, new TextEncoder().encode(host));
}

/** The 16 bytes of an IPv6 address (`::` expanded; an embedded IPv4 tail is not needed here). */
function ipv6Bytes(text: string): Uint8Array {
  const [head = "", tail] = text.split("::");
  const groups = (s: string) => (s === "" ? [] : s.split(":").map((g) => Number.parseInt(g, 16)));
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  const all = [...left, ...new Array(8 - left.length - right.length).fill(0), ...right];
  const out = new Uint8Array(16);
  all.forEach((g, i) => {
    out[2 * i] = g >> 8;
    out[2 * i + 1] = g & 0xff;
  });
  return out;
}

/** WebCrypto signs ECDSA as r‖s (IEEE P1363); X.509 wants SEQUENCE { INTEGER r, INTEGER s }. */
function ecdsaSignatureDer(p1363: Uint8Array): Uint8Array {
  const half = p1363.length / 2;
  return sequence(unsignedInteger(p1363.subarray(0, half)), unsignedInteger(p1363.subarray(half)));
}
