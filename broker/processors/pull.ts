/**
 * PULL_MESSAGE (11) (spec broker §7): checks, subscription, store read, status → code mapping,
 * commit-on-pull, and long polling. A held pull is re-run without suspend or commit rights when a
 * matching message arrives or its hold ends, and answered through the request context.
 */
import {
  ExpressionType,
  matchesTagsCode,
  type SubscriptionData,
} from "../../src/protocol/body/subscription.ts";
import {
  PullMessageRequestHeader,
  PullMessageResponseHeader,
  PullSysFlag,
} from "../../src/protocol/headers/pull.ts";
import { isReadable } from "../../src/protocol/route/perm.ts";
import { RemotingCommand } from "../../src/remoting/command.ts";
import type { Connection } from "../../src/remoting/connection.ts";
import { REJECT_REQUEST_REMARK, RemotingError } from "../../src/remoting/errors.ts";
import type { RequestContext } from "../../src/remoting/processor-registry.ts";
import { ResponseCode } from "../../src/remoting/response-code.ts";
import type { BrokerContext } from "../context.ts";
import {
  arrivalMatches,
  checkRegisteredFilter,
  pullSqlFilter,
  SQL92_DISABLED_REMARK,
  subscriptionFromPullHeader,
} from "../filter/message-filters.ts";
import { heldPullBytes } from "../services/long-poll.ts";
import type { MessageFilter } from "../store/message-store.ts";
import { joinRecords } from "../store/read-buffers.ts";
import { GetMessageStatus } from "../store/status.ts";

type PullHeader = ReturnType<typeof PullMessageRequestHeader.decode>;

/** The outcome of one read, before it is answered or held. */
interface PullOutcome {
  code: number;
  status: string;
  nextBeginOffset: number;
  minOffset: number;
  maxOffset: number;
  body: Uint8Array | null;
}

export function createPullProcessor(ctx: BrokerContext) {
  return async (request: RemotingCommand, rc: RequestContext): Promise<RemotingCommand | null> => {
    const h = PullMessageRequestHeader.decode(request.extFields);
    const sub = await checkAndResolveSubscription(ctx, h);
    const fromHeader = (h.sysFlag & PullSysFlag.SUBSCRIPTION) !== 0;
    const filter = pullSqlFilter(ctx, h.consumerGroup, sub, fromHeader) ?? tagFilter(sub);
    // Nobody is left to answer: reading would only make garbage (a budget eviction closed it).
    if (rc.connection.closed) return null;
    const outcome = await budgetedRead(ctx, rc.connection, h, filter);
    if ((h.sysFlag & PullSysFlag.COMMIT_OFFSET) !== 0 && h.commitOffset >= 0) {
      ctx.offsets.commit(h.consumerGroup, h.topic, h.queueId, h.commitOffset);
    }
    if (outcome.code === ResponseCode.PULL_NOT_FOUND && (h.sysFlag & PullSysFlag.SUSPEND) !== 0) {
      const holdMs = ctx.brokerConfig.longPollingEnable
        ? Math.min(Math.max(h.suspendTimeoutMillis, 0), ctx.limits.pullSuspendMsMax)
        : ctx.brokerConfig.shortPollingTimeMills;
      const held = ctx.longPoll.hold({
        conn: rc.connection,
        topic: h.topic,
        queueId: h.queueId,
        offset: h.queueOffset,
        deadline: Date.now() + holdMs,
        bytes: heldPullBytes(request),
        matches: (tagsCode, properties) =>
          (tagsCode === undefined || matchesTagsCode(sub, tagsCode)) && arrivalMatches(filter, properties),
        wake: () => {
          budgetedRead(ctx, rc.connection, h, filter).then(
            (again) => rc.reply(answer(again)),
            (err: unknown) => {
              if (err instanceof RemotingError) {
                rc.reply(RemotingCommand.response(err.code, err.remark));
                return;
              }
              ctx.log.error({ err }, "re-running a held pull failed");
              rc.reply(RemotingCommand.response(ResponseCode.SYSTEM_ERROR, String(err)));
            },
          );
        },
      });
      if (held === "held") return null;
      if (held === "over-budget") {
        // Java's client waits before pulling again after SYSTEM_BUSY; PULL_NOT_FOUND would not.
        throw new RemotingError(
          ResponseCode.SYSTEM_BUSY,
          `${REJECT_REQUEST_REMARK}: held pulls fill the server buffer budget`,
        );
      }
    }
    return answer(outcome);
  };
}

function answer(o: PullOutcome): RemotingCommand {
  const ext = PullMessageResponseHeader.encode({
    suggestWhichBrokerId: 0,
    nextBeginOffset: o.nextBeginOffset,
    minOffset: o.minOffset,
    maxOffset: o.maxOffset,
  });
  return RemotingCommand.response(o.code, o.status, ext, o.body);
}

/** Steps 1-5 of spec §7.4: permissions, group, topic, queue, subscription. */
async function checkAndResolveSubscription(
  ctx: BrokerContext,
  h: PullHeader,
): Promise<SubscriptionData | null> {
  if (!isReadable(ctx.runtime.brokerPermission)) {
    throw new RemotingError(
      ResponseCode.NO_PERMISSION,
      `the broker[${ctx.brokerConfig.brokerName}] pulling message is forbidden`,
    );
  }
  const group = ctx.groups.findOrCreate(h.consumerGroup, ctx.brokerConfig.autoCreateSubscriptionGroup);
  if (!group) {
    throw new RemotingError(
      ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST,
      `subscription group [${h.consumerGroup}] does not exist`,
    );
  }
  if (!group.consumeEnable) {
    throw new RemotingError(
      ResponseCode.NO_PERMISSION,
      `subscription group no permission, ${h.consumerGroup}`,
    );
  }
  const topic = ctx.topics.get(h.topic);
  if (!topic) {
    throw new RemotingError(ResponseCode.TOPIC_NOT_EXIST, `topic[${h.topic}] not exist, apply first please!`);
  }
  if (!isReadable(topic.perm)) {
    throw new RemotingError(ResponseCode.NO_PERMISSION, `the topic[${h.topic}] pulling message is forbidden`);
  }
  if (h.queueId < 0 || h.queueId >= topic.readQueueNums) {
    throw new RemotingError(
      ResponseCode.INVALID_PARAMETER,
      `queueId[${h.queueId}] is illegal, topic:[${h.topic}] topicConfig.readQueueNums:[${topic.readQueueNums}]`,
    );
  }
  let sub: SubscriptionData | null;
  if ((h.sysFlag & PullSysFlag.SUBSCRIPTION) !== 0) {
    sub = subscriptionFromPullHeader(h.topic, h.subscription, h.expressionType, h.subVersion);
  } else {
    const consumers = ctx.clients.consumerGroup(h.consumerGroup);
    if (!consumers) {
      throw new RemotingError(
        ResponseCode.SUBSCRIPTION_NOT_EXIST,
        `the consumer's group info not exist, group: ${h.consumerGroup}`,
      );
    }
    if (consumers.messageModel === "BROADCASTING" && !group.consumeBroadcastEnable) {
      throw new RemotingError(
        ResponseCode.NO_PERMISSION,
        `the consumer group[${h.consumerGroup}] can not consume by broadcast way`,
      );
    }
    sub = consumers.subscriptions.get(h.topic) ?? null;
    if (!sub) {
      throw new RemotingError(
        ResponseCode.SUBSCRIPTION_NOT_EXIST,
        `the consumer's subscription not exist, group: ${h.consumerGroup}, topic: ${h.topic}`,
      );
    }
    if (sub.subVersion < h.subVersion) {
      throw new RemotingError(
        ResponseCode.SUBSCRIPTION_NOT_LATEST,
        `the consumer's subscription not latest, group: ${h.consumerGroup}`,
      );
    }
    checkRegisteredFilter(ctx, h.consumerGroup, sub, h.subVersion);
  }
  if (sub.expressionType !== ExpressionType.TAG && !ctx.brokerConfig.enablePropertyFilter) {
    throw new RemotingError(ResponseCode.SYSTEM_ERROR, SQL92_DISABLED_REMARK);
  }
  return sub;
}

function tagFilter(sub: SubscriptionData | null): MessageFilter | undefined {
  if (!sub || sub.subString === "*") return undefined;
  return { isMatchedByConsumeQueue: (tagsCode) => matchesTagsCode(sub, tagsCode) };
}

/**
 * A read whose bytes are charged to the connection in the buffer budget while it runs, so that a
 * burst of pulls (the pull lane runs 1024 at once) cannot allocate past the budget. A read makes
 * a body of up to maxTransferBytesOnMessageInMemory, or one message of up to maxMessageSize when
 * the first is bigger (Java's rule), so the larger of the two is charged. When the budget is full
 * the pull is refused SYSTEM_BUSY (Java's client waits before pulling again); with the default
 * budget that leaves hundreds of reads in flight, more than Java's pull threads. The response,
 * once sent, is charged at its real size until the socket takes it.
 */
async function budgetedRead(
  ctx: BrokerContext,
  conn: Connection,
  h: PullHeader,
  filter: MessageFilter | undefined,
): Promise<PullOutcome> {
  const bytes = Math.max(ctx.storeConfig.maxTransferBytesOnMessageInMemory, ctx.storeConfig.maxMessageSize);
  if (!ctx.budget.take(conn, bytes, "working")) {
    throw new RemotingError(
      ResponseCode.SYSTEM_BUSY,
      `${REJECT_REQUEST_REMARK}: pull reads fill the server buffer budget`,
    );
  }
  try {
    return await read(ctx, h, filter);
  } finally {
    ctx.budget.give(conn, bytes, "working");
  }
}

/** Reads and maps GetMessageStatus to the response code (spec §7.5 table). */
async function read(
  ctx: BrokerContext,
  h: PullHeader,
  filter: MessageFilter | undefined,
): Promise<PullOutcome> {
  const maxNums = Math.max(1, Math.min(h.maxMsgNums, ctx.storeConfig.maxTransferCountOnMessageInMemory));
  const r = await ctx.store.getMessage(
    h.consumerGroup,
    h.topic,
    h.queueId,
    h.queueOffset,
    maxNums,
    ctx.storeConfig.maxTransferBytesOnMessageInMemory,
    filter,
  );
  let code: number;
  switch (r.status) {
    case GetMessageStatus.FOUND:
      code = ResponseCode.SUCCESS;
      break;
    case GetMessageStatus.MESSAGE_WAS_REMOVING:
    case GetMessageStatus.NO_MATCHED_MESSAGE:
      code = ResponseCode.PULL_RETRY_IMMEDIATELY;
      break;
    case GetMessageStatus.NO_MATCHED_LOGIC_QUEUE:
    case GetMessageStatus.NO_MESSAGE_IN_QUEUE:
      code = h.queueOffset !== 0 ? ResponseCode.PULL_OFFSET_MOVED : ResponseCode.PULL_NOT_FOUND;
      break;
    case GetMessageStatus.OFFSET_FOUND_NULL:
    case GetMessageStatus.OFFSET_OVERFLOW_ONE:
      code = ResponseCode.PULL_NOT_FOUND;
      break;
    default:
      code = ResponseCode.PULL_OFFSET_MOVED;
  }
  let body: Uint8Array | null = null;
  if (code === ResponseCode.SUCCESS) {
    body = joinRecords(r.messages);
    ctx.stats.countGet(h.topic, h.consumerGroup, r.messages.length, body.length);
  }
  return {
    code,
    status: r.status,
    nextBeginOffset: r.nextBeginOffset,
    minOffset: r.minOffset,
    maxOffset: r.maxOffset,
    body,
  };
}
