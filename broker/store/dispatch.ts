/**
 * Dispatch (spec §6.3): turns each CommitLog record into its ConsumeQueue unit, its index
 * entries and an arrival notification. The live reput cursor and recovery both call
 * `Dispatcher.dispatch`: one code path.
 */
import { isConsumeQueueDispatched } from "../../src/protocol/message/index.ts";
import type { CommitLog } from "./commitlog.ts";
import type { ConsumeQueueStore } from "./consume-queue-store.ts";
import type { DispatchRequest } from "./dispatch-request.ts";
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
  properties: ReadonlyMap<string, string>,
) => void;

export class Dispatcher {
  readonly listeners = new Set<MessageArrivedListener>();
  /** Store time of the last record dispatched to a ConsumeQueue (checkpoint `logicsMsgTimestamp`). */
  logicsMsgTimestamp = 0;
  /** Requests of appended records not dispatched yet, in CommitLog order. */
  private readonly queued: DispatchRequest[] = [];

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
   * Queues the request of a record just appended; the put path builds it from the message it
   * wrote, so live dispatch never decodes the record again. Runs on the append path only.
   */
  enqueue(req: DispatchRequest): void {
    this.queued.push(req);
  }

  /**
   * The live reput cursor: dispatches the queued records that are written (`cl.writtenOffset`),
   * in CommitLog order, and moves `cl.dispatchedOffset` past each. A record is never visible to
   * pulls before its bytes reach the file: a crash could otherwise hand its queue offset to
   * another message after recovery. Synchronous.
   */
  reput(cl: CommitLog): void {
    const q = this.queued;
    const upTo = cl.writtenOffset;
    let i = 0;
    for (; i < q.length; i++) {
      const req = q[i]!;
      const end = req.commitLogOffset + req.msgSize;
      if (end > upTo) break;
      this.dispatch(req, true);
      cl.dispatchedOffset = end;
    }
    if (i === q.length) q.length = 0;
    else if (i > 0) q.splice(0, i);
    cl.releaseChunks();
  }
}
