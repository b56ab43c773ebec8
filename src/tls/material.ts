/**
 * From TLS config keys to what the remoting layer takes: reads the PEM files (a relative path is
 * under rocketbunHome), checks that each parses and that key and certificate belong together, and
 * names the key at fault when not, before any port is opened.
 */
import { createPrivateKey, X509Certificate } from "node:crypto";
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import type { Logger } from "pino";
import { ConfigError } from "../config/errors.ts";
import type { TlsConfig } from "../config/tls-config.ts";
import type { ClientAuth, ClientTlsOptions, ServerTlsOptions } from "../remoting/tls-options.ts";

function problem(key: string, message: string, cause?: unknown): ConfigError {
  return new ConfigError([{ key, message }], { cause });
}

/** The PEM text of the file a key names; `what` is the PEM label it must hold. */
async function readPem(key: string, path: string, home: string, what: RegExp): Promise<string> {
  const full = resolve(home, path);
  let text: string;
  try {
    text = await readFile(full, "utf8");
  } catch (err) {
    const code = (err as { code?: string }).code;
    const why = code === "ENOENT" ? "file not found" : code === "EACCES" ? "permission denied" : String(err);
    throw problem(key, `${full}: ${why}`, err);
  }
  if (!what.test(text)) throw problem(key, `${full}: no PEM ${what.source.replace(/\\/g, "")} in it`);
  return text;
}

const CERTIFICATE = /-----BEGIN CERTIFICATE-----/;
const PRIVATE_KEY = /-----BEGIN (?:[A-Z]+ )?PRIVATE KEY-----/;

/** Parses both and checks that the key is the certificate's; warns about a certificate out of date. */
function checkPair(
  keys: { cert: string; key: string; password: string },
  pem: { cert: string; key: string; passphrase: string | undefined },
  log: Logger | undefined,
): void {
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(pem.cert);
  } catch (err) {
    throw problem(keys.cert, `not a readable X.509 certificate: ${(err as Error).message}`, err);
  }
  let key: ReturnType<typeof createPrivateKey>;
  try {
    key = createPrivateKey({ key: pem.key, ...(pem.passphrase ? { passphrase: pem.passphrase } : {}) });
  } catch (err) {
    const encrypted = /ENCRYPTED/.test(pem.key);
    const message = encrypted
      ? `cannot decrypt the key: ${pem.passphrase ? `${keys.password} is wrong` : `it is encrypted; set ${keys.password}`}`
      : `not a readable private key: ${(err as Error).message}`;
    throw problem(keys.key, message, err);
  }
  if (!cert.checkPrivateKey(key)) throw problem(keys.key, `is not the private key of ${keys.cert}`);
  const now = Date.now();
  if (Date.parse(cert.validTo) < now || Date.parse(cert.validFrom) > now) {
    log?.warn(
      { key: keys.cert, validFrom: cert.validFrom, validTo: cert.validTo },
      "TLS certificate is out of its validity period: clients that verify it will refuse it",
    );
  }
}

/** Java's test mode generates a throwaway certificate and trusts anyone; RocketBun never does that silently. */
function refuseTestMode(c: TlsConfig): void {
  if (c["tls.test.mode.enable"])
    throw problem(
      "tls.test.mode.enable",
      "true is not supported: RocketBun never makes a certificate silently nor trusts every peer; give tls.server.certPath and tls.server.keyPath (rocketbun start --tls-dev makes a development certificate), or tls.client.authServer=false to take any server certificate",
    );
}

/** The servers' TLS, or undefined when tls.server.mode is disabled. */
export async function serverTlsFrom(
  c: TlsConfig,
  home: string,
  log?: Logger,
): Promise<ServerTlsOptions | undefined> {
  const mode = c["tls.server.mode"];
  if (mode === "disabled") return undefined;
  refuseTestMode(c);
  for (const key of ["tls.server.certPath", "tls.server.keyPath"] as const) {
    if (c[key] === "")
      throw problem(
        key,
        `needed for tls.server.mode=${mode} (rocketbun start --tls-dev makes a development certificate)`,
      );
  }
  const cert = await readPem("tls.server.certPath", c["tls.server.certPath"], home, CERTIFICATE);
  const key = await readPem("tls.server.keyPath", c["tls.server.keyPath"], home, PRIVATE_KEY);
  const passphrase = c["tls.server.keyPassword"] || undefined;
  checkPair(
    { cert: "tls.server.certPath", key: "tls.server.keyPath", password: "tls.server.keyPassword" },
    { cert, key, passphrase },
    log,
  );
  const trust = c["tls.server.trustCertPath"];
  const ca = trust === "" ? undefined : await readPem("tls.server.trustCertPath", trust, home, CERTIFICATE);
  return {
    mode,
    cert,
    key,
    ...(passphrase ? { passphrase } : {}),
    ...(ca ? { ca } : {}),
    clientAuth: c["tls.server.need.client.auth"].toLowerCase() as ClientAuth,
    verifyClient: c["tls.server.authClient"],
  };
}

/** The TLS a role uses as a client (tls.enable or useTLS), or undefined for plaintext. */
export async function clientTlsFrom(
  c: TlsConfig,
  useTLS: boolean,
  home: string,
  log?: Logger,
): Promise<ClientTlsOptions | undefined> {
  if (!c["tls.enable"] && !useTLS) return undefined;
  refuseTestMode(c);
  const certPath = c["tls.client.certPath"];
  const keyPath = c["tls.client.keyPath"];
  if ((certPath === "") !== (keyPath === ""))
    throw problem(
      certPath === "" ? "tls.client.certPath" : "tls.client.keyPath",
      "give both tls.client.certPath and tls.client.keyPath, or neither",
    );
  const trust = c["tls.client.trustCertPath"];
  const ca = trust === "" ? undefined : await readPem("tls.client.trustCertPath", trust, home, CERTIFICATE);
  const verifyServer = c["tls.client.authServer"];
  if (certPath === "") return { ...(ca ? { ca } : {}), verifyServer };
  const cert = await readPem("tls.client.certPath", certPath, home, CERTIFICATE);
  const key = await readPem("tls.client.keyPath", keyPath, home, PRIVATE_KEY);
  const passphrase = c["tls.client.keyPassword"] || undefined;
  checkPair(
    { cert: "tls.client.certPath", key: "tls.client.keyPath", password: "tls.client.keyPassword" },
    { cert, key, passphrase },
    log,
  );
  return { ...(ca ? { ca } : {}), cert, key, ...(passphrase ? { passphrase } : {}), verifyServer };
}
