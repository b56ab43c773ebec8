/**
 * The set of IndexFiles (spec §6.4): builds entries for each dispatched message, rolls to a new
 * file when one is full, answers key queries newest file first, and trims with the CommitLog.
 */
import { mkdir, readdir } from "node:fs/promises";
import { join } from "node:path";
import type { Logger } from "../../src/log.ts";
import {
  javaStringHash,
  KEY_SEPARATOR,
  MessageSysFlag,
  splitKeys,
  transactionType,
} from "../../src/protocol/message/index.ts";
import type { DispatchRequest } from "./dispatch-request.ts";
import { IndexFile, indexKeyHashFrom } from "./index-file.ts";

/** Topics whose `topic#` hash is remembered; the table starts over when it fills. */
const TOPIC_SEEDS_MAX = 4096;

const INDEX_NAME = /^\d{17}$/;

/** Local time as `yyyyMMddHHmmssSSS` (spec §6.4 file name). */
export function indexFileName(ms: number): string {
  const d = new Date(ms);
  const p = (n: number, w = 2) => String(n).padStart(w, "0");
  return `${d.getFullYear()}${p(d.getMonth() + 1)}${p(d.getDate())}${p(d.getHours())}${p(d.getMinutes())}${p(d.getSeconds())}${p(d.getMilliseconds(), 3)}`;
}

export interface IndexQueryResult {
  readonly phyOffsets: number[];
  readonly indexLastUpdateTimestamp: number;
  readonly indexLastUpdatePhyoffset: number;
}

export class IndexService {
  readonly files: IndexFile[] = [];
  /** End time of the newest sealed and flushed file (checkpoint `indexMsgTimestamp`). */
  sealedTimestamp = 0;
  /** Messages below this physical offset are already indexed (recovery replays skip them). */
  indexedBelow = 0;
  private sealing: Promise<void>[] = [];
  /** `javaStringHash("topic#")` per topic. */
  private readonly topicSeeds = new Map<string, number>();

  constructor(
    readonly dir: string,
    readonly slotNum: number,
    readonly indexNum: number,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  async load(): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    const names = (await readdir(this.dir)).filter((n) => INDEX_NAME.test(n)).sort();
    for (const name of names) {
      const f = new IndexFile(join(this.dir, name), this.slotNum, this.indexNum, false);
      await f.ready;
      this.files.push(f);
    }
    const last = this.files.at(-1);
    if (last && !last.isFull) await last.activate();
    this.indexedBelow = last ? last.endPhyOffset + 1 : 0;
  }

  /** Start of the index replay: after recovery cuts the CommitLog at `phyEnd`, nothing at or above it counts. */
  limitIndexedBelow(phyEnd: number): void {
    this.indexedBelow = Math.min(this.indexedBelow, phyEnd);
  }

  private active(): IndexFile {
    const last = this.files.at(-1);
    if (last && !last.isFull) return last;
    if (last) {
      const done = last.seal().then(
        () => {
          this.sealedTimestamp = Math.max(this.sealedTimestamp, last.endTimestamp);
        },
        (err) => this.log.error({ err, file: last.path }, "index file seal failed"),
      );
      this.sealing.push(done);
    }
    let name = indexFileName(this.now());
    const prevName = last?.path.slice(-17);
    if (prevName && name <= prevName) name = String(Number(prevName) + 1);
    const f = new IndexFile(join(this.dir, name), this.slotNum, this.indexNum, true);
    this.files.push(f);
    return f;
  }

  /** Indexes `topic#UNIQ_KEY` and `topic#k` for each KEYS entry (spec §6.4). Dispatch path only. */
  build(req: DispatchRequest): void {
    if (req.commitLogOffset < this.indexedBelow) return;
    if (transactionType(req.sysFlag) === MessageSysFlag.TRANSACTION_ROLLBACK_TYPE) return;
    // The entry key is `topic#k`; its hash continues from the hash of `topic#`.
    let seed = this.topicSeeds.get(req.topic);
    if (seed === undefined) {
      if (this.topicSeeds.size >= TOPIC_SEEDS_MAX) this.topicSeeds.clear();
      seed = javaStringHash(`${req.topic}#`);
      this.topicSeeds.set(req.topic, seed);
    }
    if (req.uniqKey)
      this.active().putHash(indexKeyHashFrom(seed, req.uniqKey), req.commitLogOffset, req.storeTimestamp);
    if (!req.keys) return;
    if (!req.keys.includes(KEY_SEPARATOR)) {
      this.active().putHash(indexKeyHashFrom(seed, req.keys), req.commitLogOffset, req.storeTimestamp);
      return;
    }
    for (const k of splitKeys(req.keys)) {
      this.active().putHash(indexKeyHashFrom(seed, k), req.commitLogOffset, req.storeTimestamp);
    }
  }

  async flush(): Promise<void> {
    await Promise.all(this.sealing.splice(0));
    await this.files.at(-1)?.flush();
  }

  /** Physical offsets stored under `topic#key` in [begin, end], newest first, at most `maxNum`. */
  async query(
    topic: string,
    key: string,
    maxNum: number,
    begin: number,
    end: number,
  ): Promise<IndexQueryResult> {
    const phyOffsets: number[] = [];
    const last = this.files.at(-1);
    for (let i = this.files.length - 1; i >= 0 && phyOffsets.length < maxNum; i--) {
      const f = this.files[i]!;
      if (f.indexCount <= 1 || !f.overlaps(begin, end)) continue;
      await f.query(`${topic}#${key}`, maxNum, begin, end, phyOffsets);
    }
    return {
      phyOffsets,
      indexLastUpdateTimestamp: last?.endTimestamp ?? 0,
      indexLastUpdatePhyoffset: last?.endPhyOffset ?? 0,
    };
  }

  /** Deletes files whose last entry points below `clMinOffset`, never the newest (spec §5.6). */
  async deleteExpired(clMinOffset: number): Promise<number> {
    let n = 0;
    while (this.files.length > 1 && this.files[0]!.endPhyOffset < clMinOffset) {
      await this.files.shift()!.destroy();
      n++;
    }
    return n;
  }

  async close(): Promise<void> {
    await this.flush();
    for (const f of this.files) await f.close();
  }

  async destroy(): Promise<void> {
    await Promise.all(this.sealing.splice(0));
    for (const f of this.files.splice(0)) await f.destroy();
    this.indexedBelow = 0;
  }
}
