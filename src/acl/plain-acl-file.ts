/**
 * plain_acl.yml (Java's PlainAccessData): parsed with Bun's YAML parser into checked plain data,
 * and written back as YAML. Keys are RocketMQ's; an unknown key is an error naming it, as Java's
 * typed loader makes it. Writes go to a temp file renamed over the old one, so a reader (our own
 * watcher included) never sees half a file.
 */
import { randomUUID } from "node:crypto";
import { mkdir, readFile, rename, stat, unlink, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { AclConfigError } from "./errors.ts";

/** One account (Java's PlainAccessConfig) as the file spells it. */
export interface PlainAccountConfig {
  accessKey: string;
  secretKey: string;
  whiteRemoteAddress?: string | null;
  admin?: boolean;
  defaultTopicPerm?: string | null;
  defaultGroupPerm?: string | null;
  topicPerms?: string[] | null;
  groupPerms?: string[] | null;
}

export interface PlainAclVersion {
  timestamp: number;
  counter: number;
}

export interface PlainAclData {
  globalWhiteRemoteAddresses: string[];
  accounts: PlainAccountConfig[];
  dataVersion: PlainAclVersion[];
}

const TOP_KEYS = new Set(["globalWhiteRemoteAddresses", "accounts", "dataVersion"]);
const ACCOUNT_KEYS = new Set([
  "accessKey",
  "secretKey",
  "whiteRemoteAddress",
  "admin",
  "defaultTopicPerm",
  "defaultGroupPerm",
  "topicPerms",
  "groupPerms",
]);
const VERSION_KEYS = new Set(["timestamp", "counter"]);

export function emptyAclData(): PlainAclData {
  return { globalWhiteRemoteAddresses: [], accounts: [], dataVersion: [] };
}

type Raw = Record<string, unknown>;

function objectAt(value: unknown, where: string, keys: ReadonlySet<string>): Raw {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new AclConfigError(`${where}: expected a mapping`);
  }
  for (const key of Object.keys(value)) {
    if (!keys.has(key)) throw new AclConfigError(`${where}: unknown key '${key}'`);
  }
  return value as Raw;
}

function listAt(value: unknown, where: string): unknown[] {
  if (value === null || value === undefined) return [];
  if (!Array.isArray(value)) throw new AclConfigError(`${where}: expected a list`);
  return value;
}

/**
 * A scalar read as text. YAML reads `secretKey: 12345678` as a number, while Java's loader keeps the
 * text; a number is taken back as text only when it reads the same in the file (so `0123` or `1e3`
 * are refused rather than silently becoming `123` or `1000`).
 */
function textAt(value: unknown, where: string, source: string): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === "string") return value;
  if (typeof value === "boolean") return String(value);
  if (typeof value === "number") {
    const text = String(value);
    const verbatim = new RegExp(`(^|[\\s:\\-\\[,])${text.replace(/[.+]/g, "\\$&")}(?=$|[\\s,\\]#])`, "m");
    if (Number.isFinite(value) && verbatim.test(source)) return text;
    throw new AclConfigError(`${where}: YAML reads this as the number ${text}; quote it`);
  }
  throw new AclConfigError(`${where}: expected text`);
}

function textListAt(value: unknown, where: string, source: string): string[] {
  return listAt(value, where).map((v, i) => textAt(v, `${where}[${i}]`, source) ?? "");
}

function accountAt(value: unknown, where: string, source: string): PlainAccountConfig {
  const o = objectAt(value, where, ACCOUNT_KEYS);
  const admin = o.admin;
  if (admin !== undefined && admin !== null && typeof admin !== "boolean") {
    const text = String(admin).toLowerCase();
    if (text !== "true" && text !== "false")
      throw new AclConfigError(`${where}.admin: expected true or false`);
  }
  const account: PlainAccountConfig = {
    accessKey: textAt(o.accessKey, `${where}.accessKey`, source) ?? "",
    secretKey: textAt(o.secretKey, `${where}.secretKey`, source) ?? "",
    admin: admin === true || String(admin).toLowerCase() === "true",
  };
  const optional = ["whiteRemoteAddress", "defaultTopicPerm", "defaultGroupPerm"] as const;
  for (const key of optional) {
    const text = textAt(o[key], `${where}.${key}`, source);
    if (text !== null) account[key] = text;
  }
  if (o.topicPerms !== undefined && o.topicPerms !== null)
    account.topicPerms = textListAt(o.topicPerms, `${where}.topicPerms`, source);
  if (o.groupPerms !== undefined && o.groupPerms !== null)
    account.groupPerms = textListAt(o.groupPerms, `${where}.groupPerms`, source);
  return account;
}

function versionAt(value: unknown, where: string): PlainAclVersion {
  const o = objectAt(value, where, VERSION_KEYS);
  const num = (v: unknown, key: string) => {
    if (v === undefined || v === null) return 0;
    if (typeof v !== "number" || !Number.isSafeInteger(v)) {
      throw new AclConfigError(`${where}.${key}: expected a whole number`);
    }
    return v;
  };
  return { timestamp: num(o.timestamp, "timestamp"), counter: num(o.counter, "counter") };
}

/** Parses the file's text; null for a file with no YAML document in it (empty, or comments only). */
export function parsePlainAclDocument(source: string): PlainAclData | null {
  let raw: unknown;
  try {
    raw = Bun.YAML.parse(source);
  } catch (err) {
    throw new AclConfigError(`not valid YAML: ${(err as Error).message}`);
  }
  if (raw === null || raw === undefined) return null;
  const top = objectAt(raw, "the file", TOP_KEYS);
  return {
    globalWhiteRemoteAddresses: textListAt(
      top.globalWhiteRemoteAddresses,
      "globalWhiteRemoteAddresses",
      source,
    ),
    accounts: listAt(top.accounts, "accounts").map((a, i) => accountAt(a, `accounts[${i}]`, source)),
    dataVersion: listAt(top.dataVersion, "dataVersion").map((v, i) => versionAt(v, `dataVersion[${i}]`)),
  };
}

/** Parses the file's text; an empty file is an empty ACL. */
export function parsePlainAcl(source: string): PlainAclData {
  return parsePlainAclDocument(source) ?? emptyAclData();
}

/** The file's text for `data`, keys in Java's order, absent values left out. */
export function formatPlainAcl(data: PlainAclData): string {
  const accounts = data.accounts.map((a) => {
    const out: Raw = { accessKey: a.accessKey, secretKey: a.secretKey };
    if (a.whiteRemoteAddress) out.whiteRemoteAddress = a.whiteRemoteAddress;
    out.admin = a.admin === true;
    if (a.defaultTopicPerm) out.defaultTopicPerm = a.defaultTopicPerm;
    if (a.defaultGroupPerm) out.defaultGroupPerm = a.defaultGroupPerm;
    if (a.topicPerms && a.topicPerms.length > 0) out.topicPerms = a.topicPerms;
    if (a.groupPerms && a.groupPerms.length > 0) out.groupPerms = a.groupPerms;
    return out;
  });
  const doc: Raw = {
    globalWhiteRemoteAddresses: data.globalWhiteRemoteAddresses,
    accounts,
    dataVersion: data.dataVersion,
  };
  return `${Bun.YAML.stringify(doc, null, 2)}\n`;
}

/** What identifies one version of the file on disk: modification time and size. */
export type FileStamp = string;

/** The file's stamp, or null when it does not exist. */
export async function fileStamp(path: string): Promise<FileStamp | null> {
  try {
    const st = await stat(path);
    return `${st.mtimeMs}:${st.size}`;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw err;
  }
}

export interface AclFileRead {
  /** Null when the file holds no YAML document (Java: "No data in file"). */
  data: PlainAclData | null;
  stamp: FileStamp;
}

/** Reads and parses the file; null when it does not exist. Parse problems name the file. */
export async function readPlainAclFile(path: string): Promise<AclFileRead | null> {
  const stamp = await fileStamp(path);
  if (stamp === null) return null;
  let source: string;
  try {
    source = await readFile(path, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw err;
  }
  try {
    return { data: parsePlainAclDocument(source), stamp };
  } catch (err) {
    if (err instanceof AclConfigError) throw new AclConfigError(`${path}: ${err.message}`);
    throw err;
  }
}

/** Replaces the file with `data` (temp file + rename); resolves to the new file's stamp. */
export async function writePlainAclFile(path: string, data: PlainAclData): Promise<FileStamp> {
  await mkdir(dirname(path), { recursive: true });
  const temp = `${path}.${randomUUID().slice(0, 8)}.tmp`;
  try {
    await writeFile(temp, formatPlainAcl(data), { mode: 0o600 });
    await rename(temp, path);
  } catch (err) {
    await unlink(temp).catch(() => {});
    throw err;
  }
  return (await fileStamp(path)) ?? "";
}
