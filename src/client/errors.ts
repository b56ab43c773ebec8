/**
 * The client's one error type. Every failure a caller sees is an MQClientError carrying the wire
 * response code (or a negative RPC code for transport failures), the remark, and, when a request
 * was involved, the broker address and the request code.
 */
import {
  ConnectError,
  ConnectionClosedError,
  RemotingTimeoutError,
  ResponseCode,
  requestCodeName,
  responseCodeName,
  TooManyRequestsError,
} from "../remoting/index.ts";

export interface MQClientErrorInit {
  code: number;
  remark: string;
  addr?: string;
  requestCode?: number;
  cause?: unknown;
}

export class MQClientError extends Error {
  override name = "MQClientError";
  /** Response code (spec broker §0.1), or an RPC_* code for transport failures. */
  readonly code: number;
  readonly remark: string;
  readonly addr?: string;
  readonly requestCode?: number;

  constructor(init: MQClientErrorInit) {
    const where = init.addr
      ? ` [${init.requestCode !== undefined ? `${requestCodeName(init.requestCode)} ` : ""}to ${init.addr}]`
      : "";
    super(
      `${responseCodeName(init.code)}: ${init.remark}${where}`,
      init.cause ? { cause: init.cause } : undefined,
    );
    this.code = init.code;
    this.remark = init.remark;
    if (init.addr !== undefined) this.addr = init.addr;
    if (init.requestCode !== undefined) this.requestCode = init.requestCode;
  }

  /** True for failures where another broker (or a later attempt) may succeed. */
  get retriable(): boolean {
    return RETRIABLE_CODES.has(this.code);
  }
}

/** What Java's producer retries on another broker (DefaultMQProducer.retryResponseCodes, plus transport errors). */
const RETRIABLE_CODES = new Set<number>([
  ResponseCode.TOPIC_NOT_EXIST,
  ResponseCode.SERVICE_NOT_AVAILABLE,
  ResponseCode.SYSTEM_ERROR,
  ResponseCode.SYSTEM_BUSY,
  ResponseCode.NO_PERMISSION,
  ResponseCode.NO_BUYER_ID,
  ResponseCode.NOT_IN_CURRENT_UNIT,
  ResponseCode.RPC_SEND_TO_CHANNEL_FAILED,
  ResponseCode.RPC_TIME_OUT,
  ResponseCode.RPC_UNKNOWN,
]);

/**
 * Decodes what a peer answered (a body, a response header). An answer that does not decode is the
 * peer's fault, and the caller sees it as every other failure: an MQClientError (SYSTEM_ERROR)
 * naming the peer and the request, the decode error as its cause.
 */
export function decodeAnswer<T>(addr: string, requestCode: number, decode: () => T): T {
  try {
    return decode();
  } catch (err) {
    if (err instanceof MQClientError) throw err;
    const why = err instanceof Error ? err.message : String(err);
    throw new MQClientError({
      code: ResponseCode.SYSTEM_ERROR,
      remark: `undecodable answer: ${why}`,
      addr,
      requestCode,
      cause: err,
    });
  }
}

/** Turns any failure of an invocation into an MQClientError naming the peer and the request. */
export function toClientError(err: unknown, addr: string, requestCode: number): MQClientError {
  if (err instanceof MQClientError) return err;
  if (err instanceof RemotingTimeoutError) {
    return new MQClientError({
      code: ResponseCode.RPC_TIME_OUT,
      remark: err.message,
      addr,
      requestCode,
      cause: err,
    });
  }
  if (err instanceof ConnectionClosedError || err instanceof ConnectError) {
    return new MQClientError({
      code: ResponseCode.RPC_SEND_TO_CHANNEL_FAILED,
      remark: err.message,
      addr,
      requestCode,
      cause: err,
    });
  }
  if (err instanceof TooManyRequestsError) {
    return new MQClientError({
      code: ResponseCode.SYSTEM_BUSY,
      remark: err.message,
      addr,
      requestCode,
      cause: err,
    });
  }
  const remark = err instanceof Error ? err.message : String(err);
  return new MQClientError({ code: ResponseCode.RPC_UNKNOWN, remark, addr, requestCode, cause: err });
}

/** A client-side precondition failed (bad argument, no route, shut down). */
export function clientError(remark: string, code: number = ResponseCode.INVALID_PARAMETER): MQClientError {
  return new MQClientError({ code, remark });
}
