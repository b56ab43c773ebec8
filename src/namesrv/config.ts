/**
 * The NameServer's view of its configuration: the RocketMQ keys it reads (spec remoting §7.1, §5.1),
 * typed structurally so the config loader's frozen objects fit, and a live, mutable copy that
 * UPDATE_NAMESRV_CONFIG changes and GET_NAMESRV_CONFIG prints.
 */
import { mkdir, rename, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { parseProperties, stringifyProperties } from "../config/properties.ts";

/** NamesrvConfig keys the NameServer reads, with RocketMQ's names. */
export interface NamesrvConfigLike {
  readonly rocketmqHome: string;
  readonly kvConfigPath: string;
  readonly configStorePath: string;
  readonly clusterTest: boolean;
  readonly orderMessageEnable: boolean;
  readonly returnOrderTopicConfigToBroker: boolean;
  readonly clientRequestThreadPoolNums: number;
  readonly clientRequestThreadPoolQueueCapacity: number;
  readonly defaultThreadPoolNums: number;
  readonly defaultThreadPoolQueueCapacity: number;
  /** Milliseconds between broker-expiry scans. */
  readonly scanNotActiveBrokerInterval: number;
  readonly supportActingMaster: boolean;
  readonly enableAllTopicList: boolean;
  readonly enableTopicList: boolean;
  readonly needWaitForService: boolean;
  readonly waitSecondsForService: number;
  readonly deleteTopicWithBrokerRegistration: boolean;
  readonly configBlackList: string;
}

/** NettyServerConfig keys the NameServer's remoting server reads. */
export interface NamesrvServerConfigLike {
  readonly listenPort: number;
  readonly bindAddress: string;
  readonly serverChannelMaxIdleTimeSeconds: number;
  readonly serverOnewaySemaphoreValue?: number;
  readonly serverAsyncSemaphoreValue?: number;
}

export interface NameServerConfig {
  namesrv: NamesrvConfigLike;
  server: NamesrvServerConfigLike;
}

type Scalar = string | number | boolean;
type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** Keys UPDATE_NAMESRV_CONFIG always refuses, whatever configBlackList says (5.2.0+). */
const ALWAYS_BLACK_LISTED = ["configBlackList", "configStorePath", "kvConfigPath", "rocketmqHome"];

export type ConfigUpdateResult = { ok: true } | { ok: false; code: "unparsable" | "black-listed" };

/**
 * The live configuration. `namesrv` and `server` start as copies of what the loader gave (every key
 * it had, not only the ones typed above) and change only through `update`.
 */
export class LiveConfig {
  readonly namesrv: Mutable<NamesrvConfigLike>;
  readonly server: Mutable<NamesrvServerConfigLike>;
  /** Keys an update named that no config object has; Java keeps and prints them too. */
  private readonly extra = new Map<string, string>();
  /** Bumped by every applied update, so cached answers that depend on config can tell. */
  version = 0;

  constructor(config: NameServerConfig) {
    this.namesrv = { ...config.namesrv };
    this.server = { ...config.server };
  }

  private blackList(): Set<string> {
    const configured = this.namesrv.configBlackList.split(";").map((s) => s.trim());
    return new Set([...ALWAYS_BLACK_LISTED, ...configured.filter((s) => s !== "")]);
  }

  /** Every key and value, sorted by key (GET_NAMESRV_CONFIG's body, spec §7.5). */
  entries(): [string, string][] {
    const all = new Map<string, string>();
    for (const obj of [this.namesrv, this.server] as Record<string, unknown>[]) {
      for (const [k, v] of Object.entries(obj)) if (isScalar(v)) all.set(k, String(v));
    }
    for (const [k, v] of this.extra) if (!all.has(k)) all.set(k, v);
    return [...all.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  }

  /** `key=value` lines, sorted; Java's getAllConfigsFormatString. */
  format(): string {
    return this.entries()
      .map(([k, v]) => `${k}=${v}\n`)
      .join("");
  }

  /**
   * Applies Java-properties text (UPDATE_NAMESRV_CONFIG). A value that does not parse as its key's
   * type is ignored, as Java's reflective setters ignore it. Returns whether anything was refused.
   */
  update(text: string): ConfigUpdateResult {
    let props: Map<string, string>;
    try {
      props = parseProperties(text);
    } catch {
      return { ok: false, code: "unparsable" };
    }
    const black = this.blackList();
    for (const key of props.keys()) if (black.has(key)) return { ok: false, code: "black-listed" };
    for (const [key, raw] of props) {
      const target = [this.namesrv, this.server].find((o) => Object.hasOwn(o, key)) as
        | Record<string, Scalar>
        | undefined;
      if (!target) {
        this.extra.set(key, raw.trim());
        continue;
      }
      const parsed = convertLike(target[key], raw.trim());
      if (parsed !== undefined) target[key] = parsed;
    }
    this.version++;
    return { ok: true };
  }

  /** Writes every entry to configStorePath (temp file, then rename). */
  async persist(): Promise<void> {
    const path = this.namesrv.configStorePath;
    if (!path) return;
    await mkdir(dirname(path), { recursive: true });
    const tmp = `${path}.tmp`;
    await writeFile(tmp, stringifyProperties(this.entries()));
    await rename(tmp, path);
  }
}

function isScalar(v: unknown): v is Scalar {
  return typeof v === "string" || typeof v === "number" || typeof v === "boolean";
}

const INT = /^[+-]?\d+$/;

/** Converts `raw` to the type of `current`, or undefined when it does not parse. */
function convertLike(current: Scalar | undefined, raw: string): Scalar | undefined {
  switch (typeof current) {
    case "number":
      return INT.test(raw) && Number.isSafeInteger(Number(raw)) ? Number(raw) : undefined;
    case "boolean":
      // Java's Boolean.parseBoolean: anything but "true" is false.
      return raw.toLowerCase() === "true";
    default:
      return raw;
  }
}
