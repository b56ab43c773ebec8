/**
 * Revive of expired POP leases (spec pop-timer-filter §A.12.3): each un-acked message is copied
 * into its group's retry topic `%RETRY%<group>_<topic>` queue 0 with reconsumeTimes + 1, all
 * properties kept and 1ST_POP_TIME set on a first revive. Work is done in chunks of at most
 * REVIVE_CHUNK leases, one chunk at a time: the consume-queue units of a chunk are read per run
 * of nearby offsets, the records in one read, and the copies stored with one putMessages per
 * retry topic, so a million leases expiring together cost a few thousand store calls, never a
 * million promises at once.
 */
import { popRetryTopicV1, retryFlagOfTopic } from "../../src/protocol/headers/pop.ts";
import { decodeRecord, editPropertiesString, MessageConst } from "../../src/protocol/message/index.ts";
import { DEFAULT_PERM } from "../../src/protocol/route/perm.ts";
import { RETRY_GROUP_TOPIC_PREFIX } from "../../src/protocol/topic-names.ts";
import type { BrokerContext } from "../context.ts";
import type { MessageToStore } from "../store/message-store.ts";
import { PutMessageStatus } from "../store/status.ts";
import type { LeaseBatch, PopQueue } from "./pop-lease-table.ts";

/** Java's PROPERTY_FIRST_POP_TIME and PROPERTY_POP_CK. */
export const FIRST_POP_TIME = "1ST_POP_TIME";
export const POP_CK = "POP_CK";

/** Leases revived per chunk (and per putMessages). */
const REVIVE_CHUNK = 512;
/** Offsets of one consume-queue read lie within this distance of its first. */
const UNIT_RUN_SPAN = 1024;
/** A revive whose copy could not be stored is tried again this much later. */
const REVIVE_RETRY_MS = 1000;

/** The original topic behind a POP retry topic name, or the name itself. */
export function originalTopicOf(realTopic: string, group: string): string {
  const v1 = `${RETRY_GROUP_TOPIC_PREFIX}${group}_`;
  const v2 = `${RETRY_GROUP_TOPIC_PREFIX}${group}+`;
  if (realTopic.startsWith(v1)) return realTopic.slice(v1.length);
  if (realTopic.startsWith(v2)) return realTopic.slice(v2.length);
  return realTopic;
}

/** What the reviver reports back to the lease table. */
export interface ReviveSink {
  revived(b: LeaseBatch, offsets: readonly number[]): void;
  retryLater(b: LeaseBatch, at: number): void;
  /** Resolves once the settlements reported so far are written. */
  durable(): Promise<void>;
}

interface Item {
  readonly b: LeaseBatch;
  readonly offset: number;
}

export class PopReviver {
  private readonly due: LeaseBatch[] = [];
  private head = 0;
  private running: Promise<void> | null = null;
  private stopped = false;

  constructor(
    private readonly ctx: BrokerContext,
    private readonly sink: ReviveSink,
  ) {}

  /** Leases waiting to be revived (batches). */
  get backlog(): number {
    return this.due.length - this.head;
  }

  enqueue(b: LeaseBatch): void {
    this.due.push(b);
  }

  pump(): void {
    if (this.running || this.stopped || this.backlog === 0) return;
    this.running = this.run().finally(() => {
      this.running = null;
    });
  }

  /** Finishes the chunk under way; what is left stays leased (and persisted) for the next start. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
  }

  private async run(): Promise<void> {
    while (!this.stopped && this.backlog > 0) {
      const items: Item[] = [];
      while (items.length < REVIVE_CHUNK && this.head < this.due.length) {
        const b = this.due[this.head++]!;
        for (const offset of b.offsets) if (b.q.leases.get(offset) === b) items.push({ b, offset });
      }
      if (this.head === this.due.length) {
        this.due.length = 0;
        this.head = 0;
      }
      try {
        await this.revive(items);
        // One chunk's records at a time: the lease log's queue stays bounded.
        await this.sink.durable();
      } catch (err) {
        this.ctx.log.warn({ err }, "POP revive failed; retrying");
        const at = Date.now() + REVIVE_RETRY_MS;
        for (const b of new Set(items.map((i) => i.b))) this.sink.retryLater(b, at);
      }
    }
  }

  private async revive(items: Item[]): Promise<void> {
    const byQueue = new Map<PopQueue, Item[]>();
    for (const it of items) {
      const list = byQueue.get(it.b.q);
      if (list) list.push(it);
      else byQueue.set(it.b.q, [it]);
    }
    const copies = new Map<string, { msgs: MessageToStore[]; items: Item[] }>();
    const gone: Item[] = [];
    for (const [q, list] of byQueue) {
      list.sort((a, b) => a.offset - b.offset);
      const records = await this.read(q, list);
      for (let i = 0; i < list.length; i++) {
        const rec = records[i];
        if (!rec) {
          gone.push(list[i]!);
          continue;
        }
        const it = list[i]!;
        const retryTopic =
          retryFlagOfTopic(q.realTopic) === "0" ? popRetryTopicV1(q.topic, q.group) : q.realTopic;
        let c = copies.get(retryTopic);
        if (!c) {
          c = { msgs: [], items: [] };
          copies.set(retryTopic, c);
        }
        c.msgs.push(this.copy(rec, retryTopic, it.b.popTime));
        c.items.push(it);
      }
    }
    if (gone.length > 0) {
      this.ctx.log.warn({ count: gone.length }, "POP revive: messages gone from the store");
      this.report(gone);
    }
    for (const [retryTopic, c] of copies) {
      await this.ctx.topics.createIfAbsent(retryTopic, 1, DEFAULT_PERM);
      const put = await this.ctx.store.putMessages(c.msgs);
      if (put.status === PutMessageStatus.PUT_OK) {
        this.report(c.items);
        continue;
      }
      this.ctx.log.warn(
        { retryTopic, status: put.status },
        "POP revive: storing the copies failed; retrying",
      );
      const at = Date.now() + REVIVE_RETRY_MS;
      for (const b of new Set(c.items.map((i) => i.b))) this.sink.retryLater(b, at);
    }
  }

  private report(items: Item[]): void {
    const byBatch = new Map<LeaseBatch, number[]>();
    for (const it of items) {
      const list = byBatch.get(it.b);
      if (list) list.push(it.offset);
      else byBatch.set(it.b, [it.offset]);
    }
    for (const [b, offsets] of byBatch) this.sink.revived(b, offsets);
  }

  /** The stored records at `list`'s offsets (sorted), undefined where one is gone. */
  private async read(q: PopQueue, list: readonly Item[]): Promise<(Uint8Array | undefined)[]> {
    const phy = new Map<number, readonly [number, number]>();
    let i = 0;
    while (i < list.length) {
      const first = list[i]!.offset;
      let j = i;
      while (j + 1 < list.length && list[j + 1]!.offset - first < UNIT_RUN_SPAN) j++;
      const last = list[j]!.offset;
      const units = await this.ctx.store.readQueueUnits(q.realTopic, q.queueId, first, last - first + 1);
      for (const u of units) phy.set(u.queueOffset, [u.phyOffset, u.size]);
      const reached = units.length > 0 ? units[units.length - 1]!.queueOffset : last;
      // Offsets up to what the read reached are settled (found or gone); a file end stops short.
      i = j + 1;
      if (reached < last && units.length > 0) {
        while (i > 0 && list[i - 1]!.offset > reached) i--;
      }
    }
    const spans = list.map((it) => phy.get(it.offset));
    const present = spans.filter((s): s is readonly [number, number] => s !== undefined);
    const recs = await this.ctx.store.readRecords(present);
    let k = 0;
    return spans.map((s) => (s ? recs[k++] : undefined));
  }

  /** The copy of §A.12.3, its properties edited as a string (no map copied per message). */
  private copy(raw: Uint8Array, retryTopic: string, popTime: number): MessageToStore {
    const msg = decodeRecord(raw);
    const first = msg.reconsumeTimes === 0 || !msg.properties.has(FIRST_POP_TIME);
    const propertiesString = editPropertiesString(
      msg.propertiesString,
      first ? { [FIRST_POP_TIME]: String(popTime) } : {},
      [POP_CK, MessageConst.RETRY_TOPIC],
    );
    return {
      topic: retryTopic,
      queueId: 0,
      flag: msg.flag,
      body: msg.body,
      // The record gets propertiesString; the store reads WAIT, TAGS and the keys from the map,
      // none of which the edit touches.
      properties: msg.properties,
      propertiesString,
      bornTimestamp: msg.bornTimestamp,
      bornHost: this.ctx.storeHost,
      storeHost: this.ctx.storeHost,
      sysFlag: msg.sysFlag,
      reconsumeTimes: msg.reconsumeTimes + 1,
      preparedTransactionOffset: 0,
    };
  }
}
