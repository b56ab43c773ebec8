/**
 * POP_MESSAGE (200050), unordered and ordered (spec pop-timer-filter §A.4–A.5, §A.11, §A.15): the checks of
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
  encodeOrderCountInfo,
  encodeStartOffsetInfo,
  invisibleTimeRemark,
  POP_BATCH_MAX,
  POP_INVISIBLE_TIME_MAX_MS,
  PopMessageRequestHeader,
  PopMessageResponseHeader,
} from "../../src/protocol/headers/pop.ts";
import { RemotingCommand } from "../../src/remoting/command.ts";
import { RemotingError } from "../../src/remoting/errors.ts";
import type { RequestContext } from "../../src/remoting/processor-registry.ts";
import { ResponseCode } from "../../src/remoting/response-code.ts";
import type { BrokerContext } from "../context.ts";
import { popSqlFilter } from "../filter/message-filters.ts";
import { type PopService, popServiceOf } from "../services/pop-leases.ts";
import type { MessageFilter } from "../store/message-store.ts";
import { joinRecords } from "../store/read-buffers.ts";
import { ReadCharge } from "./pop-budget.ts";
import { checkBrokerReadable, checkTopicAndGroup } from "./pop-checks.ts";
import { type PopBatch, popBatch } from "./pop-read.ts";

type PopHeader = ReturnType<typeof PopMessageRequestHeader.decode>;

const NO_MESSAGE_REMARK = "NO_MESSAGE_IN_QUEUE";
/** Java answers an idle pop this long before bornTime + pollTime (§A.11). */
const DEADLINE_MARGIN_MS = 50;
/** Reads a pop repeats while wake-ups keep arriving during its read, before it parks anyway. */
const REREADS_MAX = 3;

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
      const charge = new ReadCharge(ctx, rc.connection);
      try {
        return await attempt(mayPark, charge);
      } finally {
        charge.release();
      }
    };
    const attempt = async (mayPark: boolean, charge: ReadCharge): Promise<RemotingCommand | null> => {
      let epoch = pop.waiters.epoch(h.topic, h.consumerGroup);
      let batch = await popBatch(ctx, pop, h, filter, charge);
      // An arrival or unblock during the read would find no waiter: read again rather than park.
      for (let i = 0; i < REREADS_MAX && batch.messages.length === 0 && !charge.refused; i++) {
        const now = pop.waiters.epoch(h.topic, h.consumerGroup);
        if (now === epoch) break;
        epoch = now;
        batch = await popBatch(ctx, pop, h, filter, charge);
      }
      charge.throwIfRefusedEmpty(batch.messages.length);
      if (batch.messages.length > 0) {
        // The leases must survive a crash before the client may hold them.
        await Promise.all(batch.durable);
        return found(h, batch);
      }
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
    ...orderCountInfoOf(h, b),
  });
  const body = joinRecords(b.messages);
  return RemotingCommand.response(ResponseCode.SUCCESS, "FOUND", ext, body);
}

/** Ordered pops always carry orderCountInfo, empty when nothing was read (§A.5.2). */
function orderCountInfoOf(h: PopHeader, b: PopBatch): { orderCountInfo?: string } {
  return h.order === true ? { orderCountInfo: encodeOrderCountInfo(b.orderCounts) } : {};
}

function empty(code: number, h: PopHeader, b: PopBatch): RemotingCommand {
  const ext = PopMessageResponseHeader.encode({
    popTime: b.popTime,
    invisibleTime: h.invisibleTime,
    reviveQid: b.reviveQid,
    restNum: b.restNum,
    startOffsetInfo: "",
    msgOffsetInfo: "",
    ...orderCountInfoOf(h, b),
  });
  return RemotingCommand.response(code, NO_MESSAGE_REMARK, ext);
}

/** §A.4.2 steps 3–10 (step 5, timerWheelEnable, does not apply: leases need no timer). */
function check(ctx: BrokerContext, h: PopHeader, rc: RequestContext): SubscriptionData {
  checkBrokerReadable(ctx, "pop");
  if (h.maxMsgNums > POP_BATCH_MAX) {
    throw new RemotingError(
      ResponseCode.INVALID_PARAMETER,
      `the broker[${ctx.brokerConfig.brokerIP1}] pop message's num is greater than ${POP_BATCH_MAX}`,
    );
  }
  if (h.invisibleTime < 0 || h.invisibleTime > POP_INVISIBLE_TIME_MAX_MS) {
    throw new RemotingError(ResponseCode.INVALID_PARAMETER, invisibleTimeRemark(h.invisibleTime));
  }
  checkTopicAndGroup(ctx, rc, h.topic, h.queueId, h.consumerGroup);
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
