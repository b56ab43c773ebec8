/**
 * RemotingServer: an endpoint that accepts TCP connections (Bun.listen) and, for roles in the same
 * process, in-process connections, all served by one processor registry. TCP connections count
 * against the process's ServerResources: beyond the connection cap one is closed as it arrives,
 * and its unsent and partial bytes are charged to the shared buffer budget.
 *
 * TLS (Java's TlsMode): `enforcing` listens with Bun's native TLS; `permissive` listens in
 * plaintext and runs node:tls over a connection whose first byte opens a TLS handshake; without
 * TLS options (`disabled`) a handshake is closed as a malformed frame, named as TLS.
 */
import { createSecureContext } from "node:tls";
import type { Socket, TCPSocketListener } from "bun";
import type { Logger } from "pino";
import { BurstLog } from "./burst-log.ts";
import type { ByteSocket, SocketEvents } from "./byte-socket.ts";
import type { Connection, ConnectionHandler } from "./connection.ts";
import type { PausableListener } from "./descriptor-watch.ts";
import {
  DEFAULT_SERVER_ASYNC_PERMITS,
  DEFAULT_SERVER_ONEWAY_PERMITS,
  type EndpointOptions,
  RemotingEndpoint,
} from "./endpoint.ts";
import { createInProcessPair } from "./in-process.ts";
import { ServerResources } from "./server-resources.ts";
import { TcpConnection, type TcpSocketData, tcpSocketHandlers } from "./tcp-connection.ts";
import { describeTlsFailure } from "./tls-errors.ts";
import { FirstChunk } from "./tls-first-chunk.ts";
import { type Pem, type ServerTlsOptions, TLS_HANDSHAKE_RECORD, TlsMode } from "./tls-options.ts";
import { clientCertificateProblem, hasCertificate, serverTlsSettings } from "./tls-server-policy.ts";
import { type TlsStreamOptions, TlsStreamSocket } from "./tls-stream-socket.ts";

export interface RemotingServerOptions extends EndpointOptions {
  bindAddress?: string;
  listenPort: number;
  /** serverChannelMaxIdleTimeSeconds (spec remoting §5.1); 0 disables. */
  idleSeconds?: number;
  frameBytesMax?: number;
  outboundBytesMax?: number;
  /** Shared with the process's other servers; absent: this server makes its own (auto limits). */
  resources?: ServerResources;
  /** TLS in permissive or enforcing mode; absent: plaintext only (`disabled`). */
  tls?: ServerTlsOptions;
}

export class RemotingServer {
  readonly endpoint: RemotingEndpoint;
  readonly resources: ServerResources;
  private listener: TCPSocketListener<TcpSocketData> | null = null;
  /** The port bound first, listened on again after a pause (listenPort may be 0). */
  private boundPort = 0;
  private stopped = false;
  private readonly ownsResources: boolean;
  private readonly live = new Set<Connection>();
  private readonly log: Logger;
  private readonly pausable: PausableListener;
  /** node:tls settings for permissive mode's TLS connections, made once. */
  private readonly streamTls: TlsStreamOptions | null;
  private readonly tlsFailures: BurstLog;

  constructor(private readonly options: RemotingServerOptions) {
    this.log = options.log;
    this.endpoint = new RemotingEndpoint({
      asyncPermits: DEFAULT_SERVER_ASYNC_PERMITS,
      onewayPermits: DEFAULT_SERVER_ONEWAY_PERMITS,
      ...options,
    });
    this.ownsResources = options.resources === undefined;
    this.resources = options.resources ?? new ServerResources({ log: options.log });
    this.pausable = {
      name: options.name,
      pause: () => this.pauseListening(),
      resume: () => this.resumeListening(),
    };
    this.endpoint.onConnectionClosed((conn) => {
      if (this.live.delete(conn) && conn.transport === "tcp") this.resources.connections.leave();
    });
    this.streamTls = options.tls?.mode === TlsMode.PERMISSIVE ? streamOptionsOf(options.tls) : null;
    this.tlsFailures = new BurstLog(options.log, `${options.name}: TLS handshakes failing`);
  }

  get registry() {
    return this.endpoint.registry;
  }

  /** The bound TCP port (useful with listenPort 0); kept while listening is paused. */
  get port(): number {
    if (this.boundPort === 0) throw new Error(`${this.options.name} is not listening`);
    return this.boundPort;
  }

  get connections(): ReadonlySet<Connection> {
    return this.live;
  }

  /** Listens; a port that cannot be bound fails with an error naming the address and the cause. */
  async start(): Promise<void> {
    const hostname = this.options.bindAddress ?? "0.0.0.0";
    try {
      this.listener = this.listen(hostname, this.options.listenPort);
      this.boundPort = this.listener.port;
      this.resources.descriptors.add(this.pausable);
      // Java's "Server is running in TLS {} mode".
      this.log.info({ port: this.boundPort, tls: this.options.tls?.mode ?? TlsMode.DISABLED }, "TLS mode");
    } catch (err) {
      // Bun's own message ("Failed to listen at 0.0.0.0") names neither the port nor the cause.
      const code = (err as { code?: string }).code;
      const why = code === "EADDRINUSE" ? "address already in use" : (code ?? (err as Error).message);
      const where = `${hostname}:${this.options.listenPort}`;
      throw new Error(`${this.options.name}: cannot listen on ${where}: ${why}`, { cause: err });
    }
  }

  private listen(hostname: string, port: number): TCPSocketListener<TcpSocketData> {
    const tls = this.options.tls;
    const accept = (socket: Socket<TcpSocketData>) => this.accept(socket);
    if (tls?.mode !== TlsMode.ENFORCING) {
      return Bun.listen<TcpSocketData>({
        hostname,
        port,
        data: { conn: null },
        socket: tcpSocketHandlers(accept),
      });
    }
    return Bun.listen<TcpSocketData>({
      hostname,
      port,
      data: { conn: null },
      tls: serverTlsSettings(tls),
      socket: tcpSocketHandlers(accept, (socket, ok, err) => this.nativeHandshake(tls, socket, ok, err)),
    });
  }

  private accept(socket: Socket<TcpSocketData>): void {
    if (!this.resources.connections.admit(`${socket.remoteAddress}:${socket.remotePort}`)) {
      // Closed before any byte is read, so its descriptor is free again at once.
      socket.terminate();
      return;
    }
    if (this.streamTls === null) {
      this.adopt(socket);
      return;
    }
    new FirstChunk(
      socket,
      (s, first) => this.route(s, first),
      () => this.resources.connections.leave(),
      this.options.idleSeconds ?? 0,
    );
  }

  /** Serves a socket admitted to the connection cap. */
  private adopt(socket: ByteSocket): TcpConnection {
    const conn = new TcpConnection(socket, this.endpoint, {
      frameBytesMax: this.options.frameBytesMax,
      outboundBytesMax: this.options.outboundBytesMax,
      idleSeconds: this.options.idleSeconds,
      budget: this.resources.budget,
      log: this.log,
    });
    this.live.add(conn);
    return conn;
  }

  /** Permissive mode: a connection whose first byte opens a TLS handshake is served over TLS. */
  private route(socket: Socket<TcpSocketData>, first: Uint8Array): SocketEvents {
    const tls = this.options.tls;
    if (first[0] !== TLS_HANDSHAKE_RECORD || tls === undefined || this.streamTls === null)
      return this.adopt(socket);
    const addr = `${socket.remoteAddress}:${socket.remotePort}`;
    const stream = new TlsStreamSocket(socket, this.streamTls, {
      onSecure: (peer) => clientCertificateProblem(tls, peer),
      onFailure: (reason) => this.tlsFailed(addr, reason),
    });
    this.adopt(stream);
    return stream;
  }

  /** Enforcing mode: the native handshake finished (Bun closes a failed one itself). */
  private nativeHandshake(
    tls: ServerTlsOptions,
    socket: Socket<TcpSocketData>,
    ok: boolean,
    error: Error | null,
  ): void {
    const addr = `${socket.remoteAddress}:${socket.remotePort}`;
    if (!ok) {
      this.tlsFailed(addr, error);
      return;
    }
    const problem = clientCertificateProblem(tls, {
      authorized: socket.authorized,
      authorizationError: error,
      presented: hasCertificate(socket.getPeerCertificate()),
    });
    if (problem === undefined) return;
    this.tlsFailed(addr, problem);
    const conn = socket.data.conn;
    if (conn instanceof TcpConnection) conn.abort(`TLS: ${problem}`);
    else socket.terminate();
  }

  /** One warning per burst of failures (a scanner must not flood the log), every one at debug. */
  private tlsFailed(addr: string, reason: Error | string | null): void {
    const why = typeof reason === "string" ? reason : describeTlsFailure(reason);
    this.log.debug({ addr, reason: why }, "TLS connection refused");
    this.tlsFailures.note({ addr, reason: why });
  }

  /** Stops accepting (the descriptor watch found none left); open connections stay. */
  private pauseListening(): void {
    this.listener?.stop(false);
    this.listener = null;
  }

  /** Listens again on the port bound at start; false when that failed (retried later). */
  private resumeListening(): boolean {
    if (this.listener || this.stopped) return true;
    try {
      this.listener = this.listen(this.options.bindAddress ?? "0.0.0.0", this.boundPort);
      return true;
    } catch (err) {
      this.log.warn({ err, port: this.boundPort }, `${this.options.name}: cannot listen again yet`);
      return false;
    }
  }

  /**
   * A connection to this server from inside the process; `client` handles what the server sends back.
   * Returns the client's side.
   */
  acceptInProcess(
    client: ConnectionHandler,
    options: { roundTrip?: boolean; clientAddress?: string } = {},
  ): Connection {
    const [clientSide, serverSide] = createInProcessPair(client, this.endpoint, {
      ...options,
      serverAddress: this.boundPort !== 0 ? `127.0.0.1:${this.boundPort}` : "in-process",
    });
    this.live.add(serverSide);
    return clientSide;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.resources.descriptors.remove(this.pausable);
    this.listener?.stop(true);
    this.listener = null;
    for (const conn of [...this.live]) conn.close("server stopping");
    this.live.clear();
    this.endpoint.close();
    this.tlsFailures.stop();
    if (this.ownsResources) this.resources.stop();
  }
}

function streamOptionsOf(tls: ServerTlsOptions): TlsStreamOptions {
  const { requestCert, rejectUnauthorized } = serverTlsSettings(tls);
  const pem = (p: Pem) => (typeof p === "string" ? p : Buffer.from(p));
  const secureContext = createSecureContext({
    cert: pem(tls.cert),
    key: pem(tls.key),
    ...(tls.passphrase ? { passphrase: tls.passphrase } : {}),
    ...(tls.ca ? { ca: pem(tls.ca) } : {}),
  });
  return {
    secureContext,
    requestCert: requestCert ?? false,
    rejectUnauthorized: rejectUnauthorized ?? false,
  };
}
