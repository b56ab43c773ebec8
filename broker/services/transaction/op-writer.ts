/**
 * Op records (spec broker §10.2): a finished half message (committed or rolled back) is marked by
 * an op record in RMQ_SYS_TRANS_OP_HALF_TOPIC queue 0, tag "d", whose body lists half-queue
 * offsets. Our choice between 4.9 (one record per message, written before END_TRANSACTION
 * answers) and 5.x (batched, flushed every 3 s): a group commit. An end is answered once its op
 * record is stored, as in 4.9, but ends that arrive while a record is being written share the next
 * record, 5.x's body format ("12,13,") and size cap (4096 bytes, transactionOpMsgMaxSize). Under
 * load a transaction costs two writes plus a share of one; alone it costs three, never a 3 s wait
 * in which a crash would forget the end.
 */
import type { Logger } from "pino";
import {
  createUniqueIdGenerator,
  encodeProperties,
  type HostAddress,
  MessageConst,
  type UniqueIdGenerator,
} from "../../../src/protocol/message/index.ts";
import { DEFAULT_PERM } from "../../../src/protocol/route/perm.ts";
import { TRANS_OP_HALF_TOPIC } from "../../../src/protocol/topic-names.ts";
import { encodeOpBody, HALF_QUEUE_ID, OP_REMOVE_TAG } from "../../../src/protocol/transaction.ts";
import type { MessageStore, MessageToStore } from "../../store/message-store.ts";
import type { TopicManager } from "../../topics/topic-manager.ts";
import { STORED_STATUSES } from "../stored-message.ts";

/** Java's transactionOpMsgMaxSize: an op body never grows past this many bytes. */
const OP_BODY_BYTES_MAX = 4096;

interface Waiting {
  readonly halfOffset: number;
  readonly done: (stored: boolean) => void;
}

export interface OpWriterOptions {
  readonly store: MessageStore;
  readonly topics: TopicManager;
  readonly storeHost: () => HostAddress;
  /**
   * Told the half offsets of every op record stored and the record's offset in the op queue (the
   * checker's finished set, which then need not read this record back).
   */
  readonly onStored: (halfOffsets: readonly number[], opQueueOffset: number | undefined) => void;
  readonly log: Logger;
}

export class OpWriter {
  private queue: Waiting[] = [];
  private writing: Promise<void> | undefined;
  private topicReady = false;
  private ids: UniqueIdGenerator | undefined;

  constructor(private readonly o: OpWriterOptions) {}

  /** Resolves to whether the op record naming `halfOffset` was stored. */
  finish(halfOffset: number): Promise<boolean> {
    return new Promise((done) => {
      this.queue.push({ halfOffset, done });
      this.writing ??= this.drain();
    });
  }

  /** Resolves once every op record asked for so far is written. */
  async idle(): Promise<void> {
    while (this.writing) await this.writing;
  }

  private async drain(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        const batch = this.takeBatch();
        const stored = await this.write(batch.map((w) => w.halfOffset)).catch((err: unknown) => {
          this.o.log.error({ err }, "op record not written");
          return false;
        });
        for (const w of batch) w.done(stored);
      }
    } finally {
      this.writing = undefined;
    }
  }

  /** The longest head of the queue whose body stays within OP_BODY_BYTES_MAX. */
  private takeBatch(): Waiting[] {
    let bytes = 0;
    let n = 0;
    for (const w of this.queue) {
      const len = String(w.halfOffset).length + 1;
      if (n > 0 && bytes + len > OP_BODY_BYTES_MAX) break;
      bytes += len;
      n++;
    }
    return this.queue.splice(0, n);
  }

  private async write(halfOffsets: readonly number[]): Promise<boolean> {
    if (!this.topicReady) {
      await this.o.topics.createIfAbsent(TRANS_OP_HALF_TOPIC, 1, DEFAULT_PERM);
      this.topicReady = true;
    }
    const host = this.o.storeHost();
    this.ids ??= createUniqueIdGenerator({
      ip: host.ip,
      pid: process.pid,
      instanceHash: (Math.random() * 0x7fffffff) | 0,
    });
    const properties = new Map([
      [MessageConst.TAGS, OP_REMOVE_TAG],
      [MessageConst.WAIT, "false"],
      [MessageConst.UNIQ_KEY, this.ids()],
    ]);
    const msg: MessageToStore = {
      topic: TRANS_OP_HALF_TOPIC,
      queueId: HALF_QUEUE_ID,
      flag: 0,
      body: new TextEncoder().encode(encodeOpBody(halfOffsets)),
      properties,
      propertiesString: encodeProperties(properties),
      bornTimestamp: Date.now(),
      bornHost: host,
      storeHost: host,
      sysFlag: 0,
      reconsumeTimes: 0,
      preparedTransactionOffset: 0,
    };
    const put = await this.o.store.putMessage(msg);
    if (!STORED_STATUSES.has(put.status)) {
      this.o.log.error({ status: put.status, halfOffsets: halfOffsets.length }, "op record refused");
      return false;
    }
    this.o.onStored(halfOffsets, put.result?.queueOffset);
    return true;
  }
}
