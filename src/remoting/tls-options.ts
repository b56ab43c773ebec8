/**
 * TLS for remoting ports and connections, as plain data: the server modes and client-certificate
 * policies of Java's TlsMode and TlsSystemConfig, and the PEM material a server or client uses.
 * Paths and config keys are the config layer's business; this module sees certificates, not files.
 */

/**
 * Java's TlsMode: `disabled` serves plaintext only (a TLS handshake is closed), `permissive` serves
 * TLS and plaintext on the same port, told apart by the first byte, `enforcing` serves TLS only.
 */
export const TlsMode = {
  DISABLED: "disabled",
  PERMISSIVE: "permissive",
  ENFORCING: "enforcing",
} as const;
export type TlsMode = (typeof TlsMode)[keyof typeof TlsMode];
export const TLS_MODES: readonly TlsMode[] = Object.values(TlsMode);

/** `tls.server.need.client.auth` (Netty's ClientAuth): whether a client must show a certificate. */
export const ClientAuth = { NONE: "none", OPTIONAL: "optional", REQUIRE: "require" } as const;
export type ClientAuth = (typeof ClientAuth)[keyof typeof ClientAuth];
export const CLIENT_AUTH_MODES: readonly ClientAuth[] = Object.values(ClientAuth);

/**
 * The first byte of a TLS record: 0x16 carries a handshake (a ClientHello opens every TLS
 * connection; Java's TlsModeHandler HANDSHAKE_MAGIC_CODE), 0x15 an alert (what a TLS server
 * answers to plaintext). A remoting frame starts with its length's top byte, which is 0x15 or
 * 0x16 only for frames over 352 MB, far beyond the 16 MiB frame limit.
 */
export const TLS_HANDSHAKE_RECORD = 0x16;
export const TLS_ALERT_RECORD = 0x15;

/** PEM text (or its bytes). */
export type Pem = string | Uint8Array;

/** A server's TLS (for the `permissive` and `enforcing` modes; no options means `disabled`). */
export interface ServerTlsOptions {
  readonly mode: typeof TlsMode.PERMISSIVE | typeof TlsMode.ENFORCING;
  /** The certificate chain served (tls.server.certPath). */
  readonly cert: Pem;
  readonly key: Pem;
  /** Decrypts an encrypted key (tls.server.keyPassword). */
  readonly passphrase?: string;
  readonly clientAuth: ClientAuth;
  /**
   * Verify a client's certificate against `ca` (tls.server.authClient). When false, any
   * certificate is taken, as Java's InsecureTrustManagerFactory does.
   */
  readonly verifyClient: boolean;
  /** CAs trusted for client certificates (tls.server.trustCertPath); absent: the system's. */
  readonly ca?: Pem;
}

/** A client's TLS: with these options every TCP connection the client opens uses TLS. */
export interface ClientTlsOptions {
  /** CAs trusted for server certificates (tls.client.trustCertPath); absent: the system's. */
  readonly ca?: Pem;
  /** A client certificate, for servers that ask for one (tls.client.certPath, keyPath). */
  readonly cert?: Pem;
  readonly key?: Pem;
  readonly passphrase?: string;
  /**
   * Verify the server's certificate and that it names the host connected to
   * (tls.client.authServer). Default true; false takes any certificate (Java's default).
   */
  readonly verifyServer?: boolean;
  /** The name to check the certificate against and send as SNI; default: the host connected to. */
  readonly serverName?: string;
}
