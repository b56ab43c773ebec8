/**
 * TLS over a socket that was accepted as plaintext (permissive mode): Bun cannot turn an accepted
 * socket whose first bytes were already read into a TLS server socket, so node:tls runs over it,
 * fed through a Duplex. The result is a ByteSocket, so a TcpConnection sits on it unchanged, and
 * it reports the accepted socket's own addresses (ACL white lists and logs see the real peer).
 *
 *   raw socket ──data──▶ wire (Duplex) ──ciphertext──▶ TLSSocket ──plaintext──▶ data.conn
 *   raw socket ◀─write── wire ◀──────────ciphertext── TLSSocket ◀──write()─── TcpConnection
 *
 * Backpressure both ways out: ciphertext the raw socket does not take waits for its drain before
 * the wire takes more; while the TLSSocket's own buffer is over its high-water mark, write()
 * takes nothing, so the connection's outbound queue (and its byte caps) holds the rest.
 */
import { Duplex } from "node:stream";
import { type SecureContext, TLSSocket } from "node:tls";
import type { Socket } from "bun";
import type { ByteSocket, SocketEvents, TcpSocketData } from "./byte-socket.ts";
import { hasCertificate, type PeerCertificateFacts } from "./tls-server-policy.ts";

export interface TlsStreamHooks {
  /** The handshake is done; return why the peer may not stay (it is then closed), or undefined. */
  onSecure(peer: PeerCertificateFacts): string | undefined;
  /** The handshake failed (or the peer was refused): the reason, once. */
  onFailure(reason: Error | string): void;
}

export interface TlsStreamOptions {
  readonly secureContext: SecureContext;
  readonly requestCert: boolean;
  readonly rejectUnauthorized: boolean;
}

export class TlsStreamSocket implements ByteSocket, SocketEvents {
  data: TcpSocketData = { conn: null };
  readonly remoteAddress: string;
  readonly remotePort: number;
  readonly localAddress: string;
  readonly localPort: number;
  private readonly wire: Duplex;
  private readonly tls: TLSSocket;
  /** The TLSSocket buffers more than its high-water mark: write() takes nothing until it drains. */
  private blocked = false;
  private secure = false;
  private gone = false;
  private failureReported = false;
  /** The raw socket was ended after the TLS stream finished: let it flush, never reset it. */
  private rawEnded = false;
  /** Ciphertext the raw socket did not take, and the wire's callback to call once it has. */
  private cipherRest: Uint8Array | null = null;
  private cipherDone: ((err?: Error | null) => void) | null = null;

  constructor(
    private readonly raw: Socket<TcpSocketData>,
    options: TlsStreamOptions,
    private readonly hooks: TlsStreamHooks,
  ) {
    this.remoteAddress = raw.remoteAddress;
    this.remotePort = raw.remotePort;
    this.localAddress = raw.localAddress;
    this.localPort = raw.localPort;
    raw.data = { conn: this };
    this.wire = new Duplex({
      read() {},
      write: (chunk: Uint8Array, _encoding, done) => this.writeCipher(chunk, done),
      final: (done) => {
        this.rawEnded = true;
        this.raw.end();
        done();
      },
    });
    this.tls = new TLSSocket(this.wire as never, { isServer: true, ...options });
    this.tls.on("secure", () => this.onSecure());
    this.tls.on("data", (chunk: Uint8Array) => this.data.conn?.onData(chunk));
    this.tls.on("drain", () => {
      this.blocked = false;
      this.data.conn?.onDrain();
    });
    this.tls.on("error", (err: Error) => this.fail(err));
    this.tls.on("end", () => this.data.conn?.close("peer ended the connection"));
    this.tls.on("close", () => this.lost("closed by peer"));
  }

  // ---- ByteSocket: what the connection calls ----

  write(bytes: Uint8Array): number {
    if (this.gone) return -1;
    if (this.blocked) return 0;
    // A copy: the caller reuses its buffer once write returns, and the stream may keep the chunk.
    if (!this.tls.write(Buffer.from(bytes))) this.blocked = true;
    return bytes.length;
  }

  end(): void {
    if (this.gone) return;
    this.tls.end();
  }

  terminate(): void {
    this.gone = true;
    this.tls.destroy();
    this.raw.terminate();
  }

  timeout(seconds: number): void {
    this.raw.timeout(seconds);
  }

  setNoDelay(noDelay: boolean): boolean {
    return this.raw.setNoDelay(noDelay);
  }

  // ---- SocketEvents: what the raw socket's callbacks call ----

  onData(chunk: Uint8Array): void {
    if (!this.gone) this.wire.push(chunk);
  }

  onDrain(): void {
    const rest = this.cipherRest;
    const done = this.cipherDone;
    if (rest === null || done === null) return;
    this.cipherRest = null;
    this.cipherDone = null;
    this.writeCipher(rest, done);
  }

  onSocketClosed(reason: string): void {
    this.lost(reason);
  }

  close(reason = "peer ended the connection"): void {
    // The peer ended the raw stream: no more ciphertext comes.
    this.wire.push(null);
    this.data.conn?.close(reason);
  }

  onTimeout(): void {
    this.data.conn?.onTimeout();
  }

  // ---- internals ----

  private writeCipher(chunk: Uint8Array, done: (err?: Error | null) => void): void {
    const written = this.raw.write(chunk);
    if (written < 0) {
      done(new Error("socket closed"));
      return;
    }
    if (written === chunk.length) {
      done();
      return;
    }
    this.cipherRest = chunk.subarray(written);
    this.cipherDone = done;
  }

  private onSecure(): void {
    this.secure = true;
    const error = this.tls.authorizationError as Error | string | null | undefined;
    const problem = this.hooks.onSecure({
      authorized: this.tls.authorized,
      authorizationError: error,
      presented: hasCertificate(this.tls.getPeerCertificate()),
    });
    if (problem === undefined) return;
    this.failureReported = true;
    this.hooks.onFailure(problem);
    this.terminate();
    this.data.conn?.onSocketClosed(`TLS: ${problem}`);
  }

  /** The TLS layer failed; it may report so after the raw socket closed (the peer read our alert). */
  private fail(err: Error): void {
    if (!this.secure && !this.failureReported) {
      this.failureReported = true;
      this.hooks.onFailure(err);
    }
    if (!this.gone) this.terminate();
    this.data.conn?.onSocketClosed(
      this.secure ? `TLS error: ${err.message}` : `TLS handshake failed: ${err.message}`,
    );
  }

  private lost(reason: string): void {
    if (!this.gone) {
      this.gone = true;
      this.tls.destroy();
      if (!this.rawEnded) this.raw.terminate();
    }
    this.data.conn?.onSocketClosed(reason);
  }
}
