/**
 * The one line a failed verb prints. A request that never reached a NameServer of `-n` is named
 * as such, whatever error wraps it (a producer reports "no route info" when it could not ask),
 * so the user looks at the address, not at the topic.
 */
import { MQClientError } from "../../client/index.ts";
import { ResponseCode } from "../../remoting/index.ts";

/** Transport failures: the request did not get an answer from that address. */
const UNREACHABLE_CODES: ReadonlySet<number> = new Set([
  ResponseCode.RPC_SEND_TO_CHANNEL_FAILED,
  ResponseCode.RPC_TIME_OUT,
  ResponseCode.RPC_ADDR_IS_NULL,
]);

/** The transport failure towards one of `namesrvAddrs` in `err` or its causes, if any. */
function namesrvFailure(err: unknown, namesrvAddrs: readonly string[]): MQClientError | undefined {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++) {
    if (e instanceof MQClientError && UNREACHABLE_CODES.has(e.code) && namesrvAddrs.includes(e.addr ?? ""))
      return e;
  }
  return undefined;
}

export function failureText(err: unknown, namesrvAddrs: readonly string[]): string {
  const unreachable = namesrvFailure(err, namesrvAddrs);
  if (unreachable !== undefined)
    return `the NameServer ${unreachable.addr} is unreachable (${unreachable.message})`;
  return err instanceof Error ? err.message : String(err);
}
