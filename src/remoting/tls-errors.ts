/**
 * Names TLS failures for people: OpenSSL/BoringSSL codes and reasons ("SELF_SIGNED_CERT_IN_CHAIN",
 * "WRONG_VERSION_NUMBER") become a sentence saying what is wrong and which setting fixes it.
 */

interface Explanation {
  readonly what: string;
  readonly fix?: string;
}

const TRUST_FIX = "trust the CA that issued it (tls.client.trustCertPath, --tls-ca)";

/** Certificate verification codes (Node's `err.code`, OpenSSL's X509_V_ERR names). */
const BY_CODE: Readonly<Record<string, Explanation>> = {
  DEPTH_ZERO_SELF_SIGNED_CERT: { what: "the certificate is self-signed and not trusted", fix: TRUST_FIX },
  SELF_SIGNED_CERT_IN_CHAIN: {
    what: "the certificate chain ends in a self-signed CA that is not trusted",
    fix: TRUST_FIX,
  },
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: { what: "the certificate's issuer is not trusted", fix: TRUST_FIX },
  UNABLE_TO_GET_ISSUER_CERT: { what: "the certificate's issuer is not trusted", fix: TRUST_FIX },
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: { what: "the certificate's issuer is not trusted", fix: TRUST_FIX },
  CERT_HAS_EXPIRED: { what: "the certificate has expired", fix: "renew the certificate" },
  CERT_NOT_YET_VALID: {
    what: "the certificate is not valid yet",
    fix: "check the clocks, or the certificate's start date",
  },
  ERR_TLS_CERT_ALTNAME_INVALID: {
    what: "the certificate does not name the host connected to (hostname mismatch)",
    fix: "connect by a name the certificate lists, or reissue it with that name",
  },
  CERT_REVOKED: { what: "the certificate is revoked" },
  CERT_SIGNATURE_FAILURE: { what: "the certificate's signature is invalid" },
};

/** Reasons found in BoringSSL's messages ("error:...:SSL routines:OPENSSL_internal:REASON"). */
const BY_REASON: ReadonlyArray<readonly [RegExp, Explanation]> = [
  [
    /CERTIFICATE_REQUIRED|PEER_DID_NOT_RETURN_A_CERTIFICATE/,
    {
      what: "the server requires a client certificate and none was sent",
      fix: "give the client a certificate (tls.client.certPath and tls.client.keyPath, --tls-cert/--tls-key)",
    },
  ],
  [
    /WRONG_VERSION_NUMBER|HTTP_REQUEST|UNKNOWN_PROTOCOL/,
    {
      what: "the peer does not speak TLS (plaintext on a TLS connection)",
      fix: "use TLS on both sides, or tls.server.mode=permissive",
    },
  ],
  [
    /ALERT_BAD_CERTIFICATE|ALERT_UNKNOWN_CA|ALERT_CERTIFICATE_UNKNOWN/,
    { what: "the peer refused our certificate" },
  ],
  [/NO_SHARED_CIPHER|HANDSHAKE_FAILURE|UNSUPPORTED_PROTOCOL/, { what: "no TLS version or cipher in common" }],
  [
    /disconnected before secure TLS connection|ECONNRESET|socket hang up/i,
    {
      what: "the connection closed during the TLS handshake",
      fix: "check that the server has TLS on (tls.server.mode permissive or enforcing)",
    },
  ],
];

/** Codes that mean "issuer unknown"; for a self-signed certificate its own issuer is the unknown one. */
const ISSUER_UNKNOWN = new Set([
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_GET_ISSUER_CERT",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
]);

/** What the failed handshake showed of the peer's certificate. */
export interface PeerFacts {
  /** Its issuer is its subject. */
  readonly selfSigned?: boolean;
}

function explain(err: Error, peer: PeerFacts): Explanation | undefined {
  const code = (err as { code?: unknown }).code;
  if (typeof code === "string" && ISSUER_UNKNOWN.has(code) && peer.selfSigned)
    return BY_CODE.DEPTH_ZERO_SELF_SIGNED_CERT;
  if (typeof code === "string" && BY_CODE[code]) return BY_CODE[code];
  for (const [pattern, explanation] of BY_REASON) if (pattern.test(err.message)) return explanation;
  return undefined;
}

/** One sentence for a failed handshake: what went wrong, the library's words, and the fix. */
export function describeTlsFailure(err: Error | null | undefined, peer: PeerFacts = {}): string {
  if (!err) return "TLS handshake failed";
  const explanation = explain(err, peer);
  const code = (err as { code?: unknown }).code;
  const detail = typeof code === "string" && code !== err.message ? `${err.message} (${code})` : err.message;
  if (!explanation) return `TLS handshake failed: ${detail}`;
  const fix = explanation.fix ? `; ${explanation.fix}` : "";
  return `TLS handshake failed: ${explanation.what} [${detail}]${fix}`;
}

/** Why a socket closed on an error; a TLS error (an alert from the peer) is named like a handshake failure. */
export function socketErrorReason(err: Error): string {
  const code = (err as { code?: unknown }).code;
  if (code === "EPROTO" || /SSL routines|TLSV1_ALERT/.test(err.message)) {
    return describeTlsFailure(err).replace(/^TLS handshake failed/, "TLS error");
  }
  return `socket error: ${err.message}`;
}

/** True when a peer certificate (node's PeerCertificate shape) names itself as its issuer. */
export function isSelfSigned(cert: { subject?: object; issuer?: object } | null | undefined): boolean {
  if (!cert?.subject || !cert.issuer) return false;
  return JSON.stringify(cert.subject) === JSON.stringify(cert.issuer);
}
