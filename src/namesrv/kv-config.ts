/**
 * The KV config store (spec remoting §7.6): namespace → key → value, persisted after every change
 * to `kvConfigPath` as `{"configTable":{ns:{k:v}}}`, loaded on start. A failed write leaves the
 * previous file whole and is retried with the table as it is then.
 */
import { readFile } from "node:fs/promises";
import type { Logger } from "pino";
import { StateFile, type StateWriter } from "../config/state-file.ts";
import { asObject, asObjectOrEmpty, asString, jsonBytes, parseJson } from "../protocol/json/index.ts";

/** The namespace whose entries become `orderTopicConf` (Java's NamesrvUtil.NAMESPACE_ORDER_TOPIC_CONFIG). */
export const NAMESPACE_ORDER_TOPIC_CONFIG = "ORDER_TOPIC_CONFIG";

export interface KvConfigStoreOptions {
  /** Replaces the atomic file write (tests make it fail). */
  readonly write?: StateWriter;
  readonly retryMs?: number;
}

export class KvConfigStore {
  private readonly table = new Map<string, Map<string, string>>();
  private readonly file: StateFile;
  /** Bumped on every change, so cached route answers that include orderTopicConf can tell. */
  version = 0;

  constructor(
    private readonly path: string,
    private readonly log: Logger,
    options: KvConfigStoreOptions = {},
  ) {
    this.file = new StateFile({
      path,
      render: () => jsonBytes({ configTable: this.table }),
      log,
      what: "KV config",
      write: options.write,
      retryMs: options.retryMs,
    });
  }

  /** Loads the file if it exists; a missing file is an empty store, a corrupt one is an error. */
  async load(): Promise<void> {
    let text: string;
    try {
      text = await readFile(this.path, "utf8");
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return;
      throw err;
    }
    if (text.trim() === "") return;
    const root = asObject(parseJson(text), this.path);
    for (const [ns, entries] of Object.entries(asObjectOrEmpty(root.configTable, "configTable"))) {
      const map = new Map<string, string>();
      for (const [k, v] of Object.entries(asObject(entries, `configTable.${ns}`))) map.set(k, asString(v, k));
      this.table.set(ns, map);
    }
    this.version++;
    this.log.info({ path: this.path, namespaces: this.table.size }, "load KV config table OK");
  }

  get(namespace: string, key: string): string | undefined {
    return this.table.get(namespace)?.get(key);
  }

  /** A copy of one namespace, or undefined when it does not exist. */
  list(namespace: string): Map<string, string> | undefined {
    const ns = this.table.get(namespace);
    return ns ? new Map(ns) : undefined;
  }

  /**
   * Sets a value; resolves once the file holds it, or false when writing failed (the value is in
   * effect and the write is retried, as Java's KVConfigManager logs and goes on).
   */
  put(namespace: string, key: string, value: string): Promise<boolean> {
    let ns = this.table.get(namespace);
    if (!ns) {
      ns = new Map();
      this.table.set(namespace, ns);
    }
    ns.set(key, value);
    return this.changed();
  }

  /** Removes a value; resolves like `put`. */
  delete(namespace: string, key: string): Promise<boolean> {
    const ns = this.table.get(namespace);
    if (!ns?.delete(key)) return Promise.resolve(true);
    // Java leaves an emptied namespace in place; so do we (GET_KVLIST_BY_NAMESPACE then answers {}).
    return this.changed();
  }

  /** All entries, for the periodic log line. */
  snapshot(): Record<string, Record<string, string>> {
    const out: Record<string, Record<string, string>> = {};
    for (const [ns, entries] of this.table) out[ns] = Object.fromEntries(entries);
    return out;
  }

  /** Stops retrying after one last write if the file lags. */
  close(): Promise<boolean> {
    return this.file.close();
  }

  private changed(): Promise<boolean> {
    this.version++;
    this.file.markDirty();
    return this.file.save();
  }
}
