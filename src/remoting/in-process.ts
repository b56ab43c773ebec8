/**
 * In-process transport: a pair of Connections that hand command objects across with no socket.
 * In round-trip mode every hop is encoded to a frame and decoded again, so tests running over it
 * exercise the codec exactly as TCP does. Delivery is asynchronous (a microtask), as on a socket.
 */
import type { RemotingCommand } from "./command.ts";
import { type Connection, type ConnectionHandler, nextConnectionId } from "./connection.ts";
import { decodeFrame, encodeFrame, FRAME_LENGTH_BYTES } from "./frame.ts";

export interface InProcessPairOptions {
  roundTrip?: boolean;
  /** Addresses each side reports for itself. */
  clientAddress?: string;
  serverAddress?: string;
}

class InProcessConnection implements Connection {
  readonly id = nextConnectionId();
  readonly transport = "in-process" as const;
  readonly attributes = new Map<string, unknown>();
  peer!: InProcessConnection;
  private isClosed = false;

  constructor(
    readonly localAddress: string,
    readonly remoteAddress: string,
    private readonly handler: ConnectionHandler,
    private readonly roundTrip: boolean,
  ) {}

  get closed(): boolean {
    return this.isClosed;
  }

  send(cmd: RemotingCommand): boolean {
    if (this.isClosed) return false;
    const delivered = this.roundTrip ? decodeFrame(encodeFrame(cmd).subarray(FRAME_LENGTH_BYTES)) : cmd;
    queueMicrotask(() => this.peer.receive(delivered));
    return true;
  }

  close(reason = "closed locally"): void {
    if (this.isClosed) return;
    this.closeSide(reason);
    queueMicrotask(() => this.peer.closeSide("closed by peer"));
  }

  private receive(cmd: RemotingCommand): void {
    if (!this.isClosed) this.handler.onCommand(this, cmd);
  }

  private closeSide(reason: string): void {
    if (this.isClosed) return;
    this.isClosed = true;
    this.handler.onClose(this, reason);
  }
}

/** Connects two handlers; returns [client side, server side]. */
export function createInProcessPair(
  client: ConnectionHandler,
  server: ConnectionHandler,
  options: InProcessPairOptions = {},
): [Connection, Connection] {
  const clientAddress = options.clientAddress ?? "127.0.0.1:0";
  const serverAddress = options.serverAddress ?? "in-process";
  const roundTrip = options.roundTrip ?? false;
  const a = new InProcessConnection(clientAddress, serverAddress, client, roundTrip);
  const b = new InProcessConnection(serverAddress, clientAddress, server, roundTrip);
  a.peer = b;
  b.peer = a;
  return [a, b];
}
