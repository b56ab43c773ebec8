/**
 * LOCK_BATCH_MQ (41) and UNLOCK_BATCH_MQ (42) (spec broker §8.9): ordered consumers lock the queues
 * they own here, relock them every 20 s and unlock them when they let them go. 42 is often oneway.
 *
 * `onlyThisBroker` is accepted and has no effect: it matters only in Java's strict lock mode
 * (`lockInStrictMode`, off by default), where a broker also locks on its replicas; a RocketBun
 * broker group has no replicas, so every lock is this broker's alone.
 */
import { decodeLockBatchRequest, encodeLockBatchResponse } from "../../src/protocol/body/lock-batch.ts";
import { RemotingCommand } from "../../src/remoting/command.ts";
import { RemotingError } from "../../src/remoting/errors.ts";
import type { ProcessorTableEntry } from "../../src/remoting/processor-registry.ts";
import { RequestCode } from "../../src/remoting/request-code.ts";
import { ResponseCode } from "../../src/remoting/response-code.ts";
import type { BrokerContext } from "../context.ts";

/** The body as a request, or SYSTEM_ERROR naming what is wrong (Java fails the decode the same way). */
function requestOf(req: RemotingCommand, name: string) {
  let body: ReturnType<typeof decodeLockBatchRequest>;
  try {
    body = decodeLockBatchRequest(req.body);
  } catch (err) {
    throw new RemotingError(ResponseCode.SYSTEM_ERROR, `bad ${name}: ${(err as Error).message}`);
  }
  if (body.consumerGroup === "" || body.clientId === "")
    throw new RemotingError(
      ResponseCode.SYSTEM_ERROR,
      `bad ${name}: consumerGroup and clientId are required`,
    );
  return body;
}

export function lockProcessors(ctx: BrokerContext): ProcessorTableEntry[] {
  return [
    [
      RequestCode.LOCK_BATCH_MQ,
      (req, rc) => {
        const body = requestOf(req, "LockBatchRequestBody");
        const locked = ctx.locks.tryLockBatch(body.consumerGroup, body.mqSet, body.clientId, rc.connection);
        return RemotingCommand.response(ResponseCode.SUCCESS, null, null, encodeLockBatchResponse(locked));
      },
    ],
    [
      RequestCode.UNLOCK_BATCH_MQ,
      (req) => {
        const body = requestOf(req, "UnlockBatchRequestBody");
        ctx.locks.unlockBatch(body.consumerGroup, body.mqSet, body.clientId);
        return RemotingCommand.response(ResponseCode.SUCCESS);
      },
    ],
  ];
}
