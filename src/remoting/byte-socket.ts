/**
 * The two sides of a byte stream a TcpConnection sits on. ByteSocket is what the connection calls
 * (Bun's Socket has this shape, plaintext or TLS; TlsStreamSocket gives it to node:tls over an
 * accepted socket); SocketEvents is what a socket's callbacks call, through `data.conn`.
 */

/** What a socket's callbacks are routed to: a connection, or whatever stands before one. */
export interface SocketEvents {
  onData(chunk: Uint8Array): void;
  onDrain(): void;
  /** The socket is gone (closed by the peer, or on error). */
  onSocketClosed(reason: string): void;
  /** The peer ended its side: close ours. */
  close(reason?: string): void;
  onTimeout(): void;
}

export interface TcpSocketData {
  conn: SocketEvents | null;
}

/** The socket operations a TcpConnection uses. */
export interface ByteSocket {
  data: TcpSocketData;
  readonly remoteAddress: string;
  readonly remotePort: number;
  readonly localAddress: string;
  readonly localPort: number;
  /** Bytes taken (possibly fewer than given: wait for drain), or -1 when the socket is closed. */
  write(bytes: Uint8Array): number;
  /** Closes after what was written is sent. */
  end(): void;
  /** Closes at once, discarding what is unsent. */
  terminate(): void;
  /** Arms the timeout callback `seconds` from now. */
  timeout(seconds: number): void;
  setNoDelay(noDelay: boolean): unknown;
}
