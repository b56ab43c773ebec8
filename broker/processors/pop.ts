/**
 * POP_MESSAGE (200050), non-ordered (spec pop-timer-filter §A.4–A.5, §A.11): the checks of
 * §A.4.2, then reads from the POP retry topic (first with 20 % probability, else after the
 * topic) and the requested queue or every read queue, leasing each message handed out. Nothing
 * found: the request is parked until a matching arrival or its deadline (POLLING_TIMEOUT).
 */
import {
  buildSubscription,
  ExpressionType,
  matchesTagsCode,
  type SubscriptionData,
} from "../../src/protocol/body/subscription.ts";
import {
  encodeMsgOffsetInfo,
  encodeStartOffsetInfo,
  POP_BATCH_MAX,
  PopMessageRequestHeader,
  PopMessageResponseHeader,
} from "../../src/protocol/headers/pop.ts";
import { isReadable } from "../../src/protocol/route/perm.ts";
import { RemotingCommand } from "../../src/remoting/command.ts";
import { RemotingError } from "../../src/remoting/errors.ts";
import type { RequestContext } from "../../src/remoting/processor-registry.ts";
import { ResponseCode } from "../../src/remoting/response-code.ts";
import type { BrokerContext } from "../context.ts";
import { popSqlFilter } from "../filter/message-filters.ts";
import { type PopService, popServiceOf } from "../services/pop-leases.ts";
import type { MessageFilter } from "../store/message-store.ts";
import { type PopBatch, popBatch } from "./pop-read.ts";

type PopHeader = ReturnType<typeof PopMessageRequestHeader.decode>;

const NO_MESSAGE_REMARK = "NO_MESSAGE_IN_QUEUE";
/** Java answers an idle pop this long before bornTime + pollTime (§A.11). */
const DEADLINE_MARGIN_MS = 50;

export function createPopProcessor(ctx: BrokerContext) {
  const pop = popServiceOf(ctx);
  return async (request: RemotingCommand, rc: RequestContext): Promise<RemotingCommand | null> => {
    const ext = { ...(request.extFields ?? {}) };
    // The proxy sends bornTime 0: the broker's clock stands in (§A.4.1).
    if (ext.bornTime === undefined || ext.bornTime === "0") ext.bornTime = String(Date.now());
    const h = PopMessageRequestHeader.decode(ext);
    const brokerIp = ctx.brokerConfig.brokerIP1;
    if (Date.now() - h.bornTime - h.pollTime > 500) {
      return RemotingCommand.response(
        ResponseCode.POLLING_TIMEOUT,
        `the broker[${brokerIp}] pop message is timeout too much`,
      );
    }
    const sub = check(ctx, h, rc);
    const filter: MessageFilter | undefined =
      sub.expressionType !== ExpressionType.TAG
        ? popSqlFilter(ctx, sub.expressionType, sub.subString)
        : sub.subString === "*"
          ? undefined
          : { isMatchedByConsumeQueue: (c) => matchesTagsCode(sub, c) };
    const deadline = h.bornTime + h.pollTime - DEADLINE_MARGIN_MS;

    const run = async (mayPark: boolean): Promise<RemotingCommand | null> => {
      const batch = await popBatch(ctx, pop, h, filter);
      if (batch.messages.length > 0) return found(h, batch);
      if (!mayPark || h.pollTime <= 0 || Date.now() > deadline || rc.connection.closed) {
        return empty(ResponseCode.POLLING_TIMEOUT, h, batch);
      }
      const parked = pop.waiters.park({
        conn: rc.connection,
        group: h.consumerGroup,
        topic: h.topic,
        queueId: h.queueId < 0 ? -1 : h.queueId,
        deadline,
        matches: (tagsCode) => matchesTagsCode(sub, tagsCode),
        wake: () => later(rc, ctx, run(true)),
        expire: () => later(rc, ctx, run(false)),
      });
      return parked === "parked" ? null : empty(ResponseCode.POLLING_FULL, h, batch);
    };
    return run(true);
  };
}

/** Answers a re-run through the request context, unless it parked again. */
function later(rc: RequestContext, ctx: BrokerContext, reply: Promise<RemotingCommand | null>): void {
  reply.then(
    (r) => {
      if (r) rc.reply(r);
    },
    (err: unknown) => {
      if (err instanceof RemotingError) {
        rc.reply(RemotingCommand.response(err.code, err.remark));
        return;
      }
      ctx.log.error({ err }, "re-running a parked pop failed");
      rc.reply(RemotingCommand.response(ResponseCode.SYSTEM_ERROR, String(err)));
    },
  );
}

function found(h: PopHeader, b: PopBatch): RemotingCommand {
  const ext = PopMessageResponseHeader.encode({
    popTime: b.popTime,
    invisibleTime: h.invisibleTime,
    reviveQid: b.reviveQid,
    restNum: b.restNum,
    startOffsetInfo: encodeStartOffsetInfo(b.queues),
    msgOffsetInfo: encodeMsgOffsetInfo(b.queues),
  });
  const body = b.messages.length === 1 ? b.messages[0]! : Buffer.concat(b.messages);
  return RemotingCommand.response(ResponseCode.SUCCESS, "FOUND", ext, body);
}

function empty(code: number, h: PopHeader, b: PopBatch): RemotingCommand {
  const ext = PopMessageResponseHeader.encode({
    popTime: b.popTime,
    invisibleTime: h.invisibleTime,
    reviveQid: b.reviveQid,
    restNum: b.restNum,
    startOffsetInfo: "",
    msgOffsetInfo: "",
  });
  return RemotingCommand.response(code, NO_MESSAGE_REMARK, ext);
}

/** §A.4.2 steps 3–10 (step 5, timerWheelEnable, does not apply: leases need no timer). */
function check(ctx: BrokerContext, h: PopHeader, rc: RequestContext): SubscriptionData {
  const ip = ctx.brokerConfig.brokerIP1;
  if (!isReadable(ctx.runtime.brokerPermission)) {
    throw new RemotingError(ResponseCode.NO_PERMISSION, `the broker[${ip}] pop message is forbidden`);
  }
  if (h.maxMsgNums > POP_BATCH_MAX) {
    throw new RemotingError(
      ResponseCode.INVALID_PARAMETER,
      `the broker[${ip}] pop message's num is greater than ${POP_BATCH_MAX}`,
    );
  }
  if (h.order === true) {
    // Ordered POP (§A.15) is not implemented yet: refuse rather than deliver out of order.
    throw new RemotingError(ResponseCode.SYSTEM_ERROR, "ordered POP is not supported by this broker yet");
  }
  const topic = ctx.topics.get(h.topic);
  if (!topic) {
    throw new RemotingError(ResponseCode.TOPIC_NOT_EXIST, `topic[${h.topic}] not exist, apply first please!`);
  }
  if (!isReadable(topic.perm)) {
    throw new RemotingError(ResponseCode.NO_PERMISSION, `the topic[${h.topic}] peeking message is forbidden`);
  }
  if (h.queueId >= topic.readQueueNums) {
    throw new RemotingError(
      ResponseCode.INVALID_PARAMETER,
      `queueId[${h.queueId}] is illegal, topic:[${h.topic}] topicConfig.readQueueNums:[${topic.readQueueNums}] consumer:[${rc.connection.remoteAddress}]`,
    );
  }
  const group = ctx.groups.findOrCreate(h.consumerGroup, ctx.brokerConfig.autoCreateSubscriptionGroup);
  if (!group) {
    throw new RemotingError(
      ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST,
      `subscription group [${h.consumerGroup}] does not exist, `,
    );
  }
  if (!group.consumeEnable) {
    throw new RemotingError(
      ResponseCode.NO_PERMISSION,
      `subscription group no permission, ${h.consumerGroup}`,
    );
  }
  if (h.expType && h.expType !== ExpressionType.TAG && h.exp) {
    // Compiled by popSqlFilter (SUBSCRIPTION_PARSE_FAILED there); POP is not gated (spec §C.2).
    return { ...buildSubscription(h.topic, "*", 0), subString: h.exp, expressionType: h.expType };
  }
  try {
    return buildSubscription(h.topic, h.exp ? h.exp : "*", 0);
  } catch {
    throw new RemotingError(
      ResponseCode.SUBSCRIPTION_PARSE_FAILED,
      "parse the consumer's subscription failed",
    );
  }
}

export type { PopService };
