/**
 * A Connection over a Bun TCP socket. Frames written in one tick are coalesced into one write;
 * Bun's write may be partial, so the rest waits for `drain` (style habit 10). A peer that lets
 * more than `outboundBytesMax` pile up is disconnected rather than buffered without bound.
 */
import type { Socket, SocketHandler } from "bun";
import type { Logger } from "pino";
import type { RemotingCommand } from "./command.ts";
import { type Connection, type ConnectionHandler, nextConnectionId } from "./connection.ts";
import { FrameError } from "./errors.ts";
import {
  DEFAULT_FRAME_BYTES_MAX,
  decodeFrame,
  FrameDecoder,
  type PreparedFrame,
  prepareFrame,
  writeFrame,
} from "./frame.ts";

export const DEFAULT_SOCKET_OUTBOUND_BYTES_MAX = 64 * 1024 * 1024;
const OUTBOX_INITIAL_BYTES = 64 * 1024;
const OUTBOX_KEEP_BYTES = 1024 * 1024;

export interface TcpConnectionOptions {
  frameBytesMax?: number;
  outboundBytesMax?: number;
  /** Close after this long with no read and no write (serverChannelMaxIdleTimeSeconds); 0 = never. */
  idleSeconds?: number;
  log: Logger;
}

export interface TcpSocketData {
  conn: TcpConnection | null;
}

export class TcpConnection implements Connection {
  readonly id = nextConnectionId();
  readonly transport = "tcp" as const;
  readonly attributes = new Map<string, unknown>();
  readonly remoteAddress: string;
  readonly localAddress: string;
  private readonly decoder: FrameDecoder;
  private readonly outboundBytesMax: number;
  /** Frames waiting for this tick's flush, headers serialized, bodies not yet copied. */
  private queued: PreparedFrame[] = [];
  private queuedBytes = 0;
  /** Reused between flushes: each frame's bytes are copied once, into here, then written. */
  private outbox: Buffer = Buffer.allocUnsafe(OUTBOX_INITIAL_BYTES);
  /** Bytes the socket did not take yet; written on drain. */
  private backlog: Uint8Array | null = null;
  private flushScheduled = false;
  private isClosed = false;
  /** Date.now() of the last read or write, for the idle close (0 when there is none). */
  private lastActive = 0;

  constructor(
    private readonly socket: Socket<TcpSocketData>,
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
    if (this.queuedBytes + (this.backlog?.length ?? 0) + frame.size > this.outboundBytesMax) {
      this.close(`outbound queue over ${this.outboundBytesMax} bytes`);
      return false;
    }
    this.queued.push(frame);
    this.queuedBytes += frame.size;
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

  /** Socket callbacks (the shared handler table routes them here). */
  onData(chunk: Uint8Array): void {
    if (this.isClosed) return;
    if (this.lastActive !== 0) this.lastActive = Date.now();
    let frames: Uint8Array[];
    try {
      frames = this.decoder.push(chunk);
    } catch (err) {
      this.dropMalformed(err);
      return;
    }
    for (const frame of frames) {
      let cmd: RemotingCommand;
      try {
        cmd = decodeFrame(frame);
      } catch (err) {
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
  }

  onDrain(): void {
    if (this.backlog) {
      const rest = this.backlog;
      this.backlog = null;
      this.write(rest);
    }
    if (!this.backlog && this.queuedBytes > 0) this.flush();
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
    if (this.isClosed || this.backlog || this.queuedBytes === 0) return;
    const total = this.queuedBytes;
    if (this.outbox.length < total) this.outbox = Buffer.allocUnsafe(Math.max(total, this.outbox.length * 2));
    const out = this.outbox;
    let pos = 0;
    for (const frame of this.queued) {
      writeFrame(frame, out, pos);
      pos += frame.size;
    }
    this.queued = [];
    this.queuedBytes = 0;
    this.write(out.subarray(0, total), true);
    // A burst may have grown the outbox; do not keep megabytes per idle connection.
    if (this.outbox.length > OUTBOX_KEEP_BYTES) this.outbox = Buffer.allocUnsafe(OUTBOX_INITIAL_BYTES);
  }

  /** `reused`: the bytes live in the outbox, so an unwritten rest must be copied out of it. */
  private write(bytes: Uint8Array, reused = false): void {
    if (this.lastActive !== 0) this.lastActive = Date.now();
    const written = this.socket.write(bytes);
    if (written < 0) {
      this.markClosed("socket closed during write");
      return;
    }
    if (written < bytes.length) {
      const rest = bytes.subarray(written);
      this.backlog = reused ? Uint8Array.prototype.slice.call(rest) : rest;
    }
  }

  private dropMalformed(err: unknown): void {
    const message = err instanceof FrameError ? err.message : String(err);
    this.options.log.warn(
      { addr: this.remoteAddress, reason: message },
      "closing connection: malformed frame",
    );
    this.close(`malformed frame: ${message}`);
  }

  private markClosed(reason: string): void {
    this.isClosed = true;
    this.queued = [];
    this.queuedBytes = 0;
    this.backlog = null;
    try {
      this.handler.onClose(this, reason);
    } catch (err) {
      this.options.log.error({ err }, "close handler threw");
    }
  }
}

/** Socket callbacks shared by every TcpConnection; each socket's data points at its connection. */
export function tcpSocketHandlers(
  onOpen: (socket: Socket<TcpSocketData>) => void,
): SocketHandler<TcpSocketData, "buffer"> {
  return {
    binaryType: "buffer",
    open: onOpen,
    data(socket, chunk) {
      socket.data.conn?.onData(chunk);
    },
    drain(socket) {
      socket.data.conn?.onDrain();
    },
    close(socket, err) {
      socket.data.conn?.onSocketClosed(err ? `socket error: ${err.message}` : "closed by peer");
    },
    error(socket, err) {
      socket.data.conn?.onSocketClosed(`socket error: ${err.message}`);
    },
    end(socket) {
      socket.data.conn?.close("peer ended the connection");
    },
    timeout(socket) {
      socket.data.conn?.onTimeout();
    },
  };
}
