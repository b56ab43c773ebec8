/**
 * Who holds each queue's lock in an orderly group, for consumerProgress and consumerConnection:
 * each online member is asked for its running info (GET_CONSUMER_RUNNING_INFO through a broker,
 * as mqadmin consumerStatus asks), which says whether it consumes orderly and which queues' broker
 * locks it holds.
 */
import type { Admin, ConsumerConnection } from "../../client/index.ts";
import { fetchRunningInfo } from "../../client/running-info.ts";
import { RunningInfoProp } from "../../protocol/body/consumer-running-info.ts";
import type { MessageQueueKey } from "../../protocol/body/queue-keyed.ts";

/**
 * How long one member may take to answer. A client that does not implement the request (ali-ons)
 * never answers; the broker gives up after 10 s, the admin before that.
 */
export const RUNNING_INFO_TIMEOUT_MS = 2000;

export interface QueueLock extends MessageQueueKey {
  clientId: string;
}

export interface QueueOwners {
  /** Whether any member that answered consumes orderly. */
  orderly: boolean;
  /** The queues whose lock a member holds, sorted. */
  locks: QueueLock[];
}

const keyOf = (mq: MessageQueueKey) => `${mq.topic}\u0000${mq.brokerName}\u0000${mq.queueId}`;

export async function queueOwners(admin: Admin, group: string, cc: ConsumerConnection): Promise<QueueOwners> {
  const infos = await Promise.all(
    cc.connections.map((c) =>
      fetchRunningInfo(admin.client, group, c.clientId, RUNNING_INFO_TIMEOUT_MS).then(
        (info) => ({ clientId: c.clientId, info }),
        () => null,
      ),
    ),
  );
  let orderly = false;
  const locks: QueueLock[] = [];
  for (const answer of infos) {
    if (answer?.info.properties[RunningInfoProp.CONSUME_ORDERLY] !== "true") continue;
    orderly = true;
    for (const [mq, pq] of answer.info.mqTable)
      if (pq.locked === true) locks.push({ ...mq, clientId: answer.clientId });
  }
  locks.sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0));
  return { orderly, locks };
}

/** `topic/broker/queue` → holder, for table rows. */
export function holderIndex(owners: QueueOwners): Map<string, string> {
  return new Map(owners.locks.map((l) => [keyOf(l), l.clientId]));
}

export { keyOf as queueKey };
