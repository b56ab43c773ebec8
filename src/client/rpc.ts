/**
 * One invocation helper for every typed API: send, map transport failures and unexpected response
 * codes to MQClientError naming the peer and the request code.
 */
import { type ExtFields, type RemotingClient, RemotingCommand, ResponseCode } from "../remoting/index.ts";
import { MQClientError, toClientError } from "./errors.ts";

export async function call(
  remoting: RemotingClient,
  addr: string,
  code: number,
  ext: ExtFields | null,
  body: Uint8Array | null,
  timeoutMs: number,
  okCodes: readonly number[] = [ResponseCode.SUCCESS],
): Promise<RemotingCommand> {
  let response: RemotingCommand;
  try {
    response = await remoting.invoke(addr, RemotingCommand.request(code, ext, body), timeoutMs);
  } catch (err) {
    throw toClientError(err, addr, code);
  }
  if (!okCodes.includes(response.code)) {
    throw new MQClientError({ code: response.code, remark: response.remark ?? "", addr, requestCode: code });
  }
  return response;
}

export async function callOneway(
  remoting: RemotingClient,
  addr: string,
  code: number,
  ext: ExtFields | null,
  body: Uint8Array | null,
  timeoutMs: number,
): Promise<void> {
  try {
    await remoting.invokeOneway(addr, RemotingCommand.request(code, ext, body), timeoutMs);
  } catch (err) {
    throw toClientError(err, addr, code);
  }
}

const decoder = new TextDecoder();

export function bodyText(response: RemotingCommand): string {
  return response.body ? decoder.decode(response.body) : "";
}
