/**
 * Errors of the remoting layer. RemotingError carries a wire response code: a processor throws it and
 * the dispatcher answers `(code, remark)`; any other throw becomes SYSTEM_ERROR.
 */
import type { RemotingCommand } from "./command.ts";
import { requestCodeName } from "./request-code.ts";
import { ResponseCode, responseCodeName } from "./response-code.ts";

export class RemotingError extends Error {
  override name = "RemotingError";
  constructor(
    readonly code: number,
    readonly remark: string,
    options?: ErrorOptions,
  ) {
    super(`${responseCodeName(code)}: ${remark}`, options);
  }
}

/** A frame that cannot be decoded; the connection that sent it is closed (spec remoting §1.2). */
export class FrameError extends Error {
  override name = "FrameError";
}

/**
 * A frame whose header decoded, so its code and opaque are known, but whose fields are unusable
 * (an extFields value that is an object or array). A request is refused with SYSTEM_ERROR under
 * its own opaque, as Java answers a header it cannot bind; the connection stays open.
 */
export class RefusedRequestError extends FrameError {
  override name = "RefusedRequestError";
  constructor(
    readonly command: RemotingCommand,
    message: string,
  ) {
    super(message);
  }
}

/** The peer did not answer in time. Created when the request is sent, so its stack names the caller. */
export class RemotingTimeoutError extends Error {
  override name = "RemotingTimeoutError";
  readonly responseCode = ResponseCode.RPC_TIME_OUT;
  constructor(
    readonly code: number,
    readonly opaque: number,
    readonly addr: string,
    readonly timeoutMs: number,
  ) {
    super(`request ${requestCodeName(code)} (opaque ${opaque}) to ${addr} timed out after ${timeoutMs} ms`);
  }
}

/** The connection closed before the response arrived; `reason` says why when it is known. */
export class ConnectionClosedError extends Error {
  override name = "ConnectionClosedError";
  readonly responseCode = ResponseCode.RPC_SEND_TO_CHANNEL_FAILED;
  constructor(
    readonly addr: string,
    reason = "connection closed",
  ) {
    super(`${reason}: ${addr}`);
  }
}

/** Too many async or oneway requests in flight (Java's RemotingTooMuchRequestException). */
export class TooManyRequestsError extends Error {
  override name = "TooManyRequestsError";
}

/** Could not connect to a peer (Java's RemotingConnectException); `reason` is added to the message. */
export class ConnectError extends Error {
  override name = "ConnectError";
  constructor(
    readonly addr: string,
    options?: ErrorOptions & { readonly reason?: string },
  ) {
    super(`connect to ${addr} failed${options?.reason ? `: ${options.reason}` : ""}`, options);
  }
}

/** The remark Java's NettyRemotingAbstract gives for an unknown code, leading space included (spec §4.2). */
export function notSupportedRemark(code: number): string {
  return ` request type ${code} not supported`;
}

export const OVERLOAD_REMARK = "[OVERLOAD]system busy, start flow control for a while";
export const REJECT_REQUEST_REMARK = "[REJECTREQUEST]system busy, start flow control for a while";

export { responseCodeName };
