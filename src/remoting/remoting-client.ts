/**
 * RemotingClient: an endpoint with a connection pool keyed by address. A closed connection is
 * dropped from the pool and the next call reconnects. Servers may send requests back over these
 * connections; the client's own registry answers them.
 */
import type { Logger } from "pino";
import type { RemotingCommand } from "./command.ts";
import type { Connection } from "./connection.ts";
import { type Connector, tcpConnector } from "./connector.ts";
import { type EndpointOptions, RemotingEndpoint } from "./endpoint.ts";

export const DEFAULT_CLIENT_TIMEOUT_MS = 3000;

export interface RemotingClientOptions extends EndpointOptions {
  connector?: Connector;
}

export class RemotingClient {
  readonly endpoint: RemotingEndpoint;
  private readonly connector: Connector;
  private readonly pool = new Map<string, Promise<Connection>>();
  /** The open connection per address, so a call on it need not await the pooled promise. */
  private readonly open = new Map<string, Connection>();
  /** Which pooled promise each open connection came from, to forget it when it closes. */
  private readonly origin = new Map<Connection, { addr: string; opening: Promise<Connection> }>();
  private readonly log: Logger;
  private readonly lostListeners: ((addr: string) => void)[] = [];
  private stopped = false;

  constructor(options: RemotingClientOptions) {
    this.log = options.log;
    this.endpoint = new RemotingEndpoint(options);
    this.connector = options.connector ?? tcpConnector({ log: this.log });
    this.endpoint.onConnectionClosed((conn) => {
      const from = this.origin.get(conn);
      if (!from) return;
      this.origin.delete(conn);
      if (this.pool.get(from.addr) === from.opening) this.pool.delete(from.addr);
      if (this.open.get(from.addr) === conn) this.open.delete(from.addr);
      if (this.stopped) return;
      for (const listener of this.lostListeners) {
        try {
          listener(from.addr);
        } catch (err) {
          this.log.error({ err, addr: from.addr }, "connection-lost listener threw");
        }
      }
    });
  }

  /** Calls `listener` with the address whenever an open pooled connection closes (not on shutdown). */
  onConnectionLost(listener: (addr: string) => void): void {
    this.lostListeners.push(listener);
  }

  get registry() {
    return this.endpoint.registry;
  }

  /** The pooled connection to `addr`, connecting (again) if there is none open. */
  connection(addr: string): Promise<Connection> {
    if (this.stopped) return Promise.reject(new Error(`${this.endpoint.name} is shut down`));
    const existing = this.pool.get(addr);
    if (existing) return existing;
    const opening: Promise<Connection> = this.connector.connect(addr, this.endpoint).then(
      (conn) => {
        if (conn.closed) this.pool.delete(addr);
        else {
          this.origin.set(conn, { addr, opening });
          if (this.pool.get(addr) === opening) this.open.set(addr, conn);
        }
        return conn;
      },
      (err: unknown) => {
        this.pool.delete(addr);
        throw err;
      },
    );
    this.pool.set(addr, opening);
    return opening;
  }

  invoke(
    addr: string,
    request: RemotingCommand,
    timeoutMs = DEFAULT_CLIENT_TIMEOUT_MS,
  ): Promise<RemotingCommand> {
    const conn = this.openNow(addr);
    if (conn !== undefined) return this.endpoint.invoke(conn, request, timeoutMs);
    return this.connection(addr).then((c) => this.endpoint.invoke(c, request, timeoutMs));
  }

  invokeOneway(addr: string, request: RemotingCommand, timeoutMs = DEFAULT_CLIENT_TIMEOUT_MS): Promise<void> {
    const conn = this.openNow(addr);
    if (conn !== undefined) return this.endpoint.invokeOneway(conn, request, timeoutMs);
    return this.connection(addr).then((c) => this.endpoint.invokeOneway(c, request, timeoutMs));
  }

  /**
   * The pooled connection to `addr` when it is open now: a request on it goes out in this turn,
   * where awaiting the pooled promise costs a microtask and a promise per call.
   */
  private openNow(addr: string): Connection | undefined {
    const conn = this.open.get(addr);
    return conn !== undefined && !conn.closed && !this.stopped ? conn : undefined;
  }

  /** Closes the pooled connection to one address (Java closes a channel after a sync timeout). */
  async closeConnection(addr: string): Promise<void> {
    const pooled = this.pool.get(addr);
    this.pool.delete(addr);
    this.open.delete(addr);
    const conn = await pooled?.catch(() => null);
    conn?.close("closed by client");
  }

  async shutdown(): Promise<void> {
    this.stopped = true;
    const all = [...this.pool.values()];
    this.pool.clear();
    this.open.clear();
    for (const conn of await Promise.allSettled(all)) {
      if (conn.status === "fulfilled") conn.value.close("client shutdown");
    }
    this.endpoint.close();
    this.log.debug("remoting client shut down");
  }
}
