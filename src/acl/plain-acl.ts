/**
 * PlainAcl: the broker's ACL 1.0 (Java's PlainPermissionManager for one plain_acl.yml). Loads the
 * file, puts it in force, reloads it when its modification time or size changes (polled, as
 * Java's AclFileWatchService does), and applies the admin updates by rewriting it. A file that
 * cannot be used is reported and the ACL in force stays; at start it stops the broker.
 * File work runs one operation at a time (Java's `synchronized` admin methods).
 */
import type { Logger } from "pino";
import { type DataVersion, nextDataVersion } from "../protocol/route/data-version.ts";
import type { RemotingCommand } from "../remoting/command.ts";
import type { Connection } from "../remoting/connection.ts";
import type { RequestGuard } from "../remoting/processor-registry.ts";
import { requestCodeName } from "../remoting/request-code.ts";
import { type AclSnapshot, checkAccountKeys, compileAcl } from "./acl-snapshot.ts";
import { AclField } from "./constants.ts";
import { AclConfigError, AclDenied } from "./errors.ts";
import { checkResourcePerms } from "./permission.ts";
import {
  emptyAclData,
  type FileStamp,
  fileStamp,
  type PlainAccountConfig,
  type PlainAclData,
  readPlainAclFile,
  writePlainAclFile,
} from "./plain-acl-file.ts";
import { PlainAccessValidator } from "./validator.ts";

export interface PlainAclOptions {
  /** Absolute path of plain_acl.yml. */
  file: string;
  watchIntervalMs: number;
  log: Logger;
}

/** An UPDATE_AND_CREATE_ACL_CONFIG: absent (null) fields keep the account's current values. */
export interface AccountUpdate {
  accessKey: string;
  secretKey: string | null;
  whiteRemoteAddress: string | null;
  admin: boolean | null;
  defaultTopicPerm: string | null;
  defaultGroupPerm: string | null;
  topicPerms: string[] | null;
  groupPerms: string[] | null;
}

/** One role's rules over the validator: returns when the request may run, else throws AclDenied. */
export type AclCheck = (
  validator: PlainAccessValidator,
  request: RemotingCommand,
  connection: Connection,
) => void;

/** Refusals are logged at most once a second, with a count of the ones left out. */
const DENIAL_LOG_INTERVAL_MS = 1000;

export class PlainAcl {
  readonly file: string;
  private readonly validator = new PlainAccessValidator();
  private readonly log: Logger;
  private readonly watchIntervalMs: number;
  private version: DataVersion = { stateVersion: 0, timestamp: Date.now(), counter: 0 };
  /** The stamp of the file last loaded or tried, so a broken file is reported once. */
  private stamp: FileStamp | null = null;
  private serial: Promise<unknown> = Promise.resolve();
  private timer: ReturnType<typeof setInterval> | null = null;
  private lastDenialLogAt = 0;
  private deniedSinceLog = 0;

  constructor(options: PlainAclOptions) {
    this.file = options.file;
    this.watchIntervalMs = options.watchIntervalMs;
    this.log = options.log;
  }

  /** The ACL in force (for tests and diagnostics). */
  get snapshot(): AclSnapshot {
    return this.validator.current;
  }

  /**
   * Loads the file, creating an empty one when there is none (as Java does: nothing is allowed
   * until accounts are added). Throws AclConfigError for a file that cannot be used.
   */
  open(): Promise<void> {
    return this.queue(async () => {
      const read = await readPlainAclFile(this.file);
      if (read === null) {
        const stamp = await writePlainAclFile(this.file, emptyAclData());
        this.install(emptyAclData(), compileAcl(emptyAclData()), stamp);
        this.log.warn(
          { file: this.file },
          "aclEnable is on and the ACL file did not exist: created it empty, so every request that needs an account is refused until accounts are added",
        );
        return;
      }
      const data = read.data ?? emptyAclData();
      this.install(data, this.compile(data), read.stamp);
    });
  }

  /**
   * A pre-dispatch check (a RequestGuard) running `check` against the ACL in force: AclDenied
   * answers NO_PERMISSION and is logged, at most once a second, naming `server`.
   */
  guardWith(server: string, check: AclCheck): RequestGuard {
    return (request, connection) => {
      try {
        check(this.validator, request, connection);
      } catch (err) {
        if (err instanceof AclDenied) this.noteDenied(server, request, connection, err);
        throw err;
      }
    };
  }

  /** The broker's check (Java's PlainPermissionManager.validate). */
  readonly guard: RequestGuard = this.guardWith("broker", (validator, request, connection) =>
    validator.check(request, connection),
  );

  startWatching(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.reloadIfChanged(), this.watchIntervalMs);
    this.timer.unref?.();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Reloads the file if it changed on disk; resolves to whether a new ACL is in force. */
  reloadIfChanged(): Promise<boolean> {
    return this.queue(async () => {
      const now = await fileStamp(this.file).catch(() => null);
      if (now === this.stamp) return false;
      if (now === null) {
        this.stamp = null;
        this.log.error({ file: this.file }, "ACL file is gone; the ACL loaded before stays in force");
        return false;
      }
      try {
        const read = await readPlainAclFile(this.file);
        if (read === null) return false;
        if (read.data === null) {
          // Java skips an empty file on reload; it is also what a reader may see mid-rewrite.
          this.stamp = read.stamp;
          this.log.warn({ file: this.file }, "ACL file is empty; the ACL loaded before stays in force");
          return false;
        }
        this.install(read.data, this.compile(read.data), read.stamp);
        return true;
      } catch (err) {
        this.stamp = now;
        this.log.error(
          { file: this.file, err: (err as Error).message },
          "ACL file NOT reloaded: it cannot be used; the ACL loaded before stays in force",
        );
        return false;
      }
    });
  }

  /** UPDATE_AND_CREATE_ACL_CONFIG (Java's updateAccessConfig): merges into the account or adds one. */
  async updateAccount(update: AccountUpdate): Promise<void> {
    checkAccountKeys({ accessKey: update.accessKey, secretKey: update.secretKey ?? "" });
    checkResourcePerms(update.topicPerms ?? undefined);
    checkResourcePerms(update.groupPerms ?? undefined);
    await this.rewrite((data) => {
      const at = data.accounts.findIndex((a) => a.accessKey === update.accessKey);
      const account: PlainAccountConfig =
        at >= 0 ? data.accounts[at]! : { accessKey: update.accessKey, secretKey: "" };
      if (update.secretKey) account.secretKey = update.secretKey;
      if (update.whiteRemoteAddress !== null) account.whiteRemoteAddress = update.whiteRemoteAddress;
      if (update.admin !== null) account.admin = update.admin;
      if (update.defaultTopicPerm) account.defaultTopicPerm = update.defaultTopicPerm;
      if (update.defaultGroupPerm) account.defaultGroupPerm = update.defaultGroupPerm;
      if (update.topicPerms !== null) account.topicPerms = update.topicPerms;
      if (update.groupPerms !== null) account.groupPerms = update.groupPerms;
      if (at < 0) data.accounts.push(account);
      return data;
    });
  }

  /** DELETE_ACL_CONFIG: false when there is no such account. */
  deleteAccount(accessKey: string): Promise<boolean> {
    if (accessKey === "") return Promise.resolve(false);
    return this.rewrite((data) => {
      const at = data.accounts.findIndex((a) => a.accessKey === accessKey);
      if (at < 0) return null;
      data.accounts.splice(at, 1);
      return data;
    });
  }

  /** UPDATE_GLOBAL_WHITE_ADDRS_CONFIG; `file`, when given, must be the file in force. */
  async updateGlobalWhiteAddrs(addresses: string[], file: string | null): Promise<void> {
    if (file && file !== this.file) {
      throw new AclConfigError(`Parameter value ${file} is not the ACL file in use, ${this.file}`);
    }
    await this.rewrite((data) => {
      data.globalWhiteRemoteAddresses = addresses;
      return data;
    });
  }

  /** GET_BROKER_CLUSTER_ACL_INFO: the file's DataVersion, alone and by file path. */
  versionInfo(): { version: DataVersion; byFile: Record<string, DataVersion> } {
    return { version: this.version, byFile: { [this.file]: this.version } };
  }

  /**
   * Reads the file as it is now, applies `change` (null: nothing to do), checks the result compiles,
   * writes it with the next DataVersion and puts it in force.
   */
  private rewrite(change: (data: PlainAclData) => PlainAclData | null): Promise<boolean> {
    return this.queue(async () => {
      const current = (await readPlainAclFile(this.file))?.data ?? emptyAclData();
      const next = change(structuredClone(current));
      if (next === null) return false;
      const [first] = current.dataVersion;
      const bumped = nextDataVersion({
        stateVersion: 0,
        timestamp: first?.timestamp ?? 0,
        counter: first?.counter ?? 0,
      });
      next.dataVersion = [{ timestamp: Number(bumped.timestamp), counter: Number(bumped.counter) }];
      const snapshot = compileAcl(next);
      const stamp = await writePlainAclFile(this.file, next);
      this.install(next, snapshot, stamp);
      return true;
    });
  }

  /** compileAcl, with the file named in the message (parse errors already name it). */
  private compile(data: PlainAclData): AclSnapshot {
    try {
      return compileAcl(data);
    } catch (err) {
      if (err instanceof AclConfigError) throw new AclConfigError(`${this.file}: ${err.message}`);
      throw err;
    }
  }

  private install(data: PlainAclData, snapshot: AclSnapshot, stamp: FileStamp): void {
    this.validator.use(snapshot);
    this.stamp = stamp;
    const [first] = data.dataVersion;
    this.version = first
      ? { stateVersion: 0, timestamp: first.timestamp, counter: first.counter }
      : { stateVersion: 0, timestamp: Date.now(), counter: 0 };
    for (const warning of snapshot.warnings) this.log.warn({ file: this.file }, warning);
    this.log.info(
      {
        file: this.file,
        accounts: snapshot.accounts.size,
        globalWhiteRemoteAddresses: data.globalWhiteRemoteAddresses.length,
      },
      "ACL in force",
    );
  }

  private queue<T>(work: () => Promise<T>): Promise<T> {
    const run = this.serial.then(work, work);
    this.serial = run.catch(() => {});
    return run;
  }

  private noteDenied(server: string, request: RemotingCommand, connection: Connection, err: AclDenied): void {
    this.deniedSinceLog++;
    const now = Date.now();
    if (now - this.lastDenialLogAt < DENIAL_LOG_INTERVAL_MS) return;
    this.log.warn(
      {
        server,
        code: requestCodeName(request.code),
        addr: connection.remoteAddress,
        accessKey: request.extFields?.[AclField.ACCESS_KEY],
        refused: this.deniedSinceLog,
      },
      `request refused: ${err.remark}`,
    );
    this.lastDenialLogAt = now;
    this.deniedSinceLog = 0;
  }
}
