/**
 * The NameServer's view of its configuration: the RocketMQ keys it reads (spec remoting §7.1, §5.1),
 * typed structurally so the config loader's frozen objects fit, and a live, mutable copy that
 * UPDATE_NAMESRV_CONFIG changes and GET_NAMESRV_CONFIG prints. Changed keys are kept in
 * configStorePath, a file of the NameServer's own; the operator's `-c` file is never written.
 */

import { parseProperties } from "../config/properties.ts";
import { ROLE_SECTIONS } from "../config/role-config.ts";
import { blackListOf, NAMESRV_PATH_KEYS, RuntimeChanges } from "../config/runtime-changes.ts";
import { convertValue, type Field, formatValue } from "../config/schema.ts";
import type { StateWriter } from "../config/state-file.ts";
import type { Logger } from "../log.ts";

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

/** The NameServer's ACL. Off, or absent, every request is served unchecked, as in Java. */
export interface NamesrvAclOptions {
  readonly enable: boolean;
  /** plain_acl.yml, absolute. */
  readonly file: string;
  readonly watchIntervalMs: number;
  /** Reads need a signature or a white-listed address too. */
  readonly readNeedSignature: boolean;
}

export interface NameServerConfig {
  namesrv: NamesrvConfigLike;
  server: NamesrvServerConfigLike;
  acl?: NamesrvAclOptions;
  /** Keys UPDATE_NAMESRV_CONFIG changed before this start, as the loader read them. */
  runtimeChanges?: ReadonlyMap<string, string>;
}

export interface LiveConfigDeps {
  readonly log: Logger;
  /** Replaces the atomic file write of configStorePath (tests make it fail). */
  readonly write?: StateWriter;
  readonly retryMs?: number;
}

type Scalar = string | number | boolean;
type Mutable<T> = { -readonly [K in keyof T]: T[K] };

export type ConfigUpdateResult =
  | { ok: true }
  | { ok: false; code: "unparsable" | "black-listed" }
  | { ok: false; code: "invalid"; problem: string };

/** The typed field of a key the NameServer's config file may hold. */
function fieldOf(key: string): Field | undefined {
  for (const section of ROLE_SECTIONS.namesrv)
    if (Object.hasOwn(section.fields, key)) return section.fields[key];
  return undefined;
}

/**
 * The live configuration. `namesrv` and `server` start as copies of what the loader gave (every key
 * it had, not only the ones typed above) and change only through `update`.
 */
export class LiveConfig {
  readonly namesrv: Mutable<NamesrvConfigLike>;
  readonly server: Mutable<NamesrvServerConfigLike>;
  /** Keys an update named that neither object has; Java keeps and prints them too. */
  private readonly extra = new Map<string, string>();
  private readonly changes: RuntimeChanges;
  /** Bumped by every applied update, so cached answers that depend on config can tell. */
  version = 0;

  constructor(config: NameServerConfig, deps: LiveConfigDeps) {
    this.namesrv = { ...config.namesrv };
    this.server = { ...config.server };
    const initial = config.runtimeChanges ?? new Map<string, string>();
    // The loader applied the typed keys already; the others are shown as they were recorded.
    for (const [k, v] of initial) if (this.targetOf(k) === undefined) this.extra.set(k, v);
    this.changes = new RuntimeChanges({
      path: this.namesrv.configStorePath,
      initial,
      log: deps.log,
      write: deps.write,
      retryMs: deps.retryMs,
    });
  }

  /** Where the changed keys are kept. */
  get changesPath(): string {
    return this.changes.path;
  }

  /** The keys changed at run time (this start and earlier ones), sorted. */
  changed(): [string, string][] {
    return this.changes.entries();
  }

  private targetOf(key: string): Record<string, Scalar> | undefined {
    return [this.namesrv, this.server].find((o) => Object.hasOwn(o, key)) as
      | Record<string, Scalar>
      | undefined;
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
   * Applies Java-properties text (UPDATE_NAMESRV_CONFIG), all keys or none. A value is checked as
   * the config file's would be: Java ignores one its setter cannot parse, but a value kept here
   * must also load at the next start.
   */
  update(text: string): ConfigUpdateResult {
    let props: Map<string, string>;
    try {
      props = parseProperties(text);
    } catch {
      return { ok: false, code: "unparsable" };
    }
    const black = blackListOf(this.namesrv.configBlackList, NAMESRV_PATH_KEYS);
    for (const key of props.keys()) if (black.has(key)) return { ok: false, code: "black-listed" };
    const values = new Map<string, Scalar>();
    for (const [key, raw] of props) {
      const field = fieldOf(key);
      if (!field) {
        values.set(key, raw.trim());
        continue;
      }
      const converted = convertValue(field, raw);
      if ("problem" in converted)
        return { ok: false, code: "invalid", problem: `${key}: ${converted.problem}` };
      values.set(key, converted.value as Scalar);
    }
    for (const [key, value] of values) {
      const target = this.targetOf(key);
      if (target) target[key] = value;
      else this.extra.set(key, formatValue(value));
    }
    this.changes.set([...values].map(([k, v]) => [k, formatValue(v)] as const));
    this.version++;
    return { ok: true };
  }

  /**
   * Writes the changed keys to configStorePath. Resolves false when that failed: the change is in
   * effect, the failure is logged, and the write is retried with the latest changes.
   */
  persist(): Promise<boolean> {
    return this.changes.save();
  }

  /** Stops retrying after one last write if the file lags. */
  close(): Promise<boolean> {
    return this.changes.close();
  }
}

function isScalar(v: unknown): v is Scalar {
  return typeof v === "string" || typeof v === "number" || typeof v === "boolean";
}
