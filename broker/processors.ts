/**
 * The broker's request table: every [code, processor] pair on one screen, with the lane each runs on.
 * The VIP (fast) port serves the same table minus pulls, as RocketMQ's does (spec broker §0 item 5).
 */
import type { ProcessorRegistry, ProcessorTableEntry } from "../src/remoting/processor-registry.ts";
import { RequestCode } from "../src/remoting/request-code.ts";
import type { BrokerContext } from "./context.ts";
import { ackProcessors } from "./processors/ack.ts";
import { aclAdminProcessors } from "./processors/admin-acl.ts";
import { adminBrokerProcessors } from "./processors/admin-broker.ts";
import { adminGroupProcessors } from "./processors/admin-group.ts";
import { adminMaintenanceProcessors } from "./processors/admin-maintenance.ts";
import { adminTopicProcessors } from "./processors/admin-topic.ts";
import { clientManageProcessors } from "./processors/client-manage.ts";
import { consumeStatsProcessors } from "./processors/consume-stats.ts";
import { consumerCallProcessors } from "./processors/consumer-call.ts";
import { consumerStatusProcessors } from "./processors/consumer-status.ts";
import { correctionOffsetProcessors } from "./processors/correction-offset.ts";
import { delayOffsetProcessors } from "./processors/delay-offset.ts";
import { endTransactionProcessors } from "./processors/end-transaction.ts";
import { lockProcessors } from "./processors/lock.ts";
import { offsetProcessors } from "./processors/offsets.ts";
import { createPopProcessor } from "./processors/pop.ts";
import { popPeekProcessors, popRollbackProcessor } from "./processors/pop-peek.ts";
import { createPullProcessor } from "./processors/pull.ts";
import { queryProcessors } from "./processors/query.ts";
import { recallProcessors } from "./processors/recall.ts";
import { replyProcessors } from "./processors/reply.ts";
import { resumeHalfProcessors } from "./processors/resume-half.ts";
import { createSendProcessor } from "./processors/send.ts";
import { sendBackProcessors } from "./processors/send-back.ts";
import { commitSteps, sendPipeline, sendSteps } from "./processors/send-steps/index.ts";

/** Codes the VIP port does not serve: they fall through to "not supported" there. */
const MAIN_PORT_ONLY: ReadonlySet<number> = new Set([
  RequestCode.PULL_MESSAGE,
  RequestCode.LITE_PULL_MESSAGE,
  RequestCode.POP_MESSAGE,
  RequestCode.PEEK_MESSAGE,
  RequestCode.NOTIFICATION,
  RequestCode.POLLING_INFO,
]);

/**
 * Java's replyMessageExecutor queue (replyThreadPoolQueueCapacity). Replies have their own lane:
 * each holds its slot while the requester answers the push (up to 10 s), never blocking sends.
 */
const REPLY_LANE_QUEUE_MAX = 10_000;
/** Java's replyMessageThreadPoolNums on a many-core machine (16 + 2 × cores). */
const REPLY_LANE_CONCURRENCY = 64;

/** Lanes stand in for Java's per-family executors; queue capacities are RocketMQ's defaults. */
export function defineBrokerLanes(registry: ProcessorRegistry, ctx: BrokerContext): void {
  registry
    .defineLane("send", { concurrency: 1024, queueMax: ctx.brokerConfig.sendThreadPoolQueueCapacity })
    .defineLane("pull", { concurrency: 1024, queueMax: ctx.brokerConfig.pullThreadPoolQueueCapacity })
    .defineLane("query", { concurrency: 64, queueMax: 20_000 })
    .defineLane("reply", { concurrency: REPLY_LANE_CONCURRENCY, queueMax: REPLY_LANE_QUEUE_MAX })
    .defineLane("transaction", { concurrency: 1024, queueMax: 100_000 })
    .defineLane("client", { concurrency: 256, queueMax: 50_000 })
    .defineLane("admin", { concurrency: 16, queueMax: 10_000 });
}

function onLane(lane: string, entries: ProcessorTableEntry[]): ProcessorTableEntry[] {
  return entries.map(
    ([code, p]) => [code, typeof p === "function" ? { process: p, lane } : { ...p, lane }] as const,
  );
}

export function brokerProcessorTable(ctx: BrokerContext): ProcessorTableEntry[] {
  const stepList = sendSteps(ctx);
  const steps = sendPipeline(stepList);
  const send = createSendProcessor(ctx, steps);
  return [
    ...onLane("send", [
      [RequestCode.SEND_MESSAGE, send],
      [RequestCode.SEND_MESSAGE_V2, send],
      [RequestCode.SEND_BATCH_MESSAGE, send],
      ...sendBackProcessors(ctx, steps),
      ...recallProcessors(ctx, steps),
    ]),
    ...onLane("reply", replyProcessors(ctx)),
    // Java's endTransactionExecutor: its own lane, so ends never queue behind sends.
    ...onLane("transaction", endTransactionProcessors(ctx, sendPipeline(commitSteps(stepList)))),
    ...onLane("pull", [
      [RequestCode.PULL_MESSAGE, createPullProcessor(ctx)],
      [RequestCode.POP_MESSAGE, createPopProcessor(ctx)],
      ...popPeekProcessors(ctx),
    ]),
    ...onLane("query", queryProcessors(ctx)),
    // Queue locks on the client lane, not admin's (Java's): a relock must not wait behind admin
    // calls such as a 307 forward that holds its slot up to 10 s for a client that never answers.
    ...onLane("client", [...clientManageProcessors(ctx), ...offsetProcessors(ctx), ...lockProcessors(ctx)]),
    // ACK / CHANGE_INVISIBLETIME of POP: both ports, as Java's M+V registration (spec pop §A.2).
    ...onLane("client", ackProcessors(ctx)),
    ...onLane("admin", [
      popRollbackProcessor,
      ...adminTopicProcessors(ctx),
      ...adminGroupProcessors(ctx),
      ...consumeStatsProcessors(ctx),
      ...resumeHalfProcessors(ctx),
      ...adminBrokerProcessors(ctx),
      ...adminMaintenanceProcessors(ctx),
      ...aclAdminProcessors(ctx),
      ...consumerCallProcessors(ctx),
      ...consumerStatusProcessors(ctx),
      ...correctionOffsetProcessors(ctx),
      ...delayOffsetProcessors(ctx),
    ]),
  ];
}

export function vipProcessorTable(table: ProcessorTableEntry[]): ProcessorTableEntry[] {
  return table.filter(([code]) => !MAIN_PORT_ONLY.has(code));
}
