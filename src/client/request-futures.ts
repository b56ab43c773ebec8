/**
 * The requester's side of request-reply (Java's RequestFutureHolder, RequestResponseFuture and
 * ClientRemotingProcessor#receiveReplyMessage): requests waiting for their reply by CORRELATION_ID,
 * each with its own deadline, and the PUSH_REPLY_MESSAGE_TO_CLIENT (326) handler that turns a
 * broker's push into a MessageExt and settles the request it answers.
 */
import type { Logger } from "../log.ts";
import { ReplyMessageRequestHeader } from "../protocol/headers/reply.ts";
import { decodeProperties, MessageConst, splitKeys } from "../protocol/message/index.ts";
import { RemotingCommand, ResponseCode } from "../remoting/index.ts";
import { receivedBody } from "./compression.ts";
import { MQClientError } from "./errors.ts";
import type { MessageExt } from "./message.ts";

/** Java's ClientErrorCode: client-side codes outside the wire's ResponseCode table. */
export const ClientErrorCode = {
  REQUEST_TIMEOUT_EXCEPTION: 10006,
  CREATE_REPLY_MESSAGE_EXCEPTION: 10007,
} as const;

interface Pending {
  resolve(msg: MessageExt): void;
  reject(err: Error): void;
  timer: ReturnType<typeof setTimeout>;
}

export class RequestFutures {
  private readonly pending = new Map<string, Pending>();

  get size(): number {
    return this.pending.size;
  }

  /**
   * Waits for the reply to `correlationId`; rejects with REQUEST_TIMEOUT_EXCEPTION after `leftMs`
   * (what is left of the request's `timeoutMs`, which the error names). The timeout error is made
   * now, so its stack shows the caller.
   */
  wait(correlationId: string, topic: string, timeoutMs: number, leftMs = timeoutMs): Promise<MessageExt> {
    const timeout = new MQClientError({
      code: ClientErrorCode.REQUEST_TIMEOUT_EXCEPTION,
      remark: `send request message to <${topic}> OK, but wait reply message timeout, ${timeoutMs} ms.`,
    });
    return new Promise<MessageExt>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(correlationId);
        reject(timeout);
      }, leftMs);
      this.pending.set(correlationId, { resolve, reject, timer });
    });
  }

  /** Settles the request `correlationId` answers; false when none waits (timed out, or not ours). */
  resolve(correlationId: string, msg: MessageExt): boolean {
    const p = this.pending.get(correlationId);
    if (!p) return false;
    this.pending.delete(correlationId);
    clearTimeout(p.timer);
    p.resolve(msg);
    return true;
  }

  /** Fails one request (its send failed) with `err`. */
  fail(correlationId: string, err: Error): void {
    const p = this.pending.get(correlationId);
    if (!p) return;
    this.pending.delete(correlationId);
    clearTimeout(p.timer);
    p.reject(err);
  }

  /** Fails every waiting request (the client shuts down). */
  failAll(err: Error): void {
    for (const id of [...this.pending.keys()]) this.fail(id, err);
  }
}

/**
 * PUSH_REPLY_MESSAGE_TO_CLIENT: answers SUCCESS once the reply is read, whether or not a request
 * still waits for it (Java does the same); an unreadable push answers SYSTEM_ERROR.
 */
export function receiveReply(req: RemotingCommand, futures: RequestFutures, log: Logger): RemotingCommand {
  let msg: MessageExt;
  try {
    msg = replyMessageOf(req, Date.now());
  } catch (err) {
    log.warn({ err: (err as Error).message }, "unreadable reply message");
    return RemotingCommand.response(ResponseCode.SYSTEM_ERROR, "process reply message fail");
  }
  const correlationId = msg.properties[MessageConst.CORRELATION_ID] ?? "";
  if (!futures.resolve(correlationId, msg)) {
    log.warn({ correlationId, topic: msg.topic }, "reply for no waiting request (timed out?)");
  }
  return RemotingCommand.response(ResponseCode.SUCCESS);
}

/** The pushed reply as a consumer would see it, with ARRIVE_TIME = `arrivedAt`. */
export function replyMessageOf(req: RemotingCommand, arrivedAt: number): MessageExt {
  const h = ReplyMessageRequestHeader.decode(req.extFields);
  const received = receivedBody(req.body ?? new Uint8Array(0), h.sysFlag);
  if (!received) throw new Error("reply body does not decompress");
  const { body, sysFlag } = received;
  const properties = Object.fromEntries(decodeProperties(h.properties ?? "")) as Record<string, string>;
  properties[MessageConst.ARRIVE_TIME] = String(arrivedAt);
  return {
    topic: h.topic,
    body,
    tags: properties[MessageConst.TAGS],
    keys: splitKeys(properties[MessageConst.KEYS]),
    msgId: properties[MessageConst.UNIQ_KEY] ?? "",
    // A pushed reply has no stored position of its own (the broker may store it after the push).
    offsetMsgId: "",
    properties,
    queueId: h.queueId,
    queueOffset: 0,
    commitLogOffset: 0,
    brokerName: "",
    bornTimestamp: h.bornTimestamp,
    bornHost: h.bornHost,
    storeTimestamp: h.storeTimestamp,
    storeHost: h.storeHost,
    reconsumeTimes: h.reconsumeTimes ?? 0,
    flag: h.flag,
    sysFlag,
    bodyCrc: 0,
    storeSize: 0,
  };
}
