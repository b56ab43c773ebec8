/**
 * The one Connection interface every transport implements (TCP, in-process objects, in-process
 * round trip). Endpoints see only this: they do not know which transport carries their frames.
 */
import type { RemotingCommand } from "./command.ts";

export interface ConnectionHandler {
  /** A decoded command arrived: a request for us, or a response to one of ours. */
  onCommand(conn: Connection, cmd: RemotingCommand): void;
  /** The connection closed (by either side, or on error). Called once. */
  onClose(conn: Connection, reason: string): void;
  /**
   * A request arrived whose header decoded but cannot be served as sent (RefusedRequestError):
   * answer it with an error; the connection stays open. Without this method it is dropped.
   */
  onRefused?(conn: Connection, request: RemotingCommand, reason: string): void;
}

export type TransportKind = "tcp" | "in-process";

export interface Connection {
  /** Unique in this process; futures are keyed by (id, opaque). */
  readonly id: number;
  readonly transport: TransportKind;
  /** "host:port" of the peer, as Java's RemotingHelper.parseChannelRemoteAddr gives it. */
  readonly remoteAddress: string;
  readonly localAddress: string;
  readonly closed: boolean;
  /** Role-owned facts about the peer (client id, group, ...). */
  readonly attributes: Map<string, unknown>;
  /** Queues one command for the peer; false when the connection is closed and nothing was sent. */
  send(cmd: RemotingCommand): boolean;
  close(reason?: string): void;
}

let lastConnectionId = 0;

/** Process-wide connection ids; only ever compared for equality. */
export function nextConnectionId(): number {
  lastConnectionId = (lastConnectionId + 1) % Number.MAX_SAFE_INTEGER;
  return lastConnectionId;
}
