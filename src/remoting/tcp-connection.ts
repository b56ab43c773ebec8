/**
 * A Connection over a byte socket (a Bun TCP socket, plaintext or TLS, or node:tls over an
 * accepted one: byte-socket.ts). Frames written in one tick are coalesced into one write;
 * Bun's write may be partial, so the rest waits for `drain` (style habit 10). A peer that lets
 * more than `outboundBytesMax` pile up is disconnected rather than buffered without bound; with a
 * `budget`, unsent bytes and a partial incoming frame are also charged to the process-wide
 * BufferBudget, which closes whoever pins the most when it is full.
 */
import type { Socket, SocketHandler } from "bun";
import type { Logger } from "pino";
import type { BufferBudget } from "./buffer-budget.ts";
import type { ByteSocket, SocketEvents, TcpSocketData } from "./byte-socket.ts";
import type { RemotingCommand } from "./command.ts";
import { type Connection, type ConnectionHandler, nextConnectionId } from "./connection.ts";
import { FrameError, RefusedRequestError } from "./errors.ts";
import {
  DEFAULT_FRAME_BYTES_MAX,
  decodeFrame,
  FrameDecoder,
  type PreparedFrame,
  prepareFrame,
} from "./frame.ts";
import { Outbound } from "./outbound.ts";
import { socketErrorReason } from "./tls-errors.ts";
import { TLS_ALERT_RECORD, TLS_HANDSHAKE_RECORD } from "./tls-options.ts";

export type { TcpSocketData } from "./byte-socket.ts";

export const DEFAULT_SOCKET_OUTBOUND_BYTES_MAX = 64 * 1024 * 1024;

export interface TcpConnectionOptions {
  frameBytesMax?: number;
  outboundBytesMax?: number;
  /** Close after this long with no read and no write (serverChannelMaxIdleTimeSeconds); 0 = never. */
  idleSeconds?: number;
  /** Where unsent and partially received bytes are charged (servers); none: only the caps above. */
  budget?: BufferBudget;
  log: Logger;
}

export class TcpConnection implements Connection, SocketEvents {
  readonly id = nextConnectionId();
  readonly transport = "tcp" as const;
  readonly attributes = new Map<string, unknown>();
  readonly remoteAddress: string;
  readonly localAddress: string;
  private readonly decoder: FrameDecoder;
  private readonly outboundBytesMax: number;
  private readonly outbound = new Outbound();
  private flushScheduled = false;
  private isClosed = false;
  /** Bytes charged to the budget for unsent frames, and for the partial frame being received. */
  private outboundCharged = 0;
  private partialCharged = 0;
  /** Date.now() of the last read or write, for the idle close (0 when there is none). */
  private lastActive = 0;
  /** The first byte received (-1 before any): tells a TLS peer on a plaintext connection. */
  private firstByte = -1;
  private framesReceived = 0;

  constructor(
    private readonly socket: ByteSocket,
    private readonly handler: ConnectionHandler,
    private readonly options: TcpConnectionOptions,
  ) {
    this.remoteAddress = `${socket.remoteAddress}:${socket.remotePort}`;
    this.localAddress = `${socket.localAddress}:${socket.localPort}`;
    this.decoder = new FrameDecoder(options.frameBytesMax ?? DEFAULT_FRAME_BYTES_MAX);
    this.outboundBytesMax = options.outboundBytesMax ?? DEFAULT_SOCKET_OUTBOUND_BYTES_MAX;
    socket.data = { conn: this };
    socket.setNoDelay(true);
    if (options.idleSeconds && options.idleSeconds > 0) {
      this.lastActive = Date.now();
      socket.timeout(options.idleSeconds);
    }
  }

  get closed(): boolean {
    return this.isClosed;
  }

  send(cmd: RemotingCommand): boolean {
    if (this.isClosed) return false;
    let frame: PreparedFrame;
    try {
      frame = prepareFrame(cmd);
    } catch (err) {
      this.options.log.error({ err, code: cmd.code }, "cannot encode command");
      return false;
    }
    if (this.outbound.unsent + frame.size > this.outboundBytesMax) {
      this.close(`outbound queue over ${this.outboundBytesMax} bytes`);
      return false;
    }
    if (this.options.budget) {
      if (!this.options.budget.take(this, frame.size, "unsent")) {
        this.abort(`server buffer budget of ${this.options.budget.bytesMax} bytes is full`);
        return false;
      }
      this.outboundCharged += frame.size;
    }
    this.outbound.push(frame);
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      queueMicrotask(() => this.flush());
    }
    return true;
  }

  close(reason = "closed locally"): void {
    if (this.isClosed) return;
    this.markClosed(reason);
    this.socket.end();
  }

  /**
   * Closes at once, discarding what is unsent (a reset, not an end): for connections refused or
   * evicted to protect the process, which are owed no graceful end.
   */
  abort(reason: string): void {
    if (this.isClosed) return;
    this.markClosed(reason);
    this.socket.terminate();
  }

  /** Socket callbacks (the shared handler table routes them here). */
  onData(chunk: Uint8Array): void {
    if (this.isClosed) return;
    this.noteActive();
    if (this.firstByte < 0 && chunk.length > 0) this.firstByte = chunk[0]!;
    const frames = this.decoder.push(chunk);
    this.framesReceived += frames.length;
    // Every whole frame is served first: before a bad length (then the connection closes, as
    // Netty does) and before a partial frame the budget may refuse.
    for (const frame of frames) {
      let cmd: RemotingCommand;
      try {
        cmd = decodeFrame(frame);
      } catch (err) {
        if (err instanceof RefusedRequestError && !err.command.isResponse && this.handler.onRefused) {
          this.handler.onRefused(this, err.command, err.message);
          continue;
        }
        this.dropMalformed(err);
        return;
      }
      try {
        this.handler.onCommand(this, cmd);
      } catch (err) {
        this.options.log.error({ err, addr: this.remoteAddress }, "command handler threw");
      }
      if (this.isClosed) return;
    }
    if (this.decoder.failure) this.dropMalformed(this.decoder.failure);
    else this.chargePartial();
  }

  onDrain(): void {
    if (this.isClosed) return;
    if (this.outbound.blocked) {
      this.noteActive();
      if (!this.outbound.drain(this.socket)) {
        this.markClosed("socket closed during write");
        return;
      }
      this.settleOutbound();
    }
    if (!this.outbound.blocked && this.outbound.hasQueued) this.flush();
  }

  onSocketClosed(reason: string): void {
    if (!this.isClosed) this.markClosed(reason);
  }

  /**
   * Bun's socket timeout is a deadline, not an idle timer: traffic does not push it back (a busy
   * connection was closed every serverChannelMaxIdleTimeSeconds). So reads and writes only note
   * the time, and when the deadline comes the connection closes if it really was idle that long
   * (Netty's all-idle state, spec remoting §5.1); otherwise the deadline moves to where the
   * quiet time would reach the limit.
   */
  onTimeout(): void {
    const idleMs = (this.options.idleSeconds ?? 0) * 1000;
    const quietMs = Date.now() - this.lastActive;
    if (this.isClosed || quietMs >= idleMs) {
      this.close("idle timeout");
      return;
    }
    this.socket.timeout(Math.max(1, Math.ceil((idleMs - quietMs) / 1000)));
  }

  private flush(): void {
    this.flushScheduled = false;
    if (this.isClosed || this.outbound.blocked || !this.outbound.hasQueued) return;
    this.noteActive();
    if (!this.outbound.flush(this.socket)) {
      this.markClosed("socket closed during write");
      return;
    }
    this.settleOutbound();
  }

  private noteActive(): void {
    if (this.lastActive !== 0) this.lastActive = Date.now();
  }

  /** Gives the budget back what the socket took; what is still queued or backlogged stays charged. */
  private settleOutbound(): void {
    const budget = this.options.budget;
    if (!budget || this.isClosed) return;
    const unsent = this.outbound.unsent;
    if (unsent >= this.outboundCharged) return;
    budget.give(this, this.outboundCharged - unsent, "unsent");
    this.outboundCharged = unsent;
  }

  /**
   * Charges the frame being received at the size it declared (or gives back what it no longer
   * needs), so a peer that announces 15 MiB and stops is charged 15 MiB from its first chunk.
   * When the budget has no room this connection is closed.
   */
  private chargePartial(): void {
    const budget = this.options.budget;
    if (!budget) return;
    const pending = this.decoder.pendingFrameBytes;
    if (pending < this.partialCharged) {
      budget.give(this, this.partialCharged - pending, "unsent");
    } else if (pending > this.partialCharged && !budget.take(this, pending - this.partialCharged, "unsent")) {
      this.abort(`server buffer budget of ${budget.bytesMax} bytes is full (a frame of ${pending} bytes)`);
      return;
    }
    this.partialCharged = pending;
  }

  private dropMalformed(err: unknown): void {
    const tls = this.tlsPeerHint();
    const message = tls ?? (err instanceof FrameError ? err.message : String(err));
    this.options.log.warn(
      { addr: this.remoteAddress, reason: message },
      tls ? "closing connection: TLS on one side only" : "closing connection: malformed frame",
    );
    // Answers the frames before the bad one already produced go out before the close.
    this.flush();
    this.close(tls ?? `malformed frame: ${message}`);
  }

  /**
   * A stream whose very first bytes are a TLS record is a TLS peer on a plaintext connection (Java's
   * TlsModeHandler tells them apart the same way): say so, rather than "frame too long".
   */
  private tlsPeerHint(): string | undefined {
    if (this.framesReceived > 0) return undefined;
    if (this.firstByte === TLS_HANDSHAKE_RECORD)
      return "the peer opened a TLS handshake on a plaintext connection: TLS is off on this side (tls.server.mode=disabled, or a client without useTLS)";
    if (this.firstByte === TLS_ALERT_RECORD)
      return "the peer answered with a TLS alert: it requires TLS (tls.server.mode=enforcing); connect with TLS (useTLS / tls.enable)";
    return undefined;
  }

  private markClosed(reason: string): void {
    this.isClosed = true;
    this.outbound.clear();
    try {
      this.handler.onClose(this, reason);
    } catch (err) {
      this.options.log.error({ err }, "close handler threw");
    }
    this.options.budget?.release(this);
    this.outboundCharged = 0;
    this.partialCharged = 0;
  }
}

/** Socket callbacks shared by every TcpConnection; each socket's data points at its connection. */
export function tcpSocketHandlers(
  onOpen: (socket: Socket<TcpSocketData>) => void,
  onHandshake?: (socket: Socket<TcpSocketData>, success: boolean, error: Error | null) => void,
): SocketHandler<TcpSocketData, "buffer"> {
  return {
    binaryType: "buffer",
    open: onOpen,
    ...(onHandshake ? { handshake: onHandshake } : {}),
    data(socket, chunk) {
      socket.data.conn?.onData(chunk);
    },
    drain(socket) {
      socket.data.conn?.onDrain();
    },
    close(socket, err) {
      socket.data.conn?.onSocketClosed(err ? socketErrorReason(err) : "closed by peer");
    },
    error(socket, err) {
      socket.data.conn?.onSocketClosed(socketErrorReason(err));
    },
    end(socket) {
      socket.data.conn?.close("peer ended the connection");
    },
    timeout(socket) {
      socket.data.conn?.onTimeout();
    },
  };
}
