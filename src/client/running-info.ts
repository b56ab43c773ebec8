/**
 * GET_CONSUMER_RUNNING_INFO (307) on both ends (spec broker §0.2): a consumer answers it with its
 * ConsumerRunningInfo (orderly flag, queues and their locks) when a broker forwards an admin's
 * request, and an admin asks for it through a broker of the group's retry topic, as Java's
 * DefaultMQAdminExtImpl.getConsumerRunningInfo does.
 */
import {
  type ConsumerRunningInfo,
  decodeConsumerRunningInfo,
  encodeConsumerRunningInfo,
  type ProcessQueueInfo,
  RunningInfoProp,
  type RunningInfoView,
} from "../protocol/body/consumer-running-info.ts";
import type { SubscriptionData } from "../protocol/body/subscription.ts";
import { GetConsumerRunningInfoRequestHeader } from "../protocol/headers/admin.ts";
import { MASTER_ID } from "../protocol/route/index.ts";
import { RemotingCommand, RequestCode, ResponseCode } from "../remoting/index.ts";
import type { ClientInstance, ConsumerMember } from "./client-instance.ts";
import { clientError, decodeAnswer } from "./errors.ts";
import { retryTopic } from "./message.ts";
import type { MessageQueue } from "./message-queue.ts";
import type { PullTarget } from "./pull-loop.ts";
import type { QueueLockState } from "./queue-locks.ts";
import { call } from "./rpc.ts";

const MIB = 1024 * 1024;

/** The client's answer to a forwarded 307 (Java's ClientRemotingProcessor.getConsumerRunningInfo). */
export function answerRunningInfo(
  req: RemotingCommand,
  consumer: (group: string) => ConsumerMember | undefined,
  client: ClientInstance,
): RemotingCommand {
  const { consumerGroup } = GetConsumerRunningInfoRequestHeader.decode(req.extFields);
  const member = consumer(consumerGroup);
  const info = member?.runningInfo?.();
  if (!member || !info)
    return RemotingCommand.response(
      ResponseCode.SYSTEM_ERROR,
      `The Consumer Group <${consumerGroup}> not exist in this consumer`,
    );
  // Added for every consumer by Java's MQClientInstance.consumerRunningInfo.
  info.properties[RunningInfoProp.NAMESERVER_ADDR] = client.options.namesrvAddrs.join(";");
  info.properties[RunningInfoProp.CONSUME_TYPE] = member.consumerData().consumeType;
  return RemotingCommand.response(ResponseCode.SUCCESS, null, null, encodeConsumerRunningInfo(info));
}

export interface PushRunningInfoParts {
  group: string;
  orderly: boolean;
  consumeThreads: number;
  startedAt: number;
  /** Consumer settings shown as properties, as Java lists its consumer's fields. */
  settings: Record<string, string>;
  subscriptions: SubscriptionData[];
  targets: PullTarget[];
  commitOffset(mq: MessageQueue): number;
  /** Undefined when the consumer takes no locks (concurrent, broadcasting). */
  lockState(mq: MessageQueue): QueueLockState | undefined;
}

/** A push consumer's running info (Java's DefaultMQPushConsumerImpl.consumerRunningInfo). */
export function pushRunningInfo(p: PushRunningInfoParts): ConsumerRunningInfo {
  return {
    properties: {
      ...p.settings,
      consumerGroup: p.group,
      [RunningInfoProp.CONSUME_ORDERLY]: String(p.orderly),
      [RunningInfoProp.THREADPOOL_CORE_SIZE]: String(p.consumeThreads),
      [RunningInfoProp.CONSUMER_START_TIMESTAMP]: String(p.startedAt),
    },
    subscriptionSet: p.subscriptions,
    mqTable: p.targets.map((t) => [
      t.mq,
      processQueueInfo(t, p.commitOffset(t.mq), p.lockState(t.mq) ?? UNLOCKED),
    ]),
    statusTable: {},
  };
}

const UNLOCKED: QueueLockState = { locked: false, lastLockTimestamp: 0 };

/** One owned queue as ProcessQueueInfo; statistics RocketBun does not keep are 0. */
function processQueueInfo(t: PullTarget, commitOffset: number, lock: QueueLockState): ProcessQueueInfo {
  const range = t.pq.cachedRange();
  return {
    commitOffset,
    cachedMsgMinOffset: range?.[0] ?? 0,
    cachedMsgMaxOffset: range?.[1] ?? 0,
    cachedMsgCount: t.pq.count,
    cachedMsgSizeInMiB: Math.floor(t.pq.cachedBytes / MIB),
    transactionMsgMinOffset: 0,
    transactionMsgMaxOffset: 0,
    transactionMsgCount: 0,
    locked: lock.locked,
    tryUnlockTimes: 0,
    lastLockTimestamp: lock.lastLockTimestamp,
    droped: t.pq.dropped,
    lastPullTimestamp: 0,
    lastConsumeTimestamp: 0,
  };
}

export type { ConsumerRunningInfo, RunningInfoView };

/** Asks a consumer for its running info through the masters of the group's retry topic. */
export async function fetchRunningInfo(
  client: ClientInstance,
  group: string,
  clientId: string,
  timeoutMs: number,
): Promise<RunningInfoView> {
  const route = await client.namesrv.topicRoute(retryTopic(group));
  const addrs = (route?.brokerDatas ?? [])
    .map((b) => b.brokerAddrs.get(MASTER_ID))
    .filter((a): a is string => a !== undefined);
  let last: unknown = clientError(`no broker serves ${retryTopic(group)}`, ResponseCode.SYSTEM_ERROR);
  for (const addr of addrs) {
    try {
      const ext = GetConsumerRunningInfoRequestHeader.encode({
        consumerGroup: group,
        clientId,
        jstackEnable: false,
      });
      const r = await call(
        client.remoting,
        addr,
        RequestCode.GET_CONSUMER_RUNNING_INFO,
        ext,
        null,
        timeoutMs,
      );
      return decodeAnswer(addr, RequestCode.GET_CONSUMER_RUNNING_INFO, () =>
        decodeConsumerRunningInfo(r.body ?? new Uint8Array()),
      );
    } catch (err) {
      last = err;
    }
  }
  throw last;
}
