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

/**
 * The half offsets one op record will name, and the promise every END waiting for it shares: one
 * promise per record, not one per END (an END is the broker's most frequent request after sends).
 */
interface Batch {
  readonly halfOffsets: number[];
  /** Body bytes so far: each offset's digits and its comma. */
  bytes: number;
  readonly stored: Promise<boolean>;
  readonly done: (stored: boolean) => void;
}

function newBatch(): Batch {
  let done: (stored: boolean) => void = () => {};
  const stored = new Promise<boolean>((resolve) => {
    done = resolve;
  });
  return { halfOffsets: [], bytes: 0, stored, done };
}

/** The length of `encodeOpBody`'s text for one offset: its decimal digits and a comma. */
function opEntryBytes(halfOffset: number): number {
  let digits = 1;
  for (let n = halfOffset; n >= 10; n = Math.floor(n / 10)) digits++;
  return halfOffset < 0 ? String(halfOffset).length + 1 : digits + 1;
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
  /** Records to write, in order; only the last one takes more offsets. */
  private queue: Batch[] = [];
  private writing: Promise<void> | undefined;
  private topicReady = false;
  private ids: UniqueIdGenerator | undefined;

  constructor(private readonly o: OpWriterOptions) {}

  /**
   * Resolves to whether the op record naming `halfOffset` was stored. The offset joins the last
   * record not yet being written while its body stays within OP_BODY_BYTES_MAX (so a record is
   * the longest run of waiting ends that fits, as when they were batched at write time).
   */
  finish(halfOffset: number): Promise<boolean> {
    const len = opEntryBytes(halfOffset);
    let batch = this.queue.at(-1);
    if (!batch || (batch.halfOffsets.length > 0 && batch.bytes + len > OP_BODY_BYTES_MAX)) {
      batch = newBatch();
      this.queue.push(batch);
    }
    batch.halfOffsets.push(halfOffset);
    batch.bytes += len;
    this.writing ??= this.drain();
    return batch.stored;
  }

  /** Resolves once every op record asked for so far is written. */
  async idle(): Promise<void> {
    while (this.writing) await this.writing;
  }

  private async drain(): Promise<void> {
    try {
      for (let batch = this.queue.shift(); batch; batch = this.queue.shift()) {
        const stored = await this.write(batch.halfOffsets).catch((err: unknown) => {
          this.o.log.error({ err }, "op record not written");
          return false;
        });
        batch.done(stored);
      }
    } finally {
      this.writing = undefined;
    }
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
