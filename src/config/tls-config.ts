/**
 * TLS keys with RocketMQ's names (Java's TlsSystemConfig reads them as system properties or from
 * tls.properties; here they go in the role's file like any other key). Paths are relative to
 * rocketbunHome, as aclPlainFile is. Two defaults differ from Java on purpose: nothing is ever
 * generated silently (Java's tls.test.mode.enable=true makes a throwaway self-signed certificate),
 * and peer certificates are verified unless a key says not to (Java trusts any by default).
 */
import { type ConfigOf, defineSection } from "./schema.ts";

export const TLS_SERVER_MODES = ["disabled", "permissive", "enforcing"] as const;
/** Java's default is permissive with a generated certificate; without a certificate that cannot be. */
export const DEFAULT_TLS_SERVER_MODE = "disabled";
export const TLS_CLIENT_AUTH_MODES = ["none", "optional", "require"] as const;
export const DEFAULT_TLS_SERVER_NEED_CLIENT_AUTH = "none";
/** Verify the client's certificate when one is asked for (Java: false, any certificate is taken). */
export const DEFAULT_TLS_SERVER_AUTH_CLIENT = true;
/** Verify the server's certificate and name (Java: false, any certificate is taken). */
export const DEFAULT_TLS_CLIENT_AUTH_SERVER = true;

/** Netty's ClientAuth.valueOf(upper-cased): Java accepts any case. */
function checkClientAuth(value: string): string | undefined {
  return (TLS_CLIENT_AUTH_MODES as readonly string[]).includes(value.toLowerCase())
    ? undefined
    : `${JSON.stringify(value)} is not one of ${TLS_CLIENT_AUTH_MODES.join(", ")}`;
}

function checkNoConfigFile(value: string): string | undefined {
  return value === ""
    ? undefined
    : "is not read by RocketBun: put its tls.* keys in this file (or pass them as flags) instead";
}

export const tlsConfig = defineSection("tlsConfig", {
  "tls.server.mode": {
    type: "enum",
    default: DEFAULT_TLS_SERVER_MODE,
    enumValues: TLS_SERVER_MODES,
    doc: "disabled: plaintext only; permissive: TLS and plaintext on every remoting port, told apart by the first byte; enforcing: TLS only. Java's default is permissive",
  },
  "tls.server.need.client.auth": {
    type: "string",
    default: DEFAULT_TLS_SERVER_NEED_CLIENT_AUTH,
    check: checkClientAuth,
    doc: "none, optional (a client may show a certificate) or require (it must)",
  },
  "tls.server.certPath": {
    type: "string",
    default: "",
    doc: "PEM certificate chain the servers present; needed unless tls.server.mode=disabled (rocketbun start --tls-dev makes a development one)",
  },
  "tls.server.keyPath": { type: "string", default: "", doc: "PEM private key of tls.server.certPath" },
  "tls.server.keyPassword": {
    type: "string",
    default: "",
    secret: true,
    doc: "password of an encrypted tls.server.keyPath",
  },
  "tls.server.authClient": {
    type: "bool",
    default: DEFAULT_TLS_SERVER_AUTH_CLIENT,
    doc: "verify client certificates against tls.server.trustCertPath; false takes any certificate (Java's default)",
  },
  "tls.server.trustCertPath": {
    type: "string",
    default: "",
    doc: "PEM CAs trusted for client certificates; empty: the system's",
  },
  "tls.enable": {
    type: "bool",
    default: false,
    doc: "connect to other servers (a broker to its NameServers) with TLS; as useTLS",
  },
  "tls.client.certPath": {
    type: "string",
    default: "",
    doc: "PEM certificate shown to servers that ask for one",
  },
  "tls.client.keyPath": { type: "string", default: "", doc: "PEM private key of tls.client.certPath" },
  "tls.client.keyPassword": {
    type: "string",
    default: "",
    secret: true,
    doc: "password of an encrypted tls.client.keyPath",
  },
  "tls.client.authServer": {
    type: "bool",
    default: DEFAULT_TLS_CLIENT_AUTH_SERVER,
    doc: "verify the server's certificate and host name; false takes any certificate (Java's default)",
  },
  "tls.client.trustCertPath": {
    type: "string",
    default: "",
    doc: "PEM CAs trusted for server certificates; empty: the system's",
  },
  "tls.test.mode.enable": {
    type: "bool",
    default: false,
    doc: "Java generates a throwaway certificate and trusts any; RocketBun refuses true while TLS is in use (use --tls-dev)",
  },
  "tls.config.file": {
    type: "string",
    default: "",
    check: checkNoConfigFile,
    doc: "Java's separate TLS file; not read: the keys go in this file",
  },
});

export type TlsConfig = ConfigOf<typeof tlsConfig>;

/** Every TLS key: a run-time config change may not name one (it would weaken the next start). */
export const TLS_KEYS: readonly string[] = Object.keys(tlsConfig.fields);
