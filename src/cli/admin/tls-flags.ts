/**
 * `rocketbun admin` over TLS: the flags (mqadmin takes -Dtls.enable=true and a tls.properties;
 * these say the same on the command line) and the client TLS options they make. Any of them
 * turns TLS on; the server's certificate is verified unless --tls-no-verify says otherwise.
 */
import { readFile } from "node:fs/promises";
import type { ClientTlsOptions } from "../../remoting/index.ts";
import { type FlagSpec, UsageError } from "../args.ts";

export const TLS_FLAGS: readonly FlagSpec[] = [
  { long: "tls", help: "connect with TLS (Java's tls.enable=true)" },
  {
    long: "tls-ca",
    value: "FILE",
    help: "PEM CA certificates to trust for the servers (default: the system's; the file --tls-dev printed for a development server)",
  },
  { long: "tls-cert", value: "FILE", help: "PEM client certificate, for servers that ask for one" },
  { long: "tls-key", value: "FILE", help: "PEM private key of --tls-cert" },
  {
    long: "tls-no-verify",
    help: "take any server certificate without checking it (Java's default; insecure)",
  },
];

const NAMES = TLS_FLAGS.map((f) => f.long);

async function pem(flag: string, path: string, verb: string): Promise<string> {
  try {
    return await readFile(path, "utf8");
  } catch (err) {
    const code = (err as { code?: string }).code;
    const why = code === "ENOENT" ? "file not found" : code === "EACCES" ? "permission denied" : String(err);
    throw new UsageError(`cannot read --${flag} ${path}: ${why} (see rocketbun ${verb} --help)`);
  }
}

/**
 * The TLS options the flags ask for (after the verb, or before it), or undefined for plaintext.
 * `verb` names the command for messages.
 */
export async function tlsFromFlags(
  flags: ReadonlyMap<string, string>,
  early: ReadonlyMap<string, string>,
  verb: string,
): Promise<ClientTlsOptions | undefined> {
  const get = (name: string) => flags.get(name) ?? early.get(name);
  if (!NAMES.some((name) => get(name) !== undefined)) return undefined;
  const certPath = get("tls-cert");
  const keyPath = get("tls-key");
  if ((certPath === undefined) !== (keyPath === undefined))
    throw new UsageError(`--tls-cert and --tls-key go together (see rocketbun ${verb} --help)`);
  const caPath = get("tls-ca");
  return {
    ...(caPath !== undefined ? { ca: await pem("tls-ca", caPath, verb) } : {}),
    ...(certPath !== undefined ? { cert: await pem("tls-cert", certPath, verb) } : {}),
    ...(keyPath !== undefined ? { key: await pem("tls-key", keyPath, verb) } : {}),
    verifyServer: get("tls-no-verify") === undefined,
  };
}
