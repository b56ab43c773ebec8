/**
 * Config keys an admin changed at run time (UPDATE_NAMESRV_CONFIG, UPDATE_BROKER_CONFIG), kept in
 * a file of the role's own, never in the operator's `-c` file. At the next start the loader applies
 * them over that file; command-line flags and ROCKETBUN_* variables still win (see load.ts).
 */
import type { Logger } from "../log.ts";
import { stringifyProperties } from "./properties.ts";
import { StateFile, type StateWriter } from "./state-file.ts";
import { TLS_KEYS } from "./tls-config.ts";

/**
 * Access-control keys: a request must never switch off, or redirect, the check it just passed, not
 * even for the next start. Set them in the -c file.
 */
const ACL_KEYS: readonly string[] = [
  "aclEnable",
  "aclPlainFile",
  "aclWatchIntervalMs",
  "aclReadNeedSignature",
  "innerClientAuthenticationCredentials",
];

/**
 * Keys a run-time change may never name, whatever configBlackList says: each would send the
 * role's files (or the next start's) somewhere else, change its access control, or (tls.*) weaken
 * the next start's transport security. RocketMQ 5.2+ refuses Java's path keys; Java's TLS settings
 * are not config keys at all.
 */
export const NAMESRV_PATH_KEYS: readonly string[] = [
  "configBlackList",
  "configStorePath",
  "kvConfigPath",
  "rocketmqHome",
  "rocketbunHome",
  ...ACL_KEYS,
  ...TLS_KEYS,
];
export const BROKER_PATH_KEYS: readonly string[] = [
  "configBlackList",
  "brokerConfigPath",
  "rocketmqHome",
  "rocketbunHome",
  "storePathRootDir",
  "storePathCommitLog",
  ...ACL_KEYS,
  ...TLS_KEYS,
];

/** `configBlackList` (`a;b;c`) plus the keys that are always refused. */
export function blackListOf(configured: string, always: readonly string[]): Set<string> {
  const keys = configured
    .split(";")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  return new Set([...always, ...keys]);
}

const HEADER = [
  "Configuration changed at run time; applied over the -c file at every start.",
  "Written by RocketBun: delete a line to return to the value of the -c file.",
];

export interface RuntimeChangesOptions {
  readonly path: string;
  /** The changes read at start (the loader's `runtimeChanges`). */
  readonly initial?: ReadonlyMap<string, string>;
  readonly log: Logger;
  readonly write?: StateWriter;
  readonly retryMs?: number;
}

export class RuntimeChanges {
  private readonly changes: Map<string, string>;
  private readonly file: StateFile;

  constructor(options: RuntimeChangesOptions) {
    this.changes = new Map(options.initial ?? []);
    this.file = new StateFile({
      path: options.path,
      render: () => stringifyProperties(this.entries(), HEADER),
      log: options.log,
      what: "runtime config changes",
      write: options.write,
      retryMs: options.retryMs,
    });
  }

  get path(): string {
    return this.file.path;
  }

  /** Every changed key with its value, sorted by key. */
  entries(): [string, string][] {
    return [...this.changes].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  }

  /** Records changes; `save` writes them. */
  set(changes: Iterable<readonly [string, string]>): void {
    for (const [k, v] of changes) this.changes.set(k, v);
    this.file.markDirty();
  }

  /**
   * Writes the file if it lags. Resolves false when the write failed: the changes stay recorded,
   * and the write is retried with everything recorded by then.
   */
  save(): Promise<boolean> {
    return this.file.save();
  }

  close(): Promise<boolean> {
    return this.file.close();
  }
}
