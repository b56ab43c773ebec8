/**
 * What every NameServer processor receives (style habit 13: dependencies passed in), and the small
 * response helpers they share.
 */
import type { Logger } from "pino";
import { type ExtFields, RemotingCommand, RemotingError, ResponseCode } from "../remoting/index.ts";
import type { LiveConfig } from "./config.ts";
import type { KvConfigStore } from "./kv-config.ts";
import type { RouteTable } from "./route-table.ts";

export interface NamesrvContext {
  readonly routes: RouteTable;
  readonly kv: KvConfigStore;
  readonly config: LiveConfig;
  readonly log: Logger;
  /** Epoch ms when the server started; needWaitForService counts from here. */
  readonly startedAt: number;
}

/** SUCCESS with optional response-header fields (`{}` mirrors Java's header classes) and body. */
export function success(extFields: ExtFields | null = null, body: Uint8Array | null = null): RemotingCommand {
  return RemotingCommand.response(ResponseCode.SUCCESS, null, extFields, body);
}

/** Java's "disable" answer for switched-off topic lists. */
export function disabled(): RemotingCommand {
  return RemotingCommand.response(ResponseCode.SYSTEM_ERROR, "disable");
}

/**
 * Runs a body decoder; a malformed body becomes SYSTEM_ERROR naming the body type and the problem,
 * as Java's "Failed to decode RegisterBrokerBody" does.
 */
export function decodeBody<T>(what: string, body: Uint8Array | null, decode: (body: Uint8Array) => T): T {
  if (!body) throw new RemotingError(ResponseCode.SYSTEM_ERROR, `Failed to decode ${what}: no body`);
  try {
    return decode(body);
  } catch (err) {
    // JsonSyntaxError, BodyShapeError, zlib errors: all mean the peer sent a bad body.
    const detail = err instanceof Error ? err.message : String(err);
    throw new RemotingError(ResponseCode.SYSTEM_ERROR, `Failed to decode ${what}: ${detail}`, { cause: err });
  }
}
