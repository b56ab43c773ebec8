/**
 * In-process transport: a pair of Connections that hand command objects across with no socket.
 * In round-trip mode every hop is encoded to a frame and decoded again, so tests running over it
 * exercise the codec exactly as TCP does. Delivery is asynchronous, as on a socket.
 *
 * What the client side sends reaches the server once per event-loop turn, in one batch, in the
 * order sent; what the server sends back goes one by one, a microtask later. The batch is what a
 * TCP read gives a broker for free: requests of many concurrent callers (HTTP requests served in
 * one turn of the gateway) arrive together, so the broker's appends of that turn share one
 * CommitLog write round instead of starting one each.
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
  /** Commands sent and not yet delivered, when this side batches per turn (the client side). */
  private batch: RemotingCommand[] | null = null;

  constructor(
    readonly localAddress: string,
    readonly remoteAddress: string,
    private readonly handler: ConnectionHandler,
    private readonly roundTrip: boolean,
    private readonly batchPerTurn: boolean,
  ) {}

  get closed(): boolean {
    return this.isClosed;
  }

  send(cmd: RemotingCommand): boolean {
    if (this.isClosed) return false;
    const delivered = this.roundTrip ? decodeFrame(encodeFrame(cmd).subarray(FRAME_LENGTH_BYTES)) : cmd;
    if (!this.batchPerTurn) {
      queueMicrotask(() => this.peer.receive(delivered));
      return true;
    }
    if (this.batch === null) {
      this.batch = [delivered];
      setImmediate(() => this.deliverBatch());
    } else {
      this.batch.push(delivered);
    }
    return true;
  }

  close(reason = "closed locally"): void {
    if (this.isClosed) return;
    this.closeSide(reason);
    queueMicrotask(() => {
      // What was sent before close arrives before the close, as on a socket.
      this.deliverBatch();
      this.peer.closeSide("closed by peer");
    });
  }

  /** Hands the pending batch to the peer, in order; a handler that throws does not drop the rest. */
  private deliverBatch(): void {
    const batch = this.batch;
    if (batch === null) return;
    this.batch = null;
    let failure: { err: unknown } | null = null;
    for (let i = 0; i < batch.length; i++) {
      try {
        this.peer.receive(batch[i]!);
      } catch (err) {
        failure ??= { err };
      }
    }
    // Surfaces as an uncaught error, as a throw from a one-by-one delivery would.
    if (failure !== null) throw failure.err;
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
  const a = new InProcessConnection(clientAddress, serverAddress, client, roundTrip, true);
  const b = new InProcessConnection(serverAddress, clientAddress, server, roundTrip, false);
  a.peer = b;
  b.peer = a;
  return [a, b];
}
