/**
 * One long-polling pull loop per assigned queue (Java's PullMessageService + pullMessage): wait
 * for room in the process queue, pull with SUSPEND, decode and filter by tag, hand the messages
 * over, continue from nextBeginOffset. Transport errors back off; OFFSET_ILLEGAL adopts the
 * broker's offset. The loop ends when its process queue is dropped or the signal aborts.
 */
import type { Logger } from "../log.ts";
import type { SubscriptionData } from "../protocol/body/subscription.ts";
import { PullSysFlag } from "../protocol/headers/pull.ts";
import { MessageConst } from "../protocol/message/index.ts";
import { ResponseCode } from "../remoting/index.ts";
import { AbortRace, pause } from "./abortable.ts";
import type { PullResult } from "./broker-api.ts";
import type { ClientInstance } from "./client-instance.ts";
import { MQClientError } from "./errors.ts";
import type { MessageExt } from "./message.ts";
import type { MessageQueue } from "./message-queue.ts";
import type { FlowLimits, ProcessQueue } from "./process-queue.ts";
import { putProperties } from "./pulled-message.ts";
import { readRecords } from "./record-reader.ts";

export const DEFAULT_PULL_BATCH_SIZE = 32;
/** Java's BROKER_SUSPEND_MAX_TIME_MILLIS and CONSUMER_TIMEOUT_MILLIS_WHEN_SUSPEND. */
export const DEFAULT_BROKER_SUSPEND_MAX_MS = 15_000;
export const DEFAULT_CONSUMER_TIMEOUT_WHEN_SUSPEND_MS = 30_000;
/** Java's PULL_TIME_DELAY_MILLS_WHEN_EXCEPTION. */
export const DEFAULT_PULL_ERROR_DELAY_MS = 3000;

export interface PullTarget {
  readonly mq: MessageQueue;
  readonly pq: ProcessQueue;
  nextOffset: number;
}

export interface PullLoopDeps {
  client: ClientInstance;
  group: string;
  subscription(topic: string): SubscriptionData | undefined;
  /**
   * Whether each pull carries the subscription (Java's postSubscriptionWhenPull). Without it the
   * broker uses the subscription of the group's last heartbeat, as Java's push consumer has it by
   * default: the broker does not parse the expression on every pull.
   */
  postSubscription: boolean;
  /** The broker does not know this consumer's subscription, or knows an older one. */
  onSubscriptionUnknown?(): Promise<void>;
  /** The offset to commit with the pull, or -1 for none (broadcasting, lite pull). */
  commitOffset(mq: MessageQueue): number;
  /**
   * Resolves when the queue may be pulled (orderly consumers: once its broker lock is held); the
   * loop re-checks `dropped` and the signal afterwards. Absent: always.
   */
  gate?(target: PullTarget): Promise<void>;
  limits: FlowLimits;
  batchSize: number;
  suspendMs: number;
  timeoutMs: number;
  errorDelayMs: number;
  signal: AbortSignal;
  onFound(target: PullTarget, msgs: MessageExt[]): void;
  onOffsetIllegal(target: PullTarget, nextOffset: number): void;
  /** Nothing consumable came back: with nothing cached, the offset may move to `nextOffset` (Java's correctTagsOffset). */
  onNothingFound?(target: PullTarget, nextOffset: number): void;
}

/** A pull already sent; it settles with the result, null on abort, or the error (never rejects). */
interface SentPull {
  readonly offset: number;
  readonly generation: number;
  readonly outcome: Promise<PullResult | null | Error>;
}

export async function runPullLoop(t: PullTarget, d: PullLoopDeps): Promise<void> {
  const log = d.client.log.child({ mq: `${t.mq.topic}/${t.mq.brokerName}/${t.mq.queueId}` });
  const abortable = new AbortRace(d.signal);
  const send = (offset: number): SentPull => ({
    offset,
    generation: t.pq.generation,
    outcome: abortable
      .race(pullOnce(t.mq, offset, d))
      .catch((err: unknown) => (err instanceof Error ? err : new Error(String(err)))),
  });
  /** The pull for nextBeginOffset, sent before the last batch was handed over. */
  let ahead: SentPull | undefined;
  try {
    while (!t.pq.dropped && !d.signal.aborted) {
      let sent = ahead;
      ahead = undefined;
      // A pull sent ahead is used only if nothing moved the queue since (a seek, OFFSET_ILLEGAL).
      if (sent !== undefined && (sent.generation !== t.pq.generation || sent.offset !== t.nextOffset))
        sent = undefined;
      if (sent === undefined) {
        if (d.gate) {
          await d.gate(t);
          if (t.pq.dropped || d.signal.aborted) break;
        }
        await t.pq.waitForRoom(d.limits);
        if (t.pq.dropped || d.signal.aborted) break;
        sent = send(t.nextOffset);
      }
      const { generation, offset } = sent;
      const result = await sent.outcome;
      if (result === null) break;
      if (result instanceof Error) {
        if (t.pq.dropped || d.signal.aborted) break;
        log.warn({ err: result.message, offset }, "pull failed, backing off");
        if (
          result instanceof MQClientError &&
          (result.code === ResponseCode.SUBSCRIPTION_NOT_EXIST ||
            result.code === ResponseCode.SUBSCRIPTION_NOT_LATEST)
        )
          await d
            .onSubscriptionUnknown?.()
            .catch((err: unknown) => log.warn({ err }, "heartbeat after an unknown subscription failed"));
        void d.client.refreshRoute(t.mq.topic).catch(() => null);
        await pause(d.errorDelayMs, d.signal);
        continue;
      }
      // A seek while the pull was in flight makes its result stale.
      if (t.pq.dropped || generation !== t.pq.generation) continue;
      switch (result.status) {
        case "FOUND": {
          t.nextOffset = result.nextBeginOffset;
          // Under the flow limits even with this whole batch counted in (at most batchSize
          // messages, at most its body's bytes): the next pull goes out before this batch is
          // decoded and consumed, so the broker reads while the client works instead of idling.
          const batchBytes = result.body?.length ?? 0;
          if (t.pq.hasRoom(d.limits, d.batchSize, batchBytes) && !d.signal.aborted) {
            ahead = send(t.nextOffset);
            // One microtask turn: the connection's flush, queued by that send, writes the pull
            // before this batch is decoded rather than after it.
            await undefined;
            // A seek or drop in that turn makes this batch stale, as during the pull.
            if (t.pq.dropped || generation !== t.pq.generation) continue;
          }
          const msgs = filterAndTag(result, t.mq, d.subscription(t.mq.topic), log, offset);
          if (msgs.length > 0) {
            t.pq.put(msgs);
            d.onFound(t, msgs);
          } else if (t.pq.count === 0) d.onNothingFound?.(t, result.nextBeginOffset);
          break;
        }
        case "NO_NEW_MSG":
        case "NO_MATCHED_MSG":
          t.nextOffset = result.nextBeginOffset;
          if (t.pq.count === 0) d.onNothingFound?.(t, result.nextBeginOffset);
          break;
        case "OFFSET_ILLEGAL":
          log.warn(
            { offset, next: result.nextBeginOffset },
            "pull offset illegal, adopting the broker's offset",
          );
          t.nextOffset = result.nextBeginOffset;
          // As Java drops the process queue: what was cached belongs to offsets the broker disowns,
          // and messages at the new offsets must not be taken for duplicates of the old ones.
          t.pq.generation += 1;
          t.pq.clear();
          d.onOffsetIllegal(t, result.nextBeginOffset);
          break;
      }
    }
  } finally {
    abortable.dispose();
  }
}

async function pullOnce(mq: MessageQueue, offset: number, d: PullLoopDeps): Promise<PullResult> {
  // The cached address without an await: a pull ahead should leave in the turn its answer came.
  const addr =
    d.client.routes.masterAddr(mq.brokerName) ?? (await d.client.masterAddr(mq.brokerName, mq.topic));
  const sub = d.subscription(mq.topic);
  const commitOffset = d.commitOffset(mq);
  let sysFlag = PullSysFlag.SUSPEND;
  if (commitOffset > 0) sysFlag |= PullSysFlag.COMMIT_OFFSET;
  const post = sub !== undefined && d.postSubscription;
  if (post) sysFlag |= PullSysFlag.SUBSCRIPTION;
  return d.client.broker.pull(
    addr,
    {
      consumerGroup: d.group,
      topic: mq.topic,
      queueId: mq.queueId,
      queueOffset: offset,
      maxMsgNums: d.batchSize,
      sysFlag,
      commitOffset: Math.max(commitOffset, 0),
      suspendTimeoutMillis: d.suspendMs,
      // Absent fields as undefined (the header encoder skips them), not spreads: one object
      // shape for every pull.
      subscription: post ? sub.subString : undefined,
      expressionType: sub?.expressionType,
      subVersion: sub?.subVersion ?? 0,
    },
    d.timeoutMs,
  );
}

/**
 * Decodes the records, drops tag-hash collisions the broker let through (Java's
 * processPullResult) and records the queue's min/max offsets on each message.
 */
function filterAndTag(
  result: PullResult,
  mq: MessageQueue,
  sub: SubscriptionData | undefined,
  log: Logger,
  offset: number,
): MessageExt[] {
  const read = result.body ? readRecords(result.body, mq.brokerName) : undefined;
  const all = read?.messages ?? [];
  if (read !== undefined && read.decodedBytes < result.body!.length) {
    // As Java's client: what decoded is consumed, the rest of the body is passed over.
    log.error(
      { offset, decoded: all.length, nextBeginOffset: result.nextBeginOffset },
      "a pulled record does not decode; the records from it to nextBeginOffset are skipped",
    );
  }
  const tagged = sub && sub.tagsSet.length > 0 && !sub.classFilterMode;
  const kept = tagged ? all.filter((m) => m.tags !== undefined && sub.tagsSet.includes(m.tags)) : all;
  const offsets = {
    [MessageConst.MIN_OFFSET]: String(result.minOffset),
    [MessageConst.MAX_OFFSET]: String(result.maxOffset),
  };
  for (const m of kept) putProperties(m, offsets);
  return kept;
}
