/**
 * Connectors open a Connection to an address: over TCP (Bun.connect, with TLS when given client
 * TLS options), or to a server registered in this process (no socket), falling back to TCP for
 * every other address. The client's connection pool takes any connector, so callers never know
 * which transport they hold.
 */
import type { Socket, TLSOptions } from "bun";
import type { Logger } from "pino";
import type { Connection, ConnectionHandler } from "./connection.ts";
import { ConnectError } from "./errors.ts";
import type { RemotingServer } from "./remoting-server.ts";
import { TcpConnection, type TcpSocketData, tcpSocketHandlers } from "./tcp-connection.ts";
import { describeTlsFailure, isSelfSigned } from "./tls-errors.ts";
import type { ClientTlsOptions } from "./tls-options.ts";

export interface Connector {
  connect(addr: string, handler: ConnectionHandler): Promise<Connection>;
}

export const DEFAULT_CONNECT_TIMEOUT_MS = 3000;

export interface TcpConnectorOptions {
  connectTimeoutMs?: number;
  frameBytesMax?: number;
  outboundBytesMax?: number;
  /** clientChannelMaxIdleTimeSeconds; 0 disables. */
  idleSeconds?: number;
  /** Connect with TLS (Java's useTLS / tls.enable); absent: plaintext. */
  tls?: ClientTlsOptions;
  log: Logger;
}

/** Splits "host:port" (IPv6 hosts may come in brackets). */
export function parseAddress(addr: string): { host: string; port: number } {
  const at = addr.lastIndexOf(":");
  const port = Number(addr.slice(at + 1));
  let host = addr.slice(0, at);
  if (host.startsWith("[") && host.endsWith("]")) host = host.slice(1, -1);
  if (at <= 0 || !Number.isInteger(port) || port <= 0 || port > 65535) {
    throw new ConnectError(addr, { cause: new Error(`bad address '${addr}', expected host:port`) });
  }
  return { host, port };
}

export function tcpConnector(options: TcpConnectorOptions): Connector {
  const tls = options.tls ? clientTlsSettings(options.tls) : undefined;
  return {
    connect(addr, handler) {
      const { host, port } = parseAddress(addr);
      const timeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
      return new Promise<Connection>((resolve, reject) => {
        let settled = false;
        const fail = (reason: string | undefined, cause?: unknown) => {
          clearTimeout(timer);
          if (settled) return;
          settled = true;
          reject(new ConnectError(addr, { cause, reason }));
        };
        const timer = setTimeout(
          () => fail(undefined, new Error(`connect timed out after ${timeoutMs} ms`)),
          timeoutMs,
        );
        // Over TLS the connection is ready once the handshake is done: a write before that is lost.
        const ready = (socket: Socket<TcpSocketData>) => {
          const conn = new TcpConnection(socket, handler, options);
          clearTimeout(timer);
          if (settled) {
            conn.close("connect timed out");
            return;
          }
          settled = true;
          resolve(conn);
        };
        const handlers = tls
          ? tcpSocketHandlers(
              () => {},
              (socket, ok, err) =>
                ok
                  ? ready(socket)
                  : fail(describeTlsFailure(err, { selfSigned: peerSelfSigned(socket) }), err),
            )
          : tcpSocketHandlers(ready);
        Bun.connect<TcpSocketData>({
          hostname: host,
          port,
          data: { conn: null },
          ...(tls ? { tls } : {}),
          socket: {
            ...handlers,
            close(socket, err) {
              if (socket.data.conn === null)
                fail(tls ? describeTlsFailure(err ?? new Error("socket hang up")) : "closed by peer", err);
              handlers.close?.(socket, err);
            },
            connectError(_socket, err) {
              fail(undefined, err);
            },
          },
        }).catch((err: unknown) => fail(undefined, err));
      });
    },
  };
}

function peerSelfSigned(socket: Socket<TcpSocketData>): boolean {
  try {
    return isSelfSigned(socket.getPeerCertificate());
  } catch {
    return false;
  }
}

/** Bun's client TLS options: the server is verified unless `verifyServer` is false. */
export function clientTlsSettings(tls: ClientTlsOptions): TLSOptions {
  return {
    ...(tls.ca ? { ca: tls.ca } : {}),
    ...(tls.cert ? { cert: tls.cert } : {}),
    ...(tls.key ? { key: tls.key } : {}),
    ...(tls.passphrase ? { passphrase: tls.passphrase } : {}),
    ...(tls.serverName ? { serverName: tls.serverName } : {}),
    rejectUnauthorized: tls.verifyServer ?? true,
  };
}

/**
 * Servers of this process by the addresses they are known as; connecting to one of them needs no
 * socket. `roundTrip` encodes and decodes every hop (tests).
 */
export class LocalServers {
  private readonly servers = new Map<string, RemotingServer>();

  register(addr: string, server: RemotingServer): void {
    this.servers.set(addr, server);
  }

  unregister(addr: string): void {
    this.servers.delete(addr);
  }

  get(addr: string): RemotingServer | undefined {
    return this.servers.get(addr);
  }
}

export function inProcessConnector(
  locals: LocalServers,
  fallback: Connector | null,
  options: { roundTrip?: boolean } = {},
): Connector {
  return {
    async connect(addr, handler) {
      const server = locals.get(addr);
      if (server) return server.acceptInProcess(handler, options);
      if (!fallback)
        throw new ConnectError(addr, { cause: new Error("no in-process server at this address") });
      return fallback.connect(addr, handler);
    },
  };
}
