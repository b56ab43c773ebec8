/**
 * `rocketbun start --tls-dev`: TLS on every remoting port with a self-signed development
 * certificate under `<home>/tls/` (made on first use, then reused), and its path and fingerprint
 * printed so clients can be told to trust it. The mode stays what the file says, or becomes
 * permissive when the file leaves TLS disabled, so plaintext clients keep working.
 */
import { hostname } from "node:os";
import { join } from "node:path";
import type { LoadedConfig } from "../config/load.ts";
import { type DevCertificate, devCertificatePaths, ensureDevCertificate } from "../tls/dev-certificate.ts";
import type { FlagSpec } from "./args.ts";
import type { CliIo } from "./command.ts";

export const TLS_DEV_FLAG: FlagSpec = {
  long: "tls-dev",
  help: "serve TLS with a self-signed development certificate made under <home>/tls/ (reused; path and fingerprint printed)",
};

/** Where the development certificate lives under a home. */
export const tlsDevDir = (home: string): string => join(home, "tls");

type StartConfigLoader = (overrides: Readonly<Record<string, string>>) => Promise<LoadedConfig<"start">>;

/**
 * Loads `start`'s configuration with the development certificate in place of tls.server.*
 * (flags win over the file). `make: false` (for -p) names the files without touching the disk.
 */
export async function loadWithTlsDev(
  load: StartConfigLoader,
  overrides: Readonly<Record<string, string>>,
  io: CliIo,
  make: boolean,
): Promise<LoadedConfig<"start">> {
  const first = await load(overrides);
  const { broker } = first.config;
  const dir = tlsDevDir(broker.rocketbun.rocketbunHome);
  const paths = devCertificatePaths(dir);
  if (make) {
    const names = hostNames(broker.broker.brokerIP1, broker.nettyServer.bindAddress);
    report(await ensureDevCertificate(dir, names), io);
  }
  const mode = broker.tls["tls.server.mode"];
  return load({
    ...overrides,
    "tls.server.mode": mode === "disabled" ? "permissive" : mode,
    "tls.server.certPath": paths.certPath,
    "tls.server.keyPath": paths.keyPath,
    "tls.server.keyPassword": "",
  });
}

/** Every name clients may connect by: loopback, this host's name, and the addresses configured. */
function hostNames(brokerIP1: string, bindAddress: string): string[] {
  const names = ["localhost", "127.0.0.1", "::1", hostname(), brokerIP1];
  if (bindAddress !== "0.0.0.0" && bindAddress !== "::") names.push(bindAddress);
  return [...new Set(names.filter((n) => n !== ""))];
}

function report(dev: DevCertificate, io: CliIo): void {
  const how = dev.madeBecause === null ? "reused" : `made now (${dev.madeBecause})`;
  io.out(
    [
      `TLS development certificate (self-signed, for development only), ${how}: ${dev.certPath}`,
      `  SHA-256 fingerprint ${dev.fingerprint256}, valid until ${dev.validTo}, for ${dev.names.join(", ")}`,
      `  clients trust it with tls.client.trustCertPath=${dev.certPath} (rocketbun admin --tls-ca ${dev.certPath})`,
    ].join("\n"),
  );
}
