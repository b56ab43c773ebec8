/**
 * RemotingServer: an endpoint that accepts TCP connections (Bun.listen) and, for roles in the same
 * process, in-process connections, all served by one processor registry.
 */
import type { Socket, TCPSocketListener } from "bun";
import type { Logger } from "pino";
import type { Connection, ConnectionHandler } from "./connection.ts";
import {
  DEFAULT_SERVER_ASYNC_PERMITS,
  DEFAULT_SERVER_ONEWAY_PERMITS,
  type EndpointOptions,
  RemotingEndpoint,
} from "./endpoint.ts";
import { createInProcessPair } from "./in-process.ts";
import { TcpConnection, type TcpSocketData, tcpSocketHandlers } from "./tcp-connection.ts";

export interface RemotingServerOptions extends EndpointOptions {
  bindAddress?: string;
  listenPort: number;
  /** serverChannelMaxIdleTimeSeconds (spec remoting §5.1); 0 disables. */
  idleSeconds?: number;
  frameBytesMax?: number;
  outboundBytesMax?: number;
}

export class RemotingServer {
  readonly endpoint: RemotingEndpoint;
  private listener: TCPSocketListener<TcpSocketData> | null = null;
  private readonly live = new Set<Connection>();
  private readonly log: Logger;

  constructor(private readonly options: RemotingServerOptions) {
    this.log = options.log;
    this.endpoint = new RemotingEndpoint({
      asyncPermits: DEFAULT_SERVER_ASYNC_PERMITS,
      onewayPermits: DEFAULT_SERVER_ONEWAY_PERMITS,
      ...options,
    });
    this.endpoint.onConnectionClosed((conn) => this.live.delete(conn));
  }

  get registry() {
    return this.endpoint.registry;
  }

  /** The bound TCP port (useful with listenPort 0). */
  get port(): number {
    if (!this.listener) throw new Error(`${this.options.name} is not listening`);
    return this.listener.port;
  }

  get connections(): ReadonlySet<Connection> {
    return this.live;
  }

  /** Listens; a port that cannot be bound fails with an error naming the address and the cause. */
  async start(): Promise<void> {
    const hostname = this.options.bindAddress ?? "0.0.0.0";
    try {
      this.listener = this.listen(hostname);
    } catch (err) {
      // Bun's own message ("Failed to listen at 0.0.0.0") names neither the port nor the cause.
      const code = (err as { code?: string }).code;
      const why = code === "EADDRINUSE" ? "address already in use" : (code ?? (err as Error).message);
      const where = `${hostname}:${this.options.listenPort}`;
      throw new Error(`${this.options.name}: cannot listen on ${where}: ${why}`, { cause: err });
    }
  }

  private listen(hostname: string): TCPSocketListener<TcpSocketData> {
    return Bun.listen<TcpSocketData>({
      hostname,
      port: this.options.listenPort,
      data: { conn: null },
      socket: tcpSocketHandlers((socket: Socket<TcpSocketData>) => {
        const conn = new TcpConnection(socket, this.endpoint, {
          frameBytesMax: this.options.frameBytesMax,
          outboundBytesMax: this.options.outboundBytesMax,
          idleSeconds: this.options.idleSeconds,
          log: this.log,
        });
        this.live.add(conn);
      }),
    });
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
      serverAddress: this.listener ? `127.0.0.1:${this.listener.port}` : "in-process",
    });
    this.live.add(serverSide);
    return clientSide;
  }

  async stop(): Promise<void> {
    this.listener?.stop(true);
    this.listener = null;
    for (const conn of [...this.live]) conn.close("server stopping");
    this.live.clear();
    this.endpoint.close();
  }
}
