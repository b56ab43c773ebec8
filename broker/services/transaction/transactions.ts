/**
 * The broker's transactional-message state, shared by END_TRANSACTION and the check service: the
 * half queue progress, the op record writer and the counters runtime info shows (spec broker §10).
 */
import type { Logger } from "pino";
import type { HostAddress } from "../../../src/protocol/message/index.ts";
import type { ConsumerOffsets } from "../../metadata/consumer-offsets.ts";
import type { MessageStore } from "../../store/message-store.ts";
import type { TopicManager } from "../../topics/topic-manager.ts";
import { HalfCache } from "./half-cache.ts";
import { HalfProgress } from "./half-progress.ts";
import { OpWriter } from "./op-writer.ts";

export interface TransactionStats {
  checksSent: number;
  discarded: number;
  committed: number;
  rolledBack: number;
}

export class Transactions {
  readonly progress: HalfProgress;
  readonly ops: OpWriter;
  /** Half messages just stored, for the END_TRANSACTION that usually follows at once. */
  readonly halves = new HalfCache();
  readonly stats: TransactionStats = { checksSent: 0, discarded: 0, committed: 0, rolledBack: 0 };

  constructor(o: {
    store: MessageStore;
    offsets: ConsumerOffsets;
    topics: TopicManager;
    storeHost: () => HostAddress;
    log: Logger;
  }) {
    this.progress = new HalfProgress(o.store, o.offsets);
    this.ops = new OpWriter({
      store: o.store,
      topics: o.topics,
      storeHost: o.storeHost,
      onStored: (halfOffsets, opQueueOffset) => this.progress.markWritten(halfOffsets, opQueueOffset),
      log: o.log,
    });
  }
}
