/**
 * The KV config store (spec remoting §7.6): namespace → key → value, persisted after every change
 * to `kvConfigPath` as `{"configTable":{ns:{k:v}}}` (temp file, then rename), loaded on start.
 */
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import type { Logger } from "pino";
import { asObject, asObjectOrEmpty, asString, jsonBytes, parseJson } from "../protocol/json/index.ts";

/** The namespace whose entries become `orderTopicConf` (Java's NamesrvUtil.NAMESPACE_ORDER_TOPIC_CONFIG). */
export const NAMESPACE_ORDER_TOPIC_CONFIG = "ORDER_TOPIC_CONFIG";

export class KvConfigStore {
  private readonly table = new Map<string, Map<string, string>>();
  /** Persists run one after another; each writes the table as it is when it starts. */
  private writing: Promise<void> = Promise.resolve();
  /** Bumped on every change, so cached route answers that include orderTopicConf can tell. */
  version = 0;

  constructor(
    private readonly path: string,
    private readonly log: Logger,
  ) {}

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

  async put(namespace: string, key: string, value: string): Promise<void> {
    let ns = this.table.get(namespace);
    if (!ns) {
      ns = new Map();
      this.table.set(namespace, ns);
    }
    ns.set(key, value);
    this.version++;
    await this.persist();
  }

  async delete(namespace: string, key: string): Promise<void> {
    const ns = this.table.get(namespace);
    if (!ns?.delete(key)) return;
    // Java leaves an emptied namespace in place; so do we (GET_KVLIST_BY_NAMESPACE then answers {}).
    this.version++;
    await this.persist();
  }

  /** All entries, for the periodic log line. */
  snapshot(): Record<string, Record<string, string>> {
    const out: Record<string, Record<string, string>> = {};
    for (const [ns, entries] of this.table) out[ns] = Object.fromEntries(entries);
    return out;
  }

  private persist(): Promise<void> {
    const next = this.writing.then(() => this.writeNow());
    // A failed write must not wedge later ones; the caller still sees its own failure.
    this.writing = next.catch(() => {});
    return next;
  }

  private async writeNow(): Promise<void> {
    const body = jsonBytes({ configTable: this.table });
    await mkdir(dirname(this.path), { recursive: true });
    const tmp = `${this.path}.tmp`;
    await writeFile(tmp, body);
    await rename(tmp, this.path);
  }
}
