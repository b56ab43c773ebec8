/**
 * A TLS server's settings for both of its TLS stacks (Bun's native listener in `enforcing` mode,
 * node:tls over the accepted socket in `permissive` mode), and the one client-certificate check
 * both apply once the handshake is done (tls.server.need.client.auth, tls.server.authClient).
 */
import type { TLSOptions } from "bun";
import { ClientAuth, type ServerTlsOptions } from "./tls-options.ts";

/** What a finished handshake tells about the client's certificate. */
export interface PeerCertificateFacts {
  /** The certificate verified against the trusted CAs. */
  readonly authorized: boolean;
  /** Why it did not verify (or why there is none). */
  readonly authorizationError: Error | string | null | undefined;
  /** The client presented a certificate at all. */
  readonly presented: boolean;
}

/**
 * Options common to both stacks. The TLS library itself refuses what it can (so the client gets
 * an alert naming the problem, e.g. "certificate required"): a missing or untrusted certificate
 * when one is required and verified. Every other case completes the handshake and is decided by
 * `clientCertificateProblem`.
 */
export function serverTlsSettings(tls: ServerTlsOptions): TLSOptions {
  const requestCert = tls.clientAuth !== ClientAuth.NONE;
  return {
    cert: tls.cert,
    key: tls.key,
    ...(tls.passphrase ? { passphrase: tls.passphrase } : {}),
    ...(tls.ca ? { ca: tls.ca } : {}),
    requestCert,
    rejectUnauthorized: tls.clientAuth === ClientAuth.REQUIRE && tls.verifyClient,
  };
}

/** Why this client may not stay, or undefined when it may. */
export function clientCertificateProblem(
  tls: ServerTlsOptions,
  peer: PeerCertificateFacts,
): string | undefined {
  if (tls.clientAuth === ClientAuth.NONE) return undefined;
  if (!peer.presented) {
    return tls.clientAuth === ClientAuth.REQUIRE
      ? "the client sent no certificate (tls.server.need.client.auth=require)"
      : undefined;
  }
  if (!tls.verifyClient || peer.authorized) return undefined;
  const why = peer.authorizationError;
  const reason = why instanceof Error ? why.message : (why ?? "not trusted");
  return `the client's certificate is not trusted: ${reason} (tls.server.trustCertPath)`;
}

/** True when `getPeerCertificate()` returned a certificate (an empty object means none). */
export function hasCertificate(cert: object | null | undefined): boolean {
  return cert !== null && cert !== undefined && Object.keys(cert).length > 0;
}
