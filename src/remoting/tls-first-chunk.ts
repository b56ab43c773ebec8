/**
 * FirstChunk stands in for a connection accepted in permissive mode until its first bytes arrive
 * and say what it is: a TLS handshake record (0x16) or a remoting frame. It then hands the socket,
 * and that first chunk, to whatever `route` makes of it (Java's TlsModeHandler, NettyRemotingServer).
 */
import type { ByteSocket, SocketEvents } from "./byte-socket.ts";

export class FirstChunk<S extends ByteSocket> implements SocketEvents {
  private settled = false;

  /**
   * `route` builds what serves the socket and returns it; `gone` runs when the socket closes
   * before it was routed. `idleSeconds` bounds how long a silent peer may hold it (0: no bound).
   */
  constructor(
    private readonly socket: S,
    private readonly route: (socket: S, first: Uint8Array) => SocketEvents,
    private readonly gone: (reason: string) => void,
    idleSeconds: number,
  ) {
    socket.data = { conn: this };
    if (idleSeconds > 0) socket.timeout(idleSeconds);
  }

  onData(chunk: Uint8Array): void {
    if (this.settled || chunk.length === 0) return;
    this.settled = true;
    this.route(this.socket, chunk).onData(chunk);
  }

  onDrain(): void {}

  onSocketClosed(reason: string): void {
    this.finish(reason);
  }

  close(reason = "peer ended the connection"): void {
    if (this.settled) return;
    this.socket.end();
    this.finish(reason);
  }

  onTimeout(): void {
    if (this.settled) return;
    this.socket.terminate();
    this.finish("idle timeout before the first byte");
  }

  private finish(reason: string): void {
    if (this.settled) return;
    this.settled = true;
    this.gone(reason);
  }
}
