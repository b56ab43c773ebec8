/**
 * PEEK_MESSAGE (200052), NOTIFICATION (200054), POLLING_INFO (200055) and POP_ROLLBACK (200056)
 * as a 5.x broker answers them (spec pop-timer-filter §A.10): PEEK reads from the group's pop
 * offsets without leasing anything (PULL_NOT_FOUND when empty); NOTIFICATION tells whether a pop
 * would find something, long-polled in a registry of its own; POLLING_INFO counts the POPs parked
 * under `<topic>@<group>@<queueId>`; POP_ROLLBACK has no second store to roll back: SUCCESS.
 */
import {
  NotificationRequestHeader,
  NotificationResponseHeader,
  PeekMessageRequestHeader,
  PollingInfoRequestHeader,
  PollingInfoResponseHeader,
  PopMessageResponseHeader,
  popRetryTopicV1,
} from "../../src/protocol/headers/pop.ts";
import { RemotingCommand } from "../../src/remoting/command.ts";
import type { ProcessorTableEntry, RequestContext } from "../../src/remoting/processor-registry.ts";
import { RequestCode } from "../../src/remoting/request-code.ts";
import { ResponseCode } from "../../src/remoting/response-code.ts";
import type { BrokerContext } from "../context.ts";
import { popServiceOf } from "../services/pop-leases.ts";
import { joinRecords } from "../store/read-buffers.ts";
import { GetMessageStatus } from "../store/status.ts";
import { ReadCharge } from "./pop-budget.ts";
import { checkBrokerReadable, checkTopicAndGroup } from "./pop-checks.ts";

/** Java's `randomQ % 5 == 0`: the retry topic is looked at first one time in five. */
const RETRY_FIRST_EVERY = 5;
/** As for POP (§A.11): an idle NOTIFICATION is answered this long before bornTime + pollTime. */
const DEADLINE_MARGIN_MS = 50;

/** The queues PEEK and NOTIFICATION visit, in Java's order (§A.10). */
function visitOrder(ctx: BrokerContext, topic: string, queueId: number, group: string) {
  const randomQ = Math.floor(Math.random() * 100);
  const retryFirst = randomQ % RETRY_FIRST_EVERY === 0;
  const retryTopic = popRetryTopicV1(topic, group);
  const retry = ctx.topics.get(retryTopic);
  const retryQueues: [string, number][] = [];
  for (let i = 0; i < (retry?.readQueueNums ?? 0); i++) {
    retryQueues.push([retryTopic, (randomQ + i) % retry!.readQueueNums]);
  }
  const readQueues = ctx.topics.get(topic)?.readQueueNums ?? 0;
  const topicQueues: [string, number][] = [];
  if (queueId >= 0) topicQueues.push([topic, queueId]);
  else for (let i = 0; i < readQueues; i++) topicQueues.push([topic, (randomQ + i) % readQueues]);
  return { retryFirst, retryQueues, topicQueues };
}

/** Where the group's next pop of a queue starts: committed (or min) offset, or later if popped. */
function popOffsetOf(ctx: BrokerContext, group: string, topic: string, queueId: number): number {
  let offset = ctx.offsets.query(group, topic, queueId);
  if (offset < 0) offset = ctx.store.getMinOffsetInQueue(topic, queueId);
  const popped = popServiceOf(ctx).findQueue(group, topic, queueId)?.popped ?? -1;
  return Math.max(offset, popped);
}

async function peek(ctx: BrokerContext, req: RemotingCommand, rc: RequestContext): Promise<RemotingCommand> {
  const h = PeekMessageRequestHeader.decode(req.extFields);
  checkBrokerReadable(ctx, "peeking");
  checkTopicAndGroup(ctx, rc, h.topic, h.queueId, h.consumerGroup);
  const { retryFirst, retryQueues, topicQueues } = visitOrder(ctx, h.topic, h.queueId, h.consumerGroup);
  const messages: Uint8Array[] = [];
  let restNum = 0;
  const charge = new ReadCharge(ctx, rc.connection);
  const peekQueue = async ([topic, queueId]: [string, number]) => {
    let offset = popOffsetOf(ctx, h.consumerGroup, topic, queueId);
    restNum += Math.max(0, ctx.store.getMaxOffsetInQueue(topic, queueId) - offset);
    const want = Math.min(h.maxMsgNums - messages.length, ctx.storeConfig.maxTransferCountOnMessageInMemory);
    if (want <= 0 || !charge.beforeRead()) return;
    let bytes = 0;
    try {
      const get = () =>
        ctx.store.getMessage(
          h.consumerGroup,
          topic,
          queueId,
          offset,
          want,
          ctx.storeConfig.maxTransferBytesOnMessageInMemory,
        );
      let r = await get();
      if (
        r.status === GetMessageStatus.OFFSET_TOO_SMALL ||
        r.status === GetMessageStatus.OFFSET_OVERFLOW_BADLY
      ) {
        offset = r.nextBeginOffset;
        r = await get();
      }
      for (const m of r.messages) {
        bytes += m.byteLength;
        messages.push(m);
      }
    } finally {
      charge.afterRead(bytes);
    }
  };
  try {
    const order = retryFirst ? [...retryQueues, ...topicQueues] : topicQueues;
    for (const q of order) await peekQueue(q);
    if (!retryFirst && messages.length < h.maxMsgNums) for (const q of retryQueues) await peekQueue(q);
    charge.throwIfRefusedEmpty(messages.length);
    // Java fills only restNum; its primitives go out as zeros.
    const ext = PopMessageResponseHeader.encode({ popTime: 0, invisibleTime: 0, reviveQid: 0, restNum });
    if (messages.length === 0) {
      return RemotingCommand.response(ResponseCode.PULL_NOT_FOUND, GetMessageStatus.NO_MESSAGE_IN_QUEUE, ext);
    }
    const body = joinRecords(messages);
    return RemotingCommand.response(ResponseCode.SUCCESS, GetMessageStatus.FOUND, ext, body);
  } finally {
    charge.release();
  }
}

function notification(ctx: BrokerContext, req: RemotingCommand, rc: RequestContext): RemotingCommand | null {
  const ext = { ...(req.extFields ?? {}) };
  if (ext.bornTime === undefined || ext.bornTime === "0") ext.bornTime = String(Date.now());
  const h = NotificationRequestHeader.decode(ext);
  checkBrokerReadable(ctx, "peeking");
  checkTopicAndGroup(ctx, rc, h.topic, h.queueId, h.consumerGroup);
  const pop = popServiceOf(ctx);
  const deadline = h.bornTime + h.pollTime - DEADLINE_MARGIN_MS;
  const reply = (hasMsg: boolean, pollingFull: boolean) =>
    RemotingCommand.response(
      ResponseCode.SUCCESS,
      null,
      NotificationResponseHeader.encode({ hasMsg, pollingFull }),
    );
  const hasMsgIn = ([topic, queueId]: [string, number]) => {
    // An ordered consumer's blocked queue has nothing for it (§A.10).
    if (h.order === true && topic === h.topic) {
      const q = pop.findQueue(h.consumerGroup, topic, queueId);
      if (q && pop.ordered.blocked(q, h.attemptId ?? null, Date.now())) return false;
    }
    return ctx.store.getMaxOffsetInQueue(topic, queueId) > popOffsetOf(ctx, h.consumerGroup, topic, queueId);
  };
  const run = (mayPark: boolean): RemotingCommand | null => {
    const { retryFirst, retryQueues, topicQueues } = visitOrder(ctx, h.topic, h.queueId, h.consumerGroup);
    const order = retryFirst ? [...retryQueues, ...topicQueues] : [...topicQueues, ...retryQueues];
    if (order.some(hasMsgIn)) return reply(true, false);
    if (!mayPark || h.pollTime <= 0 || Date.now() > deadline || rc.connection.closed)
      return reply(false, false);
    const parked = pop.notifications.park({
      conn: rc.connection,
      group: h.consumerGroup,
      topic: h.topic,
      queueId: h.queueId < 0 ? -1 : h.queueId,
      deadline,
      matches: () => true,
      wake: () => answer(run(true)),
      expire: () => answer(run(false)),
    });
    return parked === "parked" ? null : reply(false, true);
  };
  const answer = (r: RemotingCommand | null) => {
    if (r) rc.reply(r);
  };
  return run(true);
}

function pollingInfo(ctx: BrokerContext, req: RemotingCommand, rc: RequestContext): RemotingCommand {
  const h = PollingInfoRequestHeader.decode(req.extFields);
  checkBrokerReadable(ctx, "peeking");
  checkTopicAndGroup(ctx, rc, h.topic, h.queueId, h.consumerGroup);
  const pollingNum = popServiceOf(ctx).waiters.count(
    h.topic,
    h.consumerGroup,
    h.queueId < 0 ? -1 : h.queueId,
  );
  return RemotingCommand.response(
    ResponseCode.SUCCESS,
    null,
    PollingInfoResponseHeader.encode({ pollingNum }),
  );
}

export function popPeekProcessors(ctx: BrokerContext): ProcessorTableEntry[] {
  return [
    [RequestCode.PEEK_MESSAGE, (req, rc) => peek(ctx, req, rc)],
    [RequestCode.NOTIFICATION, (req, rc) => notification(ctx, req, rc)],
    [RequestCode.POLLING_INFO, (req, rc) => pollingInfo(ctx, req, rc)],
  ];
}

/** Main and VIP port, as Java's admin processor serves it. */
export const popRollbackProcessor: ProcessorTableEntry = [
  RequestCode.POP_ROLLBACK,
  () => RemotingCommand.response(ResponseCode.SUCCESS, null),
];
