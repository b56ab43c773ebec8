/**
 * Reading stored records back from the CommitLog for the file store: batched span reads for
 * pulls, lookup by physical offset, and key queries through the index. Every record is
 * validated right after it is read (style habit 15).
 */
import { checkRecord, decodeRecord, MessageConst, splitKeys } from "../../src/protocol/message/index.ts";
import type { CommitLog } from "./commitlog.ts";
import type { IndexService } from "./index-service.ts";
import type { QueryMessageResult } from "./message-store.ts";

export class RecordReader {
  constructor(
    private readonly cl: CommitLog,
    private readonly index: IndexService | undefined,
    private readonly readSpanBytesMax: number,
  ) {}

  /** Records at (phyOffset, size) pairs; one read per run of nearby records in one segment. */
  async readRecords(spans: readonly (readonly [number, number])[]): Promise<(Uint8Array | undefined)[]> {
    const out: (Uint8Array | undefined)[] = [];
    let i = 0;
    while (i < spans.length) {
      const [start, size0] = spans[i]!;
      const seg = this.cl.segments.find(start);
      let end = start + size0;
      let j = i;
      while (j + 1 < spans.length && seg) {
        const [p, s] = spans[j + 1]!;
        if (p < end || p + s - start > this.readSpanBytesMax || p + s > seg.end) break;
        end = p + s;
        j++;
      }
      const buf = j > i ? await this.cl.read(start, end - start) : undefined;
      for (let k = i; k <= j; k++) {
        const [p, s] = spans[k]!;
        const rec = buf ? buf.subarray(p - start, p - start + s) : await this.cl.read(p, s);
        out.push(rec && isRecordAt(rec, p, s) ? rec : undefined);
      }
      i = j + 1;
    }
    return out;
  }

  async lookMessageByOffset(phyOffset: number): Promise<Uint8Array | undefined> {
    const head = await this.cl.read(phyOffset, 8);
    if (!head) return undefined;
    const size = new DataView(head.buffer, head.byteOffset).getInt32(0);
    if (size <= 8) return undefined;
    const [rec] = await this.readRecords([[phyOffset, size]]);
    return rec;
  }

  /** Index hits re-read and checked: hash collisions and entries left from a cut tail are dropped. */
  async queryMessage(
    topic: string,
    key: string,
    maxNum: number,
    begin: number,
    end: number,
  ): Promise<QueryMessageResult> {
    if (!this.index) return { messages: [], indexLastUpdateTimestamp: 0, indexLastUpdatePhyoffset: 0 };
    const q = await this.index.query(topic, key, maxNum, begin, end);
    const messages: Uint8Array[] = [];
    for (const phy of new Set(q.phyOffsets)) {
      const rec = await this.lookMessageByOffset(phy);
      if (!rec) continue;
      const d = decodeRecord(rec);
      const keys = splitKeys(d.properties.get(MessageConst.KEYS));
      if (d.topic === topic && (d.properties.get(MessageConst.UNIQ_KEY) === key || keys.includes(key)))
        messages.push(rec);
    }
    return {
      messages,
      indexLastUpdateTimestamp: q.indexLastUpdateTimestamp,
      indexLastUpdatePhyoffset: q.indexLastUpdatePhyoffset,
    };
  }
}

function isRecordAt(rec: Uint8Array, phy: number, size: number): boolean {
  const r = checkRecord(rec, 0, rec.length, { checkCrc: false, physicalOffset: phy });
  return r.kind === "message" && r.size === size;
}
