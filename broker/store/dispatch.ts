/**
 * Dispatch (spec §6.3): turns each CommitLog record into its ConsumeQueue unit, its index
 * entries and an arrival notification. The live reput cursor and recovery both call
 * `Dispatcher.dispatch`: one code path.
 */
import { isConsumeQueueDispatched, MagicCode } from "../../src/protocol/message/index.ts";
import type { CommitLog } from "./commitlog.ts";
import type { ConsumeQueueStore } from "./consume-queue-store.ts";
import { type DispatchRequest, parseDispatchRequest } from "./dispatch-request.ts";
import type { IndexService } from "./index-service.ts";

/**
 * Called after a message becomes visible to pulls. `logicOffset` is the queue's new max offset
 * (the message's queue offset + 1), as RocketMQ's notifyMessageArriving receives it.
 */
export type MessageArrivedListener = (
  topic: string,
  queueId: number,
  logicOffset: number,
  tagsCode: number,
  storeTimestamp: number,
  properties: Map<string, string>,
) => void;

export class Dispatcher {
  readonly listeners = new Set<MessageArrivedListener>();
  /** Store time of the last record dispatched to a ConsumeQueue (checkpoint `logicsMsgTimestamp`). */
  logicsMsgTimestamp = 0;

  constructor(
    private readonly cqs: ConsumeQueueStore,
    private readonly index: IndexService | undefined,
    readonly delayLevelsMs: readonly number[],
    private readonly onListenerError: (err: unknown) => void,
  ) {}

  dispatch(req: DispatchRequest, notify: boolean): void {
    let added = false;
    if (isConsumeQueueDispatched(req.sysFlag)) {
      const cq = this.cqs.findOrCreate(req.topic, req.queueId);
      added = cq.append(req.commitLogOffset, req.msgSize, req.tagsCode, req.consumeQueueOffset);
      if (added) this.logicsMsgTimestamp = Math.max(this.logicsMsgTimestamp, req.storeTimestamp);
    }
    this.index?.build(req);
    if (!notify || !added) return;
    for (const l of this.listeners) {
      try {
        l(
          req.topic,
          req.queueId,
          req.consumeQueueOffset + 1,
          req.tagsCode,
          req.storeTimestamp,
          req.properties,
        );
      } catch (err) {
        this.onListenerError(err);
      }
    }
  }

  /**
   * The live reput cursor: dispatches every appended record from `cl.dispatchedOffset` to the
   * CommitLog's max offset, straight from the in-memory chunks. Synchronous.
   */
  reput(cl: CommitLog): void {
    while (cl.dispatchedOffset < cl.maxOffset) {
      const bytes = cl.bufferedFrom(cl.dispatchedOffset);
      if (!bytes) throw new Error(`reput: offset ${cl.dispatchedOffset} is not buffered`);
      const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      let pos = 0;
      while (pos + 8 <= bytes.length) {
        const size = dv.getInt32(pos);
        if (dv.getInt32(pos + 4) === MagicCode.BLANK) {
          // The rest of this segment is filler: continue at the next segment (spec §6.3 step 4).
          const seg = cl.segments.find(cl.dispatchedOffset);
          cl.dispatchedOffset = seg ? seg.end : cl.dispatchedOffset + size;
          break;
        }
        this.dispatch(parseDispatchRequest(bytes, pos, this.delayLevelsMs), true);
        pos += size;
        cl.dispatchedOffset += size;
      }
    }
    cl.releaseChunks();
  }
}
